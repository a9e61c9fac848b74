#include "collectives/transport/shm/inline_exchange.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kcoll {

absl::StatusOr<std::unique_ptr<InlineExchange>> InlineExchange::Create(MPI_Comm comm, std::vector<int> rank_names,
                                                                       int spin_polls) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  absl::StatusOr<std::unique_ptr<shm::NodeLines>> lines = shm::NodeLines::Create(
      comm, sizeof(Block) * 2 * static_cast<size_t>(size), std::move(rank_names), spin_polls, "InlineExchange");
  if (!lines.ok()) return lines.status();
  return std::unique_ptr<InlineExchange>(new InlineExchange(*std::move(lines)));
}

absl::Status InlineExchange::Publish(const void* payload, size_t bytes) {
  const Transport::CallInfo& call = call_;
  if (bytes > kMaxPayloadBytes) {
    return absl::InvalidArgumentError(absl::StrCat(call.collective, " (", call.algorithm, "): a payload of ", bytes,
                                                   " bytes; the inline exchange carries at most ", kMaxPayloadBytes));
  }
  const uint64_t k = ++calls_;
  Block* mine = BlockOf(rank(), k & 1);
  if (bytes > 0) std::memcpy(mine->payload, payload, bytes);
  mine->signature = call.signature;
  mine->bytes = static_cast<uint32_t>(bytes);
  published_bytes_ = static_cast<uint32_t>(bytes);
  mine->call.store(k, std::memory_order_release);
  return absl::OkStatus();
}

bool InlineExchange::AllPublished() const {
  const uint64_t k = calls_;
  for (int r = 0; r < size(); ++r) {
    if (BlockOf(r, k & 1)->call.load(std::memory_order_acquire) != k) return false;
  }
  return true;
}

absl::Status InlineExchange::AwaitAll() {
  const Transport::CallInfo& call = call_;
  const uint64_t k = calls_;
  if (!AllPublished()) {
    absl::Status waited = lines_->WaitUntilNoneBehind(
        [this, k](int r) { return BlockOf(r, k & 1)->call.load(std::memory_order_acquire) != k; }, call,
        "in the inline exchange", "waiting for their buffers");
    if (!waited.ok()) return waited;
  }
  for (int r = 0; r < size(); ++r) {
    const Block* theirs = BlockOf(r, k & 1);
    if (theirs->signature != call.signature || theirs->bytes != published_bytes_) {
      return absl::InvalidArgumentError(absl::StrCat(
          call.collective, " (", call.algorithm, ") on rank ", lines_->Name(rank()), ": rank ", lines_->Name(r),
          " called with different arguments (collective, count, type, op or algorithm; KCOLL_CHECK_ARGS=1 names the "
          "field)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace kcoll
