// One cell of verify's matrix: a row (collective / algorithm) on a communicator (a setup) under a numerics mode,
// checked over every selected type x op x count, root (the first and the last rank, for rooted collectives) and
// placement (out of place and in place: both buffers in one, at the offsets of bench/data/layout.h), on every rank
// together.
//
// Each call runs on two kinds of data:
//   exact data      small integers (bench/data/exact_data.h), whose every reduction is exact in every type: the
//                   result bit for bit against the local reference, and against the vendor MPI's collective on the
//                   same inputs where MPI has the type and op (no 16-bit floats, no avg)
//   rounding data   floating-point reductions of bench/data/rounding_data.h: the mode's promise (rounding_check.h)
// Calls the library must refuse are made too and must fail with InvalidArgument: a named algorithm other than inline
// under deterministic or exact on floating-point data, inline above its 4 KiB per rank, and AllToAllV in place (it has
// no in-place form).
#ifndef KCOLL_TOOLS_VERIFY_CELL_H_
#define KCOLL_TOOLS_VERIFY_CELL_H_

#include <mpi.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "bench/data/exact_data.h"
#include "collectives/communicator.h"
#include "tools/verify/grid.h"
#include "tools/verify/options.h"

namespace kcoll {
namespace verify {

struct CellResult {
  enum class State { kPass, kFail, kNotApplicable };
  State state = State::kPass;
  std::string code;           // what the matrix prints: "pass", "FAIL", or a not-applicable code ("(shm)")
  int64_t calls = 0;          // calls checked on every rank
  int64_t refused = 0;        // of them, refusals the library owes (and gave)
  std::string first_failure;  // "rank R: TYPE OP count N, DATA data: index I expected E got G" (or the error)
  // rank 0's all_reduce float64 sum on rounding data at the largest count (0: not run): the negative control
  uint64_t fingerprint = 0;
};

// The vendor MPI's results on exact data, computed once per (collective, type, op, count, root) and shared by every
// cell,
// and whether each agreed with the local reference.
class VendorResults {
 public:
  explicit VendorResults(MPI_Comm comm) : comm_(comm) {}
  // This rank's MPI result for the call `spec` describes on exact data; null when MPI has no such reduction.
  const std::vector<char>* Get(const bench::CheckSpec& spec);
  // Per collective: "" when MPI matched the reference on every call, else this rank's first mismatch.
  const std::map<Collective, std::string>& disagreements() const { return disagreements_; }
  const std::map<Collective, int64_t>& calls() const { return calls_; }

 private:
  MPI_Comm comm_;
  // Per call shape: MPI's result, or nothing where MPI has no such reduction or disagrees with the reference.
  std::map<std::tuple<int, int, int, size_t, int>, std::optional<std::vector<char>>> results_;
  std::map<Collective, std::string> disagreements_;
  std::map<Collective, int64_t> calls_;
};

// Runs the cell on every rank (collective over MPI_COMM_WORLD and `comm`); the result is the same on every rank.
CellResult RunCell(Communicator& comm, const VerifyOptions& options, const Row& row, const Setup& setup,
                   Numerics numerics, VendorResults& vendor);

}  // namespace verify
}  // namespace kcoll

#endif  // KCOLL_TOOLS_VERIFY_CELL_H_
