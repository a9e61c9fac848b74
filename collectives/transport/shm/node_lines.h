// Cache lines the ranks of one node share for their own signalling (the registered-buffer exchange and barrier, the
// inline AllReduce), with what waiting on them needs: a duplicate of the node's MPI communicator (kept as long as the
// lines), how errors name each rank, how many polls a wait spins before it yields the core, and the timeout, with the
// DeadlineExceeded that names the ranks that did not arrive.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_SHM_NODE_LINES_H_
#define KCOLL_COLLECTIVES_TRANSPORT_SHM_NODE_LINES_H_

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "collectives/transport/shm/shm_segment.h"
#include "collectives/transport/shm/spin_policy.h"
#include "collectives/transport/transport.h"

namespace kcoll {
namespace shm {

class NodeLines {
 public:
  // Collective over `comm`, whose ranks must share a host: `bytes` of zero-filled memory every rank maps. `owner`
  // names the user in errors ("registered memory"); `rank_names` says how errors name each rank (empty: its rank
  // in `comm`); `spin_polls` as ShmOptions::spin_polls (0: chosen from the cores the ranks have).
  static absl::StatusOr<std::unique_ptr<NodeLines>> Create(MPI_Comm comm, size_t bytes, std::vector<int> rank_names,
                                                           int spin_polls, absl::string_view owner);
  ~NodeLines();
  NodeLines(const NodeLines&) = delete;
  NodeLines& operator=(const NodeLines&) = delete;

  unsigned char* data() const { return segment_->data(); }
  MPI_Comm comm() const { return comm_; }  // the duplicate, for the owner's own collectives
  int rank() const { return rank_; }
  int size() const { return size_; }
  int spin_polls() const { return spin_polls_; }
  // Whether the ranks outnumber the cores they may run on together (CoresAvailable), and so take turns on them.
  bool ranks_take_turns() const { return size_ > cores_; }
  int Name(int rank) const { return rank_names_.empty() ? rank : rank_names_[rank]; }

  void set_timeout(absl::Duration timeout, std::string source);

  // Polls until behind(r) is false for every rank r (spinning, then yielding, then sleeping), or until no rank has
  // caught up for the timeout: then DeadlineExceeded naming `call`, this rank, `where` ("at step 2 of ..."), the time
  // since the call began, the ranks still behind and `waiting_for`.
  template <class Behind>
  absl::Status WaitUntilNoneBehind(Behind behind, const Transport::CallInfo& call, absl::string_view where,
                                   absl::string_view waiting_for) const {
    IdlePacer pacer(spin_polls_, timeout_);
    int was_behind = size_;
    while (true) {
      int count = 0;
      for (int r = 0; r < size_; ++r) count += behind(r) ? 1 : 0;
      if (count == 0) return absl::OkStatus();
      if (count < was_behind) {  // someone caught up: the timeout counts from here
        was_behind = count;
        pacer.Moved();
      } else if (!pacer.Idle()) {
        break;
      }
    }
    std::vector<int> missing;
    for (int r = 0; r < size_; ++r) {
      if (behind(r)) missing.push_back(Name(r));
    }
    return TimedOut(call, where, waiting_for, missing);
  }

 private:
  NodeLines(MPI_Comm comm, int rank, int size) : comm_(comm), rank_(rank), size_(size) {}
  absl::Status TimedOut(const Transport::CallInfo& call, absl::string_view where, absl::string_view waiting_for,
                        const std::vector<int>& missing) const;

  MPI_Comm comm_;
  int rank_;
  int size_;
  std::vector<int> rank_names_;
  int spin_polls_ = 1;
  int cores_ = 1;
  std::unique_ptr<Segment> segment_;
  absl::Duration timeout_ = absl::InfiniteDuration();
  std::string timeout_source_;
};

}  // namespace shm
}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_SHM_NODE_LINES_H_
