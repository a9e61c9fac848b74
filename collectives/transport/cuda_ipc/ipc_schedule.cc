#include "collectives/transport/cuda_ipc/ipc_schedule.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace kcoll {
namespace cuda_ipc {
namespace {

// One chunk of a message: which transfer, and its piece.
struct Chunk {
  int transfer;
  unsigned char* data;
  size_t bytes;
};

// Appends the chunks of `t` (transfer `index`) to `out`.
void CutIntoChunks(const PostedTransfer& t, int index, size_t slot_bytes, std::vector<Chunk>* out) {
  const size_t chunks = ChunksOf(t.bytes, slot_bytes);
  for (size_t c = 0; c < chunks; ++c) {
    const size_t offset = c * slot_bytes;
    out->push_back(Chunk{index, t.data == nullptr ? nullptr : t.data + offset, std::min(slot_bytes, t.bytes - offset)});
  }
}

}  // namespace

size_t ChunksOf(size_t bytes, size_t slot_bytes) { return bytes == 0 ? 1 : (bytes + slot_bytes - 1) / slot_bytes; }

std::string CommandName(CommandKind kind) {
  switch (kind) {
    case CommandKind::kWaitConsumed:
      return "wait consumed";
    case CommandKind::kCopyToPeer:
      return "copy to peer";
    case CommandKind::kSignalFilled:
      return "signal filled";
    case CommandKind::kWaitFilled:
      return "wait filled";
    case CommandKind::kCopyFromSlot:
      return "copy from slot";
    case CommandKind::kSignalConsumed:
      return "signal consumed";
  }
  return "unknown";
}

absl::StatusOr<std::vector<Command>> PlanGroup(const std::vector<PostedTransfer>& transfers, const ChannelShape& shape,
                                               std::vector<ChannelPositions>* positions) {
  if (shape.slots < 1 || shape.slot_bytes == 0) {
    return absl::InvalidArgumentError(absl::StrCat("cuda_ipc: a channel of ", shape.slots, " slots of ",
                                                   shape.slot_bytes, " B cannot carry a message"));
  }
  const int n = static_cast<int>(positions->size());
  // Per peer, the group's chunks to it and from it, each channel's messages in posting order.
  std::vector<std::vector<Chunk>> to(n), from(n);
  for (size_t i = 0; i < transfers.size(); ++i) {
    const PostedTransfer& t = transfers[i];
    if (t.peer < 0 || t.peer >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("cuda_ipc: transfer ", i, " names peer ", t.peer, ", not a rank of this node's ", n));
    }
    if (t.data == nullptr && t.bytes > 0) {
      return absl::InvalidArgumentError(absl::StrCat("cuda_ipc: transfer ", i, " (", t.bytes, " B ",
                                                     t.send ? "to" : "from", " rank ", t.peer, ") has a null buffer"));
    }
    CutIntoChunks(t, static_cast<int>(i), shape.slot_bytes, t.send ? &to[t.peer] : &from[t.peer]);
  }
  size_t rounds = 0;
  for (int p = 0; p < n; ++p) rounds = std::max({rounds, to[p].size(), from[p].size()});

  const uint64_t slots = static_cast<uint64_t>(shape.slots);
  std::vector<Command> out;
  for (size_t j = 0; j < rounds; ++j) {
    for (int p = 0; p < n; ++p) {
      if (j >= to[p].size()) continue;
      const Chunk& c = to[p][j];
      ChannelPositions& pos = (*positions)[p];
      const uint64_t k = pos.sent++;
      if (k >= slots) {  // the ring is full until the receiver has taken chunk k - slots out of this slot
        out.push_back(Command{CommandKind::kWaitConsumed, p, CounterValue(k + 1 - slots), 0, nullptr, 0, c.transfer});
      }
      const int slot = static_cast<int>(k % slots);
      if (c.bytes > 0) out.push_back(Command{CommandKind::kCopyToPeer, p, 0, slot, c.data, c.bytes, c.transfer});
      out.push_back(Command{CommandKind::kSignalFilled, p, CounterValue(k + 1), slot, nullptr, 0, c.transfer});
    }
    for (int p = 0; p < n; ++p) {
      if (j >= from[p].size()) continue;
      const Chunk& c = from[p][j];
      ChannelPositions& pos = (*positions)[p];
      const uint64_t k = pos.received++;
      const int slot = static_cast<int>(k % slots);
      out.push_back(Command{CommandKind::kWaitFilled, p, CounterValue(k + 1), slot, nullptr, 0, c.transfer});
      if (c.bytes > 0) out.push_back(Command{CommandKind::kCopyFromSlot, p, 0, slot, c.data, c.bytes, c.transfer});
      out.push_back(Command{CommandKind::kSignalConsumed, p, CounterValue(k + 1), slot, nullptr, 0, c.transfer});
    }
  }
  return out;
}

}  // namespace cuda_ipc
}  // namespace kcoll
