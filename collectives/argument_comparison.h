// The optional cross-rank argument check (CommunicatorOptions::check_args, $KCOLL_CHECK_ARGS=1): before a
// collective moves any data, the ranks exchange what they were asked to do and fail together, with a message
// naming the first rank and field that differ, instead of hanging in mismatched transfers.
#ifndef KCOLL_COLLECTIVES_ARGUMENT_COMPARISON_H_
#define KCOLL_COLLECTIVES_ARGUMENT_COMPARISON_H_

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// What one rank was asked to do. Fields the collective ignores (op without a reduction, root without a root) are
// -1 so that they never count as a mismatch.
struct ArgsRecord {
  int64_t accepted = 1;  // 0: the rank rejected its own arguments
  int64_t collective = -1;
  int64_t count = -1;
  int64_t type = -1;
  int64_t op = -1;
  int64_t root = -1;
  int64_t algorithm = -1;
};

ArgsRecord MakeArgsRecord(const CollectiveArgs& args, Algorithm algorithm, bool accepted);

// OK if every record matches rank 0's and every rank accepted its arguments; else InvalidArgument naming the first
// rank (and field) at fault. Every rank, given the same records, returns the same status.
absl::Status CompareArgsRecords(const std::vector<ArgsRecord>& records);

// Allgathers this rank's record over `comm` and compares. If this rank rejected its own arguments (`local` not
// OK), returns `local`. Collective over `comm`. When `timeout` passes before every rank has joined, returns
// DeadlineExceeded (the exchange's buffers are then left to MPI, never freed).
absl::Status CompareArgumentsAcrossRanks(MPI_Comm comm, const CollectiveArgs& args, Algorithm algorithm,
                                         const absl::Status& local, absl::Duration timeout = absl::InfiniteDuration());

// AllToAllV under the check: every rank's sendcounts[j] equals rank j's recvcounts[rank]. Collective; every rank
// returns the same verdict (InvalidArgument naming the first pair that differs), DeadlineExceeded after `timeout`.
absl::Status CheckTransposedCounts(MPI_Comm comm, const CollectiveArgs& args, absl::Duration timeout);

// A hash of what every rank must agree on for a call (the record's fields and the algorithm's tuning), the same
// on every rank given the same arguments: Transport::CallInfo::signature.
uint32_t CallSignature(const CollectiveArgs& args, Algorithm algorithm);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ARGUMENT_COMPARISON_H_
