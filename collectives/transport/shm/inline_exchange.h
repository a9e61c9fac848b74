// Small payloads exchanged inline, in cache lines the ranks of one node share: the mechanism of the `inline`
// AllReduce (collectives/algorithms/all_reduce/inline.cc), which reaches the latency of one cache-line exchange.
//
// Each rank owns two blocks of a segment, used by call parity and written by that rank only: a 16-byte header (the
// call's number, its signature, the payload's size) and the payload right after it, whose first 48 bytes share the
// header's cache line, so that an 8-byte payload travels as one line. A call writes the payload, then stores the call
// number (release); a reader waits for that number (acquire) and reads the payload in place. A rank rewrites call
// k + 2's block only after every rank has published call k + 1, and a rank publishes call k + 1 only after it has
// finished reading call k: nobody reads a block while it is rewritten, without a barrier between calls.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_SHM_INLINE_EXCHANGE_H_
#define KCOLL_COLLECTIVES_TRANSPORT_SHM_INLINE_EXCHANGE_H_

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "collectives/transport/shm/node_lines.h"
#include "collectives/transport/shm/shm_layout.h"
#include "collectives/transport/shm/spin_policy.h"
#include "collectives/transport/transport.h"

namespace kcoll {

class InlineExchange {
 public:
  // The largest payload a rank publishes in one call.
  static constexpr size_t kMaxPayloadBytes = 4096;

  // Collective over `comm`, whose ranks must share a host. `rank_names` says how errors name each rank (its rank in
  // the communicator); `spin_polls` as ShmOptions::spin_polls (0: chosen from the cores the ranks have).
  static absl::StatusOr<std::unique_ptr<InlineExchange>> Create(MPI_Comm comm, std::vector<int> rank_names,
                                                                int spin_polls = 0);

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Whether the ranks outnumber the cores they may run on together (shm::CoresAvailable).
  bool ranks_take_turns() const { return lines_->ranks_take_turns(); }
  void set_timeout(absl::Duration timeout, std::string source) { lines_->set_timeout(timeout, std::move(source)); }

  // Names the call the next Exchange belongs to in its errors, and carries its signature to the other ranks.
  void BeginCall(const Transport::CallInfo& call) { call_ = call; }
  // When the call began, on the clock BeginCall named, for a caller that reads it only after publishing. A call begun
  // with start 0 and never given one takes the moment its wait outlasted the quick polls (AwaitRest), which
  // call_start() then returns (0 while none was taken).
  void SetCallStart(uint64_t start) { call_.start = start; }
  uint64_t call_start() const { return call_.start; }

  // Publishes `bytes` (at most kMaxPayloadBytes) of `payload` as this rank's part of the call begun and returns once
  // every rank has published its part of that call. InvalidArgument when a rank published another signature (it
  // called with other arguments); DeadlineExceeded, naming the ranks that did not arrive, when nothing arrived for
  // the timeout (the ranks are then out of step: the caller must not call again).
  absl::Status Exchange(const void* payload, size_t bytes) {
    absl::Status published = Publish(payload, bytes);
    return published.ok() ? AwaitAll() : published;
  }
  // Exchange in two halves, for a nonblocking call: Publish returns once this rank's part is out; AwaitAll then does
  // the rest of Exchange. Between them, AllPublished says (without waiting) whether AwaitAll would return at once. A
  // rank publishes the next call only after AwaitAll of this one returned.
  // (Publish and AllPublished are defined here: they are most of an 8-byte call's own instructions.)
  absl::Status Publish(const void* payload, size_t bytes) {
    if (bytes > kMaxPayloadBytes) return TooLarge(bytes);
    PublishWithinLimit(payload, bytes);
    return absl::OkStatus();
  }
  // Publish for a caller that knows `bytes` is at most kMaxPayloadBytes.
  void PublishWithinLimit(const void* payload, size_t bytes) {
    const uint64_t k = ++calls_;
    Block* mine = BlockOf(rank_, k & 1);
    CopyPayload(mine->payload, payload, bytes);
    mine->signature = call_.signature;
    mine->bytes = static_cast<uint32_t>(bytes);
    published_bytes_ = static_cast<uint32_t>(bytes);
    mine->call.store(k, std::memory_order_release);
  }
  bool AllPublished() const {
    const uint64_t k = calls_;
    for (int r = 0; r < size_; ++r) {
      if (BlockOf(r, k & 1)->call.load(std::memory_order_acquire) != k) return false;
    }
    return true;
  }
  absl::Status AwaitAll() {
    // Inline, the common case: each rank's block there already or within a few polls. The rest (a longer wait, its
    // timeout, a mismatch) is AwaitRest's. This loop is the whole of the wait of an 8-byte call: the general wait's
    // bookkeeping around the same polls measured a fifth of the call.
    // A mismatch is reported only once every rank has published: a rank that returned earlier could publish its next
    // call and the one after it, rewriting this call's block while a slow peer still waits to read it.
    const uint64_t k = calls_;
    int mismatch = -1;
    for (int r = 0; r < size_; ++r) {
      const Block* theirs = BlockOf(r, k & 1);
      for (int polls = 0; theirs->call.load(std::memory_order_acquire) != k; ++polls) {
        if (polls >= quick_polls_) return AwaitRest();
        shm::CpuRelax();
      }
      if (mismatch < 0 && (theirs->signature != call_.signature || theirs->bytes != published_bytes_)) mismatch = r;
    }
    return mismatch < 0 ? absl::OkStatus() : Mismatch(mismatch);
  }

  // Rank `rank`'s payload of the latest Exchange (this rank's own included), valid until the next Exchange.
  const unsigned char* Payload(int rank) const { return BlockOf(rank, calls_ & 1)->payload; }

 private:
  static constexpr size_t kHeaderBytes = 16;
  struct alignas(shm::kCacheLine) Block {
    std::atomic<uint64_t> call;  // the number of the call whose payload the block holds (1 for the first)
    uint32_t signature;
    uint32_t bytes;
    unsigned char payload[kMaxPayloadBytes];
  };
  static_assert(offsetof(Block, payload) == kHeaderBytes, "the payload starts in the header's cache line");

  explicit InlineExchange(std::unique_ptr<shm::NodeLines> lines)
      : lines_(std::move(lines)),
        blocks_(reinterpret_cast<Block*>(lines_->data())),
        rank_(lines_->rank()),
        size_(lines_->size()),
        quick_polls_(lines_->spin_polls() > 1 ? kQuickPolls : 0) {}
  // memcpy, with the sizes of a scalar's reduction copied inline: a call of the library's memcpy for 8 bytes costs
  // a few nanoseconds of an 8-byte call's few tens.
  static void CopyPayload(unsigned char* to, const void* from, size_t bytes) {
    const auto* src = static_cast<const unsigned char*>(from);
    if (bytes >= 8 && bytes <= 16) {  // two 8-byte moves, overlapping below 16
      std::memcpy(to, src, 8);
      std::memcpy(to + bytes - 8, src + bytes - 8, 8);
    } else if (bytes >= 4 && bytes < 8) {
      std::memcpy(to, src, 4);
      std::memcpy(to + bytes - 4, src + bytes - 4, 4);
    } else {
      std::memcpy(to, src, bytes);
    }
  }
  Block* BlockOf(int rank, uint64_t parity) const { return blocks_ + (static_cast<size_t>(rank) * 2 + parity); }
  absl::Status TooLarge(size_t bytes) const;
  absl::Status AwaitRest();
  absl::Status Mismatch(int rank) const;
  // Polls of a peer's block before AwaitAll hands the wait to NodeLines' pacer: none where the ranks take turns on
  // the cores (the pacer yields at once), else a few microseconds' worth.
  static constexpr int kQuickPolls = 64;

  std::unique_ptr<shm::NodeLines> lines_;
  Block* blocks_;  // the segment's, [rank][parity]
  int rank_;
  int size_;
  int quick_polls_;
  Transport::CallInfo call_{"all_reduce", "inline", 0};
  uint64_t calls_ = 0;  // calls published so far
  uint32_t published_bytes_ = 0;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_SHM_INLINE_EXCHANGE_H_
