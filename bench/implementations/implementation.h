// What the benchmark times: one way of running a collective. kcoll's algorithms (through the public Communicator
// API) and the peers they are compared with (the vendor MPI's collectives, Gloo) all look alike here, so every row
// of the report is measured by the same loop.
#ifndef KCOLL_BENCH_IMPLEMENTATIONS_IMPLEMENTATION_H_
#define KCOLL_BENCH_IMPLEMENTATIONS_IMPLEMENTATION_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/names.h"
#include "base/types.h"
#include "bench/data/layout.h"

namespace kcoll {
namespace bench {

// One call: pointers already placed for out-of-place or in-place use (see layout.h).
struct Call {
  Collective collective = Collective::kAllReduce;
  const void* send = nullptr;
  void* recv = nullptr;
  Layout layout;
  DataType type = DataType::kFloat32;
  std::optional<ReduceOp> op;  // empty for collectives that do not reduce
  int root = 0;
  bool in_place = false;
};

class Implementation {
 public:
  virtual ~Implementation() = default;
  // "ring", "auto", "MPI_Allreduce", "gloo".
  virtual std::string name() const = 0;
  // "kcoll", "mpi" or "gloo".
  virtual std::string kind() const = 0;
  bool is_peer() const { return kind() != "kcoll"; }
  // Runs the call; Unimplemented when this implementation cannot run it (the benchmark then skips it and says why).
  virtual absl::Status Run(const Call& call) = 0;
  // --nonblocking: starts the call's nonblocking form, then Finish waits for it (one call in flight at a time).
  // Unimplemented where the implementation has none.
  virtual absl::Status Start(const Call& /*call*/) {
    return absl::UnimplementedError(absl::StrCat(name(), " has no nonblocking form"));
  }
  virtual absl::Status Finish() { return absl::FailedPreconditionError("no nonblocking call in flight"); }
  // Where this implementation leaves the result of `call` (the recv pointer unless its in-place form differs).
  virtual const void* Result(const Call& call) const { return call.recv; }
  // Whether it runs on registered buffers (Communicator::Allocate) instead of ordinary ones.
  virtual bool registered() const { return false; }
  // Whether its result is the collective's (checked by -c and --fingerprint); a row that only moves the bytes says no.
  virtual bool checked() const { return true; }
};

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_IMPLEMENTATIONS_IMPLEMENTATION_H_
