// A ring schedule over a Group, cut into slices and run one receive at a time, so that several rings (channels,
// directions) can be interleaved by one thread and the hierarchical algorithms can run a ring on a node or on the
// ranks holding a shard. See sliced_ring.cc for the schedule.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_SLICED_RING_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_SLICED_RING_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/group.h"
#include "collectives/algorithms/engines/receive_reduce.h"

namespace kcoll {

class SlicedRing {
 public:
  // Which halves of the ring AllReduce to run. After kReduceScatter, group position i holds, for every slice,
  // block OwnedBlock(i) of that slice fully reduced in `out`; kAllGather starts from that state.
  enum class Phases { kAllReduce, kReduceScatter, kAllGather };

  struct Spec {
    Phases phases = Phases::kAllReduce;
    const void* in = nullptr;  // this rank's contribution (read by kReduceScatter / kAllReduce; may equal out)
    void* out = nullptr;       // the result
    size_t count = 0;          // elements
    DataType type = DataType::kFloat32;
    ReduceOp op = ReduceOp::kSum;
    int tag = 0;                   // unique among the pipelines running at the same time between the same ranks
    size_t slice_block_elems = 0;  // elements per block of a slice (a slice is n blocks); 0: one slice
    int scratch_slot = 0;          // uses Kernels::Scratch slots scratch_slot and scratch_slot + 1
  };

  SlicedRing(Resources& res, Group group, const Spec& spec);

  // Block of a slice that group position `index` of an `n`-rank ring owns after the ReduceScatter half.
  static int OwnedBlock(int index, int n) { return Mod(index + 1, n); }

  // Allocates scratch and posts the first transfers. A one-rank group copies in to out (unless kAllGather) here.
  absl::Status Start();
  bool done() const { return done_; }
  // Completes the next receive (reducing it if it belongs to the ReduceScatter half) and forwards its block.
  absl::Status Advance();

 private:
  struct Event {
    size_t slice;
    int step;  // < rs_steps_: ReduceScatter step; else AllGather step (step - rs_steps_)
  };

  size_t SliceOffset(size_t slice) const { return slice * slice_elems_; }
  size_t SliceCount(size_t slice) const;
  Block BlockIn(size_t slice, int block) const;  // element range of `block` of `slice`, relative to the buffer
  bool IsReduceScatter(const Event& e) const { return e.step < rs_steps_; }
  int ReceivedBlock(const Event& e) const;
  std::optional<Event> Next(const Event& e) const;
  absl::Status PostSliceStart(size_t slice);  // the slice's first send
  absl::Status PostReceive(const Event& e);
  void RecordReceive(const Event& e, Transport::Request request, void* target);
  absl::Status PostNext(const Event& next);  // the next event's receive, and its slice's first send if it starts one

  Resources& res_;
  Group group_;
  Spec spec_;
  int n_ = 1;
  int me_ = 0;
  int left_ = 0;
  int right_ = 0;
  size_t elem_ = 1;
  bool post_ahead_ =
      true;  // post the next receive before waiting for the current one (not on stream-ordered transports)
  size_t slice_elems_ = 0;
  size_t nslices_ = 0;
  int rs_steps_ = 0;
  int ag_steps_ = 0;
  const char* in_ = nullptr;
  char* out_ = nullptr;
  std::unique_ptr<ReceiveReduce> receive_reduce_;  // on the heap: the transport holds its reducer while receiving
  void* scratch_[2] = {nullptr, nullptr};
  size_t rs_received_ = 0;  // ReduceScatter receives posted so far: picks the scratch buffer, alternately

  Event current_{0, 0};
  Transport::Request current_recv_;
  void* current_scratch_ = nullptr;
  std::optional<Transport::Request> next_recv_;
  void* next_scratch_ = nullptr;
  // Per block of the current slice: the ReduceScatter send reading it, which must finish before the AllGather
  // receives into it.
  std::vector<std::optional<Transport::Request>> block_send_;
  std::vector<std::optional<Transport::Request>> next_block_send_;
  bool done_ = false;
};

// Starts every pipeline, then advances them in turn, one receive each, until all are done; waits for every
// transfer before returning. The pipelines must use distinct tags and scratch slots.
absl::Status RunInterleaved(Resources& res, const std::vector<SlicedRing*>& pipelines);

// An AllReduce of the call split into one contiguous share per ring (BlockOf), share k reduced over rings[k] with tag k
// and scratch slots 2k and 2k + 1, in slices of `slice_block_elems`-element blocks; the rings run interleaved. Shares
// that come out empty (fewer elements than rings) are left out, on every rank alike.
absl::Status AllReduceSharesOnRings(const CollectiveArgs& args, Resources& res, const std::vector<Group>& rings,
                                    size_t slice_block_elems);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_SLICED_RING_H_
