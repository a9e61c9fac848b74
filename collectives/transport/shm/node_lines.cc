#include "collectives/transport/shm/node_lines.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "collectives/transport/call_tracking.h"
#include "collectives/transport/shm/shm_layout.h"

namespace kcoll {
namespace shm {

absl::StatusOr<std::unique_ptr<NodeLines>> NodeLines::Create(MPI_Comm comm, size_t bytes, std::vector<int> rank_names,
                                                             int spin_polls, absl::string_view owner) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (!rank_names.empty() && static_cast<int>(rank_names.size()) != size) {
    return absl::InvalidArgumentError(absl::StrCat(owner, ": ", rank_names.size(), " rank names for ", size, " ranks"));
  }
  MPI_Comm dup = MPI_COMM_NULL;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) return absl::InternalError(absl::StrCat(owner, ": MPI_Comm_dup failed"));
  std::unique_ptr<NodeLines> lines(new NodeLines(dup, rank, size));
  lines->rank_names_ = std::move(rank_names);
  absl::StatusOr<std::unique_ptr<Segment>> segment = Segment::Create(dup, bytes);
  if (!segment.ok()) return segment.status();
  lines->segment_ = *std::move(segment);
  lines->cores_ = CoresAvailable(dup);
  lines->spin_polls_ = SpinPollsFor(size, lines->cores_, spin_polls);
  return lines;
}

NodeLines::~NodeLines() {
  segment_.reset();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void NodeLines::set_timeout(absl::Duration timeout, std::string source) {
  timeout_ = timeout;
  timeout_source_ = std::move(source);
}

absl::Status NodeLines::TimedOut(const Transport::CallInfo& call, absl::string_view where,
                                 absl::string_view waiting_for, const std::vector<int>& missing) const {
  // Worded as the transports word a timeout: each rank that did not arrive is a pending receive of its line.
  TimedOutCall timed_out;
  timed_out.collective = call.collective;
  timed_out.algorithm = call.algorithm;
  timed_out.rank = Name(rank_);
  timed_out.timeout = timeout_;
  timed_out.timeout_source = timeout_source_;
  timed_out.seconds_since_call_began = call.SecondsSinceStart();
  std::vector<PendingTransfer> pending;
  for (int r : missing) pending.push_back(PendingTransfer{false, r, kCacheLine});
  return TransfersTimedOut(
      timed_out, pending,
      absl::StrCat("; ", where, ", ", waiting_for, ": a peer stopped, died, or called another collective"));
}

}  // namespace shm
}  // namespace kcoll
