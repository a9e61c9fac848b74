#include "bench/model/latency_probe.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "collectives/transport/shm/shm_segment.h"
#include "collectives/transport/shm/spin_policy.h"

namespace kcoll {
namespace bench {
namespace {

constexpr int kBatch = 100;

// One rank's line for one parity: its value, published by its sequence number.
struct alignas(64) Line {
  std::atomic<uint64_t> seq;
  double value;
};

}  // namespace

std::string LatencyFloor::Describe(int nranks) const {
  return absl::StrFormat(
      "latency floor: %.3f us, the slowest rank's median of %d-exchange batches in which all %d ranks publish 8 bytes "
      "in a shared cache line and read every peer's (measured in this run, %d exchanges%s)",
      seconds * 1e6, kBatch, nranks, exchanges, spun ? "" : "; ranks outnumber cores: waits yield the core");
}

absl::StatusOr<LatencyFloor> MeasureLatencyFloor(MPI_Comm comm, int exchanges) {
  if (exchanges < kBatch) {
    return absl::InvalidArgumentError(absl::StrCat("latency probe: exchanges ", exchanges, " is below ", kBatch));
  }
  int rank = 0, n = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  absl::StatusOr<std::unique_ptr<shm::Segment>> segment = shm::Segment::Create(comm, sizeof(Line) * 2 * n);
  if (!segment.ok()) return segment.status();
  Line* lines = reinterpret_cast<Line*>((*segment)->data());  // [rank][parity]
  const bool spin = shm::ChooseSpinPolls(comm, 0) > 1;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  double sum = 0;
  bool stalled = false;
  std::vector<double> batches;
  const int total = exchanges + 10 * kBatch;  // the first ten batches warm up and are not timed
  MPI_Barrier(comm);
  auto batch_start = std::chrono::steady_clock::now();
  for (int i = 1; i <= total && !stalled; ++i) {
    Line& mine = lines[rank * 2 + (i & 1)];
    mine.value = rank + 1.0;
    mine.seq.store(static_cast<uint64_t>(i), std::memory_order_release);
    for (int p = 0; p < n && !stalled; ++p) {
      const Line& theirs = lines[p * 2 + (i & 1)];
      for (uint32_t polls = 0; theirs.seq.load(std::memory_order_acquire) != static_cast<uint64_t>(i); ++polls) {
        if (spin) {
          shm::CpuRelax();
        } else {
          sched_yield();
        }
        if ((polls & 0xffff) == 0xffff && std::chrono::steady_clock::now() > give_up) stalled = true;
        if (stalled) break;
      }
      sum += theirs.value;
    }
    if (i % kBatch == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (i > 10 * kBatch) batches.push_back(std::chrono::duration<double>(now - batch_start).count() / kBatch);
      batch_start = now;
    }
  }
  int any_stalled = stalled ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any_stalled, 1, MPI_INT, MPI_MAX, comm);
  if (any_stalled) return absl::DeadlineExceededError("latency probe: a peer did not answer within 10 s");
  if (sum != static_cast<double>(total) * n * (n + 1) / 2) {
    return absl::InternalError(absl::StrCat("latency probe: the sums came out as ", sum, ", not ",
                                            static_cast<double>(total) * n * (n + 1) / 2));
  }
  std::sort(batches.begin(), batches.end());
  double median = batches[batches.size() / 2];
  MPI_Allreduce(MPI_IN_PLACE, &median, 1, MPI_DOUBLE, MPI_MAX, comm);
  LatencyFloor out;
  out.seconds = median;
  out.exchanges = static_cast<int>(batches.size()) * kBatch;
  out.spun = spin;
  return out;
}

}  // namespace bench
}  // namespace kcoll
