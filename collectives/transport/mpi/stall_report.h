// After a timeout: which rank held the call up, found by the ranks that can still talk, as a hang analyzer would.
//
// A rank whose wait timed out knows only the peers it was waiting for, which may themselves be waiting: with rank 1
// of 3 stalled in a double-binary-tree AllReduce, rank 2 waits for rank 0, which waits for rank 1. So each rank that
// times out sends its position (which call of the communicator, which step, whom it waits for, whom it heard from in
// the call) to every other rank, and collects the others' for a short window. Following "waits for" from itself
// through the ranks that answered, it reaches the cause: a rank that did not answer (stopped, killed, busy outside
// kcoll, or its host unreachable), or one that is in another call; a rank whose peers all gave up on the call before
// it began it is told that it came late. A rank someone heard from during the call entered
// it; one nobody heard from never did, as far as the others can tell.
//
// The exchange is point-to-point on the communicator's control communicator (tag kStallReportTag), bounded by the
// window; sends to ranks that cannot be reached are released and their small buffers left to MPI (the communicator is
// broken after a timeout and kept, so nothing is freed under MPI).
#ifndef KCOLL_COLLECTIVES_TRANSPORT_MPI_STALL_REPORT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_MPI_STALL_REPORT_H_

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace kcoll {

inline constexpr int kStallReportTag = 7302;

// Where one rank is in its communicator's calls when one of its waits timed out.
struct RankPosition {
  int rank = -1;
  uint64_t call = 0;            // how many collective calls the rank has begun on the communicator (this one included)
  std::string collective;       // "all_reduce"
  int step = -1;                // the wait that timed out (-1: not known)
  std::vector<int> waiting_on;  // ranks whose transfers it waited for
  std::vector<int> heard_from;  // ranks it completed a receive from in this call
  // When it began the call and when it gave up on it (wall clock, seconds since the epoch: hosts' clocks agree to
  // well under a timeout): a rank that finds the others gave up before it began came late.
  double began_at = 0;
  double timed_out_at = 0;
};

// Sends `mine` to every other rank of `comm` and collects the positions the others send, until every rank the
// report needs (ExplainStall follows "waits for" from `mine`) has answered or `window` has passed. The result holds
// `mine` too. Never blocks past the window.
std::map<int, RankPosition> ExchangePositions(MPI_Comm comm, const RankPosition& mine, absl::Duration window);

// Whether `answers` already hold every rank reachable from `mine` through "waits for" among ranks in the same call.
bool ReportComplete(const RankPosition& mine, const std::map<int, RankPosition>& answers);

// The sentence appended to a timeout error: "; the cause: rank 1 (host n1) ...". `host_of` names a rank's host;
// `window` is how long the others were given to answer.
std::string ExplainStall(const RankPosition& mine, const std::map<int, RankPosition>& answers,
                         const std::function<std::string(int)>& host_of, absl::Duration window);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_MPI_STALL_REPORT_H_
