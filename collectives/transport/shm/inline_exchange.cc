#include "collectives/transport/shm/inline_exchange.h"

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

absl::Status InlineExchange::TooLarge(size_t bytes) const {
  return absl::InvalidArgumentError(absl::StrCat(call_.collective, " (", call_.algorithm, "): a payload of ", bytes,
                                                 " bytes; the inline exchange carries at most ", kMaxPayloadBytes));
}

absl::Status InlineExchange::AwaitRest() {
  if (call_.start == 0 && call_.clock != nullptr) call_.start = call_.clock->Now();  // see SetCallStart
  const uint64_t k = calls_;
  absl::Status waited = lines_->WaitUntilNoneBehind(
      [this, k](int r) { return BlockOf(r, k & 1)->call.load(std::memory_order_acquire) != k; }, call_,
      "in the inline exchange", "waiting for their buffers");
  if (!waited.ok()) return waited;
  for (int r = 0; r < size_; ++r) {
    const Block* theirs = BlockOf(r, k & 1);
    if (theirs->signature != call_.signature || theirs->bytes != published_bytes_) return Mismatch(r);
  }
  return absl::OkStatus();
}

absl::Status InlineExchange::Mismatch(int rank) const {
  return absl::InvalidArgumentError(absl::StrCat(
      call_.collective, " (", call_.algorithm, ") on rank ", lines_->Name(rank_), ": rank ", lines_->Name(rank),
      " called with different arguments (collective, count, type, op or algorithm; KCOLL_CHECK_ARGS=1 names the "
      "field)"));
}

}  // namespace kcoll
