// GroupStart/GroupEnd: a batch of blocking calls issued as one. The calls are queued as they come; the outermost
// GroupEnd runs them. Small `auto` AllReduces of the same type, op and memory are fused: their buffers are laid end to
// end and reduced by BucketedAllReduce (bucket_fusion.h), one AllReduce per bucket instead of one per call, so a
// batch of scalars (a solver's dot products, a model's small tensors) pays one latency. Every other call runs as it
// would have, in the order issued, a fused set at the place of its first call. Every rank queues the same calls in
// the same order, so every rank fuses the same ones.
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "collectives/bucket_fusion.h"
#include "collectives/communicator.h"
#include "collectives/communicator_state.h"

namespace kcoll {
namespace {

// AllReduces up to this size join a fused set: above it one call's transfer time outweighs the latency saved.
constexpr size_t kGroupFuseMaxBytes = size_t{64} << 10;

using FuseKey = std::tuple<DataType, ReduceOp, MemoryKind>;

bool Fusable(const CollectiveCall& call, Numerics communicator_numerics) {
  // A fused set runs as one AllReduce with the communicator's numerics: a call that asks for other numerics runs alone.
  return call.options.numerics.value_or(communicator_numerics) == communicator_numerics &&
         call.collective == Collective::kAllReduce && call.options.algorithm == Algorithm::kAuto &&
         IsValid(call.type) && IsValid(call.op) && call.count > 0 &&
         call.count <= kGroupFuseMaxBytes / DataTypeSize(call.type) && call.send != nullptr && call.recv != nullptr;
}

}  // namespace

absl::Status Communicator::GroupStart() {
  Settle();
  KCOLL_RETURN_IF_ERROR(CheckUsable("GroupStart"));
  ++state_->group_depth;
  return absl::OkStatus();
}

absl::Status Communicator::Queue(const CollectiveCall& call) {
  state_->grouped.push_back(call);
  return absl::OkStatus();
}

absl::Status Communicator::GroupEnd() {
  if (state_->group_depth == 0) return absl::FailedPreconditionError("GroupEnd: no group is open (call GroupStart)");
  if (--state_->group_depth > 0) return absl::OkStatus();
  std::vector<CollectiveCall> calls = std::move(state_->grouped);
  state_->grouped.clear();
  // The fused sets, each named by its first call's index; a set of one call runs as it is.
  std::map<FuseKey, std::vector<size_t>> sets;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (Fusable(calls[i], state_->numerics)) sets[FuseKey(calls[i].type, calls[i].op, calls[i].memory)].push_back(i);
  }
  std::vector<const std::vector<size_t>*> set_at(calls.size(), nullptr);
  std::vector<bool> fused(calls.size(), false);
  for (const auto& [key, members] : sets) {
    if (members.size() < 2) continue;
    set_at[members.front()] = &members;
    for (size_t i : members) fused[i] = true;
  }
  for (size_t i = 0; i < calls.size(); ++i) {
    const CollectiveCall& call = calls[i];
    absl::Status status;
    std::string what = absl::StrCat("call ", i, " of the group (", CollectiveName(call.collective), ")");
    if (set_at[i] != nullptr) {
      std::vector<FusionTensor> tensors;
      for (size_t j : *set_at[i]) {
        FusionTensor tensor;
        tensor.send = calls[j].send;
        tensor.recv = calls[j].recv;
        tensor.count = calls[j].count;
        tensors.push_back(tensor);
      }
      BucketOptions bucket;
      bucket.memory = call.memory;
      status = BucketedAllReduce(*this, tensors, call.type, call.op, bucket).status();
      what = absl::StrCat("the ", tensors.size(), " fused all_reduce calls of the group from call ", i);
    } else if (fused[i]) {
      continue;  // ran with its set
    } else {
      status = Dispatch(call);
    }
    if (!status.ok()) return absl::Status(status.code(), absl::StrCat("GroupEnd: ", what, ": ", status.message()));
  }
  return absl::OkStatus();
}

}  // namespace kcoll
