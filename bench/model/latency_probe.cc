#include "bench/model/latency_probe.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/model/cache_line_exchange.h"

namespace kcoll {
namespace bench {
namespace {

constexpr int kBatch = 100;

}  // namespace

std::string LatencyFloor::Describe(int nranks) const {
  return absl::StrFormat(
      "latency floor: %.3f us, the slowest rank's median of %d-exchange batches in which all %d ranks publish 8 bytes "
      "in a shared cache line and read every peer's (measured in this run, %d exchanges%s; --algo floor times the "
      "exchange as a row)",
      seconds * 1e6, kBatch, nranks, exchanges, spun ? "" : "; ranks outnumber cores: waits yield the core");
}

absl::StatusOr<LatencyFloor> MeasureLatencyFloor(MPI_Comm comm, int exchanges) {
  if (exchanges < kBatch) {
    return absl::InvalidArgumentError(absl::StrCat("latency probe: exchanges ", exchanges, " is below ", kBatch));
  }
  absl::StatusOr<std::unique_ptr<CacheLineExchange>> made = CacheLineExchange::Create(comm);
  if (!made.ok()) return made.status();
  CacheLineExchange& exchange = **made;
  const int n = exchange.nranks();
  const double value = exchange.rank() + 1.0;
  double sum = 0;
  auto add = [&sum](int, const void* payload) {
    double theirs;
    std::memcpy(&theirs, payload, sizeof(theirs));
    sum += theirs;
  };
  bool stalled = false;
  std::vector<double> batches;
  const int total = exchanges + 10 * kBatch;  // the first ten batches warm up and are not timed
  MPI_Barrier(comm);
  auto batch_start = std::chrono::steady_clock::now();
  for (int i = 1; i <= total && !stalled; ++i) {
    stalled = !exchange.Exchange(&value, sizeof(value), add).ok();
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
  out.spun = exchange.spins();
  return out;
}

}  // namespace bench
}  // namespace kcoll
