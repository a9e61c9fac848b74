// The decorators that fill a communicator's Counters (counters.h): one around its transport, one around its kernels,
// so that every primitive an algorithm issues is counted on its way through.
#ifndef KCOLL_COLLECTIVES_OBSERVABILITY_COUNTING_H_
#define KCOLL_COLLECTIVES_OBSERVABILITY_COUNTING_H_

#include <memory>

#include "base/topology.h"
#include "collectives/counters.h"
#include "collectives/kernels/kernels.h"
#include "collectives/transport/transport.h"

namespace kcoll {

// Counts every transfer posted through it into `counts`, classifying the peer with `topology`, then forwards it.
class CountingTransport final : public Transport {
 public:
  CountingTransport(std::unique_ptr<Transport> inner, const Topology& topology, PrimitiveCounts& counts)
      : inner_(std::move(inner)), topology_(topology), counts_(counts) {}

  Transport& inner() { return *inner_; }

  absl::string_view name() const override { return inner_->name(); }
  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  bool CanReach(MemoryKind memory) const override { return inner_->CanReach(memory); }
  absl::StatusOr<Request> Send(int peer, const void* data, size_t bytes, int tag) override;
  absl::StatusOr<Request> Recv(int peer, void* data, size_t bytes, int tag) override;
  bool FusesReduce(int peer) const override { return inner_->FusesReduce(peer); }
  absl::StatusOr<Request> RecvReduce(int peer, void* dst, const void* local, size_t bytes, int tag,
                                     const ChunkReducer& reduce) override;
  absl::Status Wait(Request request) override { return inner_->Wait(request); }
  absl::Status WaitAll() override { return inner_->WaitAll(); }
  absl::Status Synchronize() override { return inner_->Synchronize(); }
  bool StreamOrdered() const override { return inner_->StreamOrdered(); }
  absl::StatusOr<uint64_t> MarkPosted() override { return inner_->MarkPosted(); }
  absl::StatusOr<bool> Reached(uint64_t mark) override { return inner_->Reached(mark); }
  void BeginCall(const CallInfo& call) override { inner_->BeginCall(call); }
  void AllowSingleCopy(bool allowed) override { inner_->AllowSingleCopy(allowed); }
  void StreamSlotStores(bool streaming) override { inner_->StreamSlotStores(streaming); }
  absl::Status Quiesce(absl::Duration timeout) override { return inner_->Quiesce(timeout); }
  void Abandon() override { inner_->Abandon(); }
  std::vector<int> HeardFrom() const override { return inner_->HeardFrom(); }

 private:
  void Count(TransferCounts& counts, int peer, size_t bytes) const;

  std::unique_ptr<Transport> inner_;
  const Topology& topology_;
  PrimitiveCounts& counts_;
};

// Counts every kernel call made through it into `counts`, then forwards it.
class CountingKernels final : public Kernels {
 public:
  CountingKernels(std::unique_ptr<Kernels> inner, PrimitiveCounts& counts)
      : inner_(std::move(inner)), counts_(counts) {}

  Kernels& inner() { return *inner_; }

  absl::string_view name() const override { return inner_->name(); }
  MemoryKind memory() const override { return inner_->memory(); }
  absl::Status Reduce(ReduceOp op, DataType type, void* dst, const void* a, const void* b, size_t n) override;
  absl::Status FoldInOrder(ReduceOp op, DataType type, void* dst, const void* contributions, size_t stride, size_t n,
                           int terms) override;
  using Kernels::Copy;
  absl::Status Copy(void* dst, const void* src, size_t bytes, size_t destination_bytes) override;
  absl::Status Divide(DataType type, void* data, size_t n, int divisor) override;
  // numerics=exact's folds: counted as FoldInOrder (over every term) and Reduce (two terms) are.
  absl::Status ExactFold(DataType type, void* dst, const void* contributions, size_t stride, size_t n, int window_terms,
                         int sum_terms) override;
  absl::Status ExactSumOfTwo(DataType type, void* dst, const void* a, const void* b, size_t n) override;
  void Fence() override { inner_->Fence(); }
  absl::StatusOr<void*> Scratch(int slot, size_t bytes) override { return inner_->Scratch(slot, bytes); }

 private:
  std::unique_ptr<Kernels> inner_;
  PrimitiveCounts& counts_;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_OBSERVABILITY_COUNTING_H_
