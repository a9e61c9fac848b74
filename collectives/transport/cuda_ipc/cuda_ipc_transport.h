// Transport between the ranks of one node on device memory through CUDA IPC, ordered on the kernels' stream like the
// NCCL transport, with no host synchronisation and no copy through host memory on the path of a transfer.
//
// Memory. Each rank allocates one device buffer, its inbox: for every peer, a ring of slots that only that peer
// writes (ipc_schedule.h). It exports the inbox with cudaIpcGetMemHandle; every peer opens it once, at creation, with
// cudaIpcOpenMemHandle (peer access enabled when the ranks are on different GPUs; ranks sharing a GPU, with or without
// MPS, map the same GPU's memory). The channels' counters are in a POSIX shared-memory segment of the node, which
// every rank registers with CUDA (cudaHostRegister, mapped), so that every stream can wait on and write each counter.
//
// A transfer. A send copies its chunks into the peer's ring (cudaMemcpyAsync, device to device) and writes the filled
// counter after each; a receive waits on that counter, copies the chunk out and writes the consumed counter; a send
// waits on consumed before reusing a slot. All of it is enqueued on the stream (cuStreamWaitValue32 and
// cuStreamWriteValue32, stream_memory_ops.h), between the kernels, in the order ipc_schedule.h plans per group.
//
// Groups, matching and completion are the NCCL transport's: what is posted between two waits is one group, enqueued
// at the wait; the n-th message from a to b meets b's n-th receive from a and must have its size (tags are accepted
// and ignored); Synchronize is the only host wait. A stall (no group completes for `timeout`) fails the transport:
// the error names the transfers of the step that stalled and the peers whose counters fell behind, the transport
// writes the counters its own stream waits on so that the stream drains, and every later call fails with the error.
// Before it releases its stream it raises its flag in the segment: the peers check the flags while they wait and when
// a call completes, so they fail too (naming it) instead of waiting out their own timeouts or returning data that its
// released stream sent out of turn.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_CUDA_IPC_TRANSPORT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_CUDA_IPC_TRANSPORT_H_

#include <cuda_runtime.h>
#include <mpi.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "collectives/transport/call_tracking.h"
#include "collectives/transport/cuda_ipc/ipc_schedule.h"
#include "collectives/transport/cuda_ipc/stream_memory_ops.h"
#include "collectives/transport/shm/shm_segment.h"
#include "collectives/transport/timeout.h"

namespace kcoll {

struct CudaIpcOptions {
  int device = 0;                                // this rank's CUDA device
  cudaStream_t stream = nullptr;                 // the kernels' stream (nullptr: the legacy default stream)
  absl::Duration timeout = kDefaultNcclTimeout;  // longest time without a completed step before failing
  cuda_ipc::ChannelShape shape;                  // slots per channel and their size
  std::vector<int> rank_names;                   // how errors name each rank (its rank in a larger communicator)
};

class CudaIpcTransport final : public CallTrackingTransport {
 public:
  // Collective over `comm`, whose ranks must all be on this host, each with its device current. Fails on every rank
  // when it fails on one.
  static absl::StatusOr<std::unique_ptr<CudaIpcTransport>> Create(MPI_Comm comm, const CudaIpcOptions& options);
  ~CudaIpcTransport() override;

  absl::string_view name() const override { return "cuda_ipc"; }
  bool CanReach(MemoryKind memory) const override { return memory == MemoryKind::kDevice; }

  absl::StatusOr<Request> Send(int peer, const void* data, size_t bytes, int tag) override;
  absl::StatusOr<Request> Recv(int peer, void* data, size_t bytes, int tag) override;
  absl::Status Wait(Request request) override;
  absl::Status WaitAll() override;
  absl::Status Synchronize() override;
  bool StreamOrdered() const override { return true; }
  absl::StatusOr<uint64_t> MarkPosted() override;
  absl::StatusOr<bool> Reached(uint64_t mark) override;
  void Abandon() override;
  absl::Status Quiesce(absl::Duration timeout) override;

  // One line for logs: "cuda_ipc: 2 ranks, 4 slots x 1 MiB per pair, device 0".
  std::string Describe() const;

 private:
  // A transfer of a launched group, with where its channel's count stands once it is done, to tell a stalled one.
  struct Launched {
    bool send;
    int peer;
    size_t bytes;
    uint32_t done_at;  // the channel's consumed (send) or filled (receive) counter value that completes it
  };
  struct Step {
    int64_t index;
    cudaEvent_t done;
    std::vector<Launched> transfers;
    uint64_t mark = 0;  // MarkPosted's, for its event; 0 for a group's
  };
  // Where a peer's inbox ring for this rank is, and the counters of the two channels with it.
  struct Peer {
    unsigned char* ring_in_peer = nullptr;  // this rank -> peer: slots in the peer's inbox (opened IPC handle)
    unsigned char* ring_here = nullptr;     // peer -> this rank: slots in this rank's inbox
    // The host addresses of the two counters the peer writes and this rank's stream waits on (read to diagnose a
    // stall, written to release the stream when failing), and the device addresses the streams use for all four.
    volatile uint32_t* consumed_out = nullptr;  // this rank -> peer, written by the peer's stream
    volatile uint32_t* filled_in = nullptr;     // peer -> this rank, written by the peer's stream
    void* filled_out_device = nullptr;
    void* consumed_out_device = nullptr;
    void* filled_in_device = nullptr;
    void* consumed_in_device = nullptr;
    void* opened = nullptr;               // the peer's inbox as opened here, to close
    volatile uint32_t* failed = nullptr;  // set by the peer when its transport failed
  };

  CudaIpcTransport(MPI_Comm comm, int rank, int size, const CudaIpcOptions& options, cuda_ipc::StreamMemoryOps ops);
  absl::Status Setup(MPI_Comm comm);
  absl::StatusOr<Request> Post(bool send, int peer, void* data, size_t bytes);
  absl::Status LaunchGroup();
  absl::Status Enqueue(const cuda_ipc::Command& command);
  absl::StatusOr<cudaEvent_t> TakeEvent();
  absl::Status RecordTail(uint64_t mark);
  // The DeadlineExceeded of a step that stalled, from what the counters show.
  absl::Status Stalled(const Step& step);
  // Not OK once a peer's transport has failed: data that came from it may be partial.
  absl::Status PeerFailure() const;
  // Fails the transport with `error`: releases this rank's stream, drains it, and answers every later call with it.
  absl::Status Fail(const absl::Status& error);
  int Name(int rank) const { return rank_names_.empty() ? rank : rank_names_[rank]; }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int device_;
  cudaStream_t stream_;
  cuda_ipc::ChannelShape shape_;
  cuda_ipc::StreamMemoryOps ops_;
  std::vector<int> rank_names_;
  std::unique_ptr<shm::Segment> counters_;
  bool counters_registered_ = false;
  bool ready_ = false;  // Setup completed
  unsigned char* inbox_ = nullptr;
  bool keep_inbox_ = false;  // a peer may still write into it (a message left unreceived, a failed transport)
  volatile uint32_t* failed_ = nullptr;  // this rank's flag
  std::vector<Peer> peers_;
  std::vector<cuda_ipc::ChannelPositions> positions_;
  absl::Status broken_;

  std::vector<cuda_ipc::PostedTransfer> open_;  // posted since the last wait
  int next_request_ = 0;
  int64_t collective_ = 0;
  int64_t step_ = 0;
  std::deque<Step> launched_;
  std::vector<cudaEvent_t> free_events_;
  uint64_t last_mark_ = 0;
  uint64_t reached_mark_ = 0;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CUDA_IPC_CUDA_IPC_TRANSPORT_H_
