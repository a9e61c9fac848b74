// Communicator's registered buffers: Allocate, Free, and when a call begins with the exchange that lets it run
// zero-copy.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "choice/default_algorithm.h"
#include "collectives/algorithms/registry.h"
#include "collectives/call_sizes.h"
#include "collectives/communicator.h"
#include "collectives/communicator_state.h"
#include "collectives/transport/cuda_ipc/device_parts.h"
#include "collectives/transport/mpi/agreement.h"
#include "collectives/transport/shm/spin_policy.h"

namespace kcoll {
absl::StatusOr<void*> Communicator::Allocate(size_t bytes) {
  Settle();
  KCOLL_RETURN_IF_ERROR(CheckUsable("Allocate"));
  // Every step agrees across the whole communicator, so that Allocate succeeds or fails on every rank alike.
  absl::Status local;
  if (bytes == 0) local = absl::InvalidArgumentError("Allocate: bytes is 0 (ask for at least 1 byte)");
  KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(state_->control_comm, local, "Allocate"));
  if (state_->registered == nullptr) {
    // The ranks of each node (emulated nodes included) share a segment: split by node, first use only.
    MPI_Comm node = MPI_COMM_NULL;
    if (MPI_Comm_split(state_->control_comm, state_->topology.node_of[rank()], rank(), &node) != MPI_SUCCESS) {
      return absl::InternalError("Allocate: MPI_Comm_split by node failed");
    }
    const int spin_polls = shm::ChooseHostSpinPolls(state_->control_comm, 0);
    // The memory the kernels run on: with CUDA kernels, each rank's part on its GPU, opened by its node's peers.
    const MemoryKind memory = registered_memory();
    absl::StatusOr<std::unique_ptr<RegisteredMemory>> created =
        RegisteredMemory::Create(node, state_->topology.RanksOnNode(state_->topology.node_of[rank()]), spin_polls,
                                 memory, memory == MemoryKind::kDevice ? PartsMaker(MakeDeviceParts) : nullptr);
    MPI_Comm_free(&node);
    KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(state_->control_comm, created.status(), "Allocate"));
    state_->registered = *std::move(created);
    state_->registered->set_timeout(state_->timeout.timeout, state_->timeout.source);
  }
  // Named by its call number, the same on every rank: every earlier call succeeded or failed everywhere.
  const uint32_t id = state_->allocate_calls + 1;
  absl::StatusOr<void*> data = state_->registered->Allocate(id, bytes);  // agreed within the node
  absl::Status everywhere = AgreeAcrossRanks(state_->control_comm, data.status(), "Allocate");
  if (!everywhere.ok()) {
    if (data.ok()) state_->registered->Release(id);  // this node succeeded, another did not
    return everywhere;
  }
  state_->allocate_calls = id;
  return data;
}

absl::Status Communicator::Free(void* data) {
  Settle();
  KCOLL_RETURN_IF_ERROR(CheckUsable("Free"));
  // Which Allocate call of this communicator `data` came from (0: none), compared across every rank, so that Free
  // succeeds or fails on every rank alike.
  const uint32_t call = state_->registered == nullptr ? 0 : state_->registered->AllocationAt(data);
  std::vector<uint32_t> calls(static_cast<size_t>(size()));
  MPI_Allgather(&call, 1, MPI_UINT32_T, calls.data(), 1, MPI_UINT32_T, state_->control_comm);
  absl::Status local;
  if (call == 0) {
    local = absl::InvalidArgumentError(absl::StrCat("Free: data ", absl::Hex(reinterpret_cast<uintptr_t>(data)),
                                                    " is not the start of memory this communicator allocated"));
  }
  for (int r = 0; r < size() && local.ok(); ++r) {
    if (calls[r] != 0 && calls[r] != call) {
      local = absl::InvalidArgumentError(absl::StrCat(
          "Free: rank ", rank(), " frees the buffer of Allocate call ", call, " but rank ", r, " that of call ",
          calls[r], " (Free is collective: every rank frees its buffer of the same Allocate call)"));
    }
  }
  KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(state_->control_comm, local, "Free"));
  state_->registered->Release(call);
  return absl::OkStatus();
}

MemoryKind Communicator::registered_memory() const {
  return state_->backend == ExecBackend::kCuda ? MemoryKind::kDevice : MemoryKind::kHost;
}

bool Communicator::IsRegistered(const void* data, size_t bytes) const {
  Settle();
  return state_->registered != nullptr && state_->registered->Contains(data, bytes);
}

bool Communicator::MayRunDirect(const CollectiveArgs& args, Algorithm requested, Algorithm resolved,
                                MemoryKind memory) const {
  const Collective collective = args.collective;
  // Registered memory exists on every rank or on none (Allocate is collective); one node over shared memory is
  // where ranks can read each other's buffers.
  if (state_->registered == nullptr || !CanRunZeroCopy()) return false;
  if (memory != state_->registered->memory()) return false;
  // Asked for by name or by $KCOLL_ALGO (Run has found it registered for the collective).
  if (resolved == Algorithm::kDirect) return true;
  if (requested != Algorithm::kAuto) return false;
  // `auto` goes zero-copy for collectives whose buffer is at least kAutoDirectMinBytes (the same on every rank).
  const size_t elem = DataTypeSize(args.type);
  const size_t buffer = std::max(SendCount(args, rank(), size()), RecvCount(args, rank(), size())) * elem;
  if (buffer < kAutoDirectMinBytes || !FindAlgorithm(collective, Algorithm::kDirect).ok()) return false;
  // $KCOLL_ALGO naming another algorithm for this collective decides instead.
  const absl::StatusOr<Algorithm> named = state_->NamedAlgorithm(collective, Algorithm::kAuto);
  return named.ok() && *named == Algorithm::kAuto;
}

}  // namespace kcoll
