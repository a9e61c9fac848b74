// The exchange the latency floor is made of: each rank of one host publishes a few bytes and a sequence number in a
// cache line of its own, in memory the ranks share, and spins until every rank's line shows the same sequence. No
// library, no queue, no reduction kernel: one cache-line transfer from each rank to each other, all at once, which
// no collective on these ranks can beat.
//
// Each rank has two lines, used on alternate exchanges: a rank writes exchange i + 2's line only after every peer has
// published exchange i + 1, which a peer does only after it finished reading exchange i. So no payload is
// overwritten while a peer may still read it.
#ifndef KCOLL_BENCH_MODEL_CACHE_LINE_EXCHANGE_H_
#define KCOLL_BENCH_MODEL_CACHE_LINE_EXCHANGE_H_

#include <mpi.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "collectives/transport/shm/shm_segment.h"
#include "collectives/transport/shm/spin_policy.h"

namespace kcoll {
namespace bench {

class CacheLineExchange {
 public:
  // What one line carries beside its sequence number.
  static constexpr size_t kPayloadBytes = 56;

  // Collective over `comm`, whose ranks must share a host (the shared segment fails otherwise, on every rank). Waits
  // spin when every rank has a core of its own, else yield the core.
  static absl::StatusOr<std::unique_ptr<CacheLineExchange>> Create(MPI_Comm comm);

  int rank() const { return rank_; }
  int nranks() const { return nranks_; }
  bool spins() const { return spin_; }

  // Publishes `bytes` (<= kPayloadBytes) of `mine`, waits for every rank's next publication and calls
  // each(rank, payload) for ranks 0, 1, ... in turn, its own included. DeadlineExceeded when a rank did not publish
  // within `give_up` (it stopped, or is not calling); InvalidArgument for bytes over kPayloadBytes. Every rank must
  // call it the same number of times.
  template <typename Each>
  absl::Status Exchange(const void* mine, size_t bytes, Each&& each,
                        std::chrono::steady_clock::duration give_up = std::chrono::seconds(10)) {
    if (bytes > kPayloadBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("cache-line exchange: ", bytes, " bytes, over the ", kPayloadBytes, " one line carries"));
    }
    const uint64_t seq = ++exchanges_;
    Line& line = lines_[rank_ * 2 + (seq & 1)];
    std::memcpy(line.payload, mine, bytes);
    line.seq.store(seq, std::memory_order_release);
    for (int p = 0; p < nranks_; ++p) {
      const Line& theirs = lines_[p * 2 + (seq & 1)];
      if (!Published(theirs, seq, give_up)) {
        return absl::DeadlineExceededError(absl::StrCat("cache-line exchange: rank ", p, " did not publish within ",
                                                        std::chrono::duration<double>(give_up).count(), " s"));
      }
      each(p, static_cast<const void*>(theirs.payload));
    }
    return absl::OkStatus();
  }

 private:
  struct alignas(64) Line {
    std::atomic<uint64_t> seq;
    unsigned char payload[kPayloadBytes];
  };
  static_assert(sizeof(Line) == 64, "one line per rank and parity");

  CacheLineExchange(std::unique_ptr<shm::Segment> segment, int rank, int nranks, bool spin)
      : segment_(std::move(segment)),
        lines_(reinterpret_cast<Line*>(segment_->data())),
        rank_(rank),
        nranks_(nranks),
        spin_(spin) {}

  bool Published(const Line& line, uint64_t seq, std::chrono::steady_clock::duration give_up) const {
    std::chrono::steady_clock::time_point deadline{};
    for (uint32_t polls = 0; line.seq.load(std::memory_order_acquire) != seq; ++polls) {
      if (spin_) {
        shm::CpuRelax();
      } else {
        sched_yield();
      }
      if ((polls & 0xffff) == 0xffff) {  // the clock is read rarely: it costs more than a poll
        const auto now = std::chrono::steady_clock::now();
        if (deadline == std::chrono::steady_clock::time_point{}) deadline = now + give_up;
        if (now > deadline) return false;
      }
    }
    return true;
  }

  std::unique_ptr<shm::Segment> segment_;
  Line* lines_;  // [rank][parity]
  int rank_;
  int nranks_;
  bool spin_;
  uint64_t exchanges_ = 0;
};

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_MODEL_CACHE_LINE_EXCHANGE_H_
