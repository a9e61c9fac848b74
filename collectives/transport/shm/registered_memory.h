// Registered buffers: memory that every rank of a node maps, so that a collective can read a peer's buffer in place
// (collectives/algorithms/all_reduce/direct.cc and its siblings) instead of moving it through transfers.
//
// Allocate is collective over the node: each rank asks for its own size and every rank maps every rank's part
// (mapped_parts.h): host memory is one segment holding every part, created and mapped by all of them
// (shm_segment.h); device memory is each rank's own allocation on its GPU, opened by the others through CUDA IPC. So
// each rank knows every peer's buffer of that allocation at an address of its own. Allocations are named by the caller
// (Communicator's Allocate call number), the same on every rank; the caller also makes every rank release the same one,
// so that the ranks' sets of allocations stay alike and no rank unmaps memory a peer may still be told to read.
//
// A call that may run zero-copy starts with Exchange: each rank writes, in a cache line only it writes, which
// allocation and offset its send and recv buffers are at (or that they are not registered), then raises its arrival
// counter; once every peer's counter has caught up it reads their descriptors. Descriptors alternate between two
// places from call to call: a rank starts writing call k + 2's only after every rank has arrived in call k + 1, by
// which time nobody reads call k's. Barrier raises the counter and waits for the others' in the same way.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_SHM_REGISTERED_MEMORY_H_
#define KCOLL_COLLECTIVES_TRANSPORT_SHM_REGISTERED_MEMORY_H_

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/transport_kind.h"
#include "collectives/transport/mapped_parts.h"
#include "collectives/transport/peer_memory.h"
#include "collectives/transport/shm/node_lines.h"
#include "collectives/transport/shm/shm_layout.h"
#include "collectives/transport/shm/shm_segment.h"

namespace kcoll {

class RegisteredMemory final : public PeerMemory {
 public:
  // Collective over `comm`, whose ranks must share a host. `rank_names` says how errors name each rank (its rank in
  // the communicator); `spin_polls` as ShmOptions::spin_polls. The allocations are of `memory`, made by `make_parts`
  // (none: host memory in a shared segment of the node, the only maker for MemoryKind::kHost).
  static absl::StatusOr<std::unique_ptr<RegisteredMemory>> Create(MPI_Comm comm, std::vector<int> rank_names,
                                                                  int spin_polls = 0,
                                                                  MemoryKind memory = MemoryKind::kHost,
                                                                  PartsMaker make_parts = nullptr);
  ~RegisteredMemory() override;

  // Collective over the node: allocation `id` (at least 1, the same on every rank), `bytes` (at least 1; may differ
  // between ranks) of zero-filled memory, 64-byte aligned, that the other ranks of the node map as well.
  // Fails on every rank of the node alike, with the reason (FailedPrecondition when /dev/shm cannot hold it;
  // ResourceExhausted when a GPU cannot).
  absl::StatusOr<void*> Allocate(uint32_t id, size_t bytes);
  // The memory every allocation is of.
  MemoryKind memory() const { return memory_; }
  // The allocation whose buffer on this rank starts at `data`, or 0.
  uint32_t AllocationAt(const void* data) const;
  // Unmaps allocation `id` on this rank (the memory goes when every rank of the node has released it).
  void Release(uint32_t id);
  // Whether [data, data + bytes) lies inside one of this rank's allocations.
  bool Contains(const void* data, size_t bytes) const;

  void set_timeout(absl::Duration timeout, std::string source);

  int rank() const override { return lines_->rank(); }
  int size() const override { return lines_->size(); }
  absl::StatusOr<bool> Exchange(const Transport::CallInfo& call, const void* send, size_t send_bytes, const void* recv,
                                size_t recv_bytes, Buffers* peers) override;
  absl::Status Barrier() override;
  void Publish(uint32_t step) override;
  absl::Status WaitFor(int peer, uint32_t step) override;

 private:
  // Where a buffer is: allocation id (0: not registered) and offset inside this rank's part of it.
  struct Location {
    uint32_t allocation = 0;
    uint64_t offset = 0;
  };
  struct Descriptor {
    uint32_t signature;
    uint32_t send_allocation;
    uint32_t recv_allocation;
    uint32_t reserved;
    uint64_t send_offset;
    uint64_t recv_offset;
  };
  // Two cache lines per rank, written by that rank only.
  struct alignas(shm::kCacheLine) RankLines {
    std::atomic<uint64_t> arrived;   // barriers (and exchanges) this rank has reached
    Descriptor calls[2];             // call k's descriptor is calls[k % 2]
    std::atomic<uint64_t> progress;  // Publish: the call's number << 32 | the step this rank has finished
  };
  static_assert(sizeof(RankLines) == 2 * shm::kCacheLine, "two cache lines per rank");
  struct Allocation {
    uint32_t id;
    std::unique_ptr<MappedParts> parts;
    std::vector<size_t> sizes;  // [local rank]: the bytes it asked for
  };

  RegisteredMemory(std::unique_ptr<shm::NodeLines> lines, MemoryKind memory, PartsMaker make_parts)
      : lines_(std::move(lines)), memory_(memory), make_parts_(std::move(make_parts)) {}
  Location Find(const void* data, size_t bytes) const;
  const Allocation* FindAllocation(uint32_t id) const;
  // Raises this rank's arrival counter and waits until every rank's has reached it.
  absl::Status Arrive();
  // Polls until behind(rank) is false for every rank, or the timeout (NodeLines::WaitUntilNoneBehind).
  template <class Behind>
  absl::Status WaitUntilNoneBehind(Behind behind, absl::string_view waiting_for);
  RankLines& lines(int rank) const { return reinterpret_cast<RankLines*>(lines_->data())[rank]; }
  int Name(int rank) const { return lines_->Name(rank); }

  std::unique_ptr<shm::NodeLines> lines_;
  MemoryKind memory_;
  PartsMaker make_parts_;
  std::vector<Allocation> allocations_;
  uint64_t arrived_ = 0;  // this rank's own count, mirrored in its line
  uint64_t calls_ = 0;    // exchanges so far
  Transport::CallInfo call_{"transfer", "no call", 0};
  int step_ = 0;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_SHM_REGISTERED_MEMORY_H_
