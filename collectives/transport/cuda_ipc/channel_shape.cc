#include "absl/strings/str_cat.h"
#include "base/byte_size.h"
#include "base/env.h"
#include "collectives/transport/cuda_ipc/cuda_ipc_execution.h"

namespace kcoll {
namespace {

constexpr size_t kMaxSlots = 64;
constexpr size_t kMaxSlotBytes = size_t{1} << 30;

absl::StatusOr<size_t> SettingOr(const char* name, size_t fallback, size_t max) {
  const char* env = GetEnv(name);
  if (env == nullptr) return fallback;
  absl::StatusOr<size_t> parsed = ParseByteSize(env);
  if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat(name, ": ", parsed.status().message()));
  if (*parsed == 0 || *parsed > max) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": '", env, "' is not in [1, ", max, "]"));
  }
  return *parsed;
}

}  // namespace

absl::StatusOr<cuda_ipc::ChannelShape> ChannelShapeFromEnv() {
  cuda_ipc::ChannelShape shape;
  absl::StatusOr<size_t> slots = SettingOr("KCOLL_CUDA_IPC_SLOTS", static_cast<size_t>(shape.slots), kMaxSlots);
  if (!slots.ok()) return slots.status();
  absl::StatusOr<size_t> slot_bytes = SettingOr("KCOLL_CUDA_IPC_SLOT_BYTES", shape.slot_bytes, kMaxSlotBytes);
  if (!slot_bytes.ok()) return slot_bytes.status();
  shape.slots = static_cast<int>(*slots);
  shape.slot_bytes = *slot_bytes;
  return shape;
}

absl::StatusOr<TransportKind> CrossNodeTransportFromEnv() {
  const char* env = GetEnv("KCOLL_CUDA_IPC_ACROSS");
  if (env == nullptr) return TransportKind::kMpi;
  absl::StatusOr<TransportKind> kind = ParseTransportKind(env);
  if (kind.ok() && (*kind == TransportKind::kMpi || *kind == TransportKind::kNccl)) return *kind;
  return absl::InvalidArgumentError(
      absl::StrCat("KCOLL_CUDA_IPC_ACROSS: '", env, "' is not a way between nodes (mpi or nccl)"));
}

}  // namespace kcoll
