// One transport made of two: transfers between ranks of the same node go over `local` (shared memory, or CUDA IPC
// on device buffers), the others over `remote` (MPI, or NCCL), so that a hierarchical schedule runs its node phases
// within the node and its network phase across without knowing it. Requests are this transport's own; a wait on
// either part keeps the other moving (Transport::set_companion), since a peer on this node may be waiting for data
// this rank must first exchange with another node.
//
// A stream-ordered part (CUDA IPC, NCCL) makes the whole stream-ordered: WaitAll launches the local part's group
// before the remote part waits (every rank does the same, so each stream holds its node's earlier groups before any
// host blocks across nodes); Synchronize completes what is posted that way, then waits for both streams; a mark of
// MarkPosted is reached when both parts' are. A remote part that stages device buffers through host memory orders
// itself on the same stream (staging_transport.h).
#ifndef KCOLL_COLLECTIVES_TRANSPORT_ROUTED_TRANSPORT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_ROUTED_TRANSPORT_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collectives/transport/transport.h"

namespace kcoll {

class RoutedTransport final : public Transport {
 public:
  // `local_index[p]`: rank p's rank in `local`, or -1 when p is on another node (reached through `remote`, whose
  // ranks are this transport's). Both parts reach the same memory.
  RoutedTransport(std::unique_ptr<Transport> local, std::vector<int> local_index, std::unique_ptr<Transport> remote);
  ~RoutedTransport() override;

  absl::string_view name() const override { return name_; }
  int rank() const override { return remote_->rank(); }
  int size() const override { return remote_->size(); }
  bool CanReach(MemoryKind memory) const override { return local_->CanReach(memory) && remote_->CanReach(memory); }

  absl::StatusOr<Request> Send(int peer, const void* data, size_t bytes, int tag) override;
  absl::StatusOr<Request> Recv(int peer, void* data, size_t bytes, int tag) override;
  bool FusesReduce(int peer) const override;
  absl::StatusOr<Request> RecvReduce(int peer, void* dst, const void* local, size_t bytes, int tag,
                                     const ChunkReducer& reduce) override;
  absl::Status Wait(Request request) override;
  absl::Status WaitAll() override;
  absl::Status Synchronize() override;
  bool StreamOrdered() const override { return local_->StreamOrdered() || remote_->StreamOrdered(); }
  absl::StatusOr<uint64_t> MarkPosted() override;
  absl::StatusOr<bool> Reached(uint64_t mark) override;
  absl::StatusOr<bool> Progress() override;
  void BeginCall(const CallInfo& call) override;
  void AllowSingleCopy(bool allowed) override { local_->AllowSingleCopy(allowed); }
  void StreamSlotStores(bool streaming) override { local_->StreamSlotStores(streaming); }
  void Abandon() override;
  std::vector<int> HeardFrom() const override;
  absl::Status Quiesce(absl::Duration timeout) override;

 private:
  struct Routed {
    bool local;
    Request request;
  };
  absl::StatusOr<Request> Post(bool send, int peer, void* data, size_t bytes, int tag);

  std::unique_ptr<Transport> local_;
  std::vector<int> local_index_;
  std::unique_ptr<Transport> remote_;
  std::string name_;
  std::vector<Routed> requests_;  // posted since the last WaitAll; a Request's id is its index
  // Marks of MarkPosted not yet known reached, oldest first: marks_[i] is mark first_mark_ + i, a pair of the
  // parts' marks ({0, 0} once reached).
  std::deque<std::pair<uint64_t, uint64_t>> marks_;
  uint64_t first_mark_ = 1;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_ROUTED_TRANSPORT_H_
