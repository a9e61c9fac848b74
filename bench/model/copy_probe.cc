#include "bench/model/copy_probe.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/byte_size.h"
#include "bench/model/bandwidth.h"

namespace kcoll {
namespace bench {

std::string CopyBandwidth::Describe(int nranks) const {
  return absl::StrFormat(
      "memory-bound: %.2f GB/s per rank, the slowest rank's median memcpy of %s while all %d ranks copy at once "
      "(measured in this run, %d repeats; sizes that stay in the caches can exceed it)",
      gbps_per_rank, FormatByteSize(bytes), nranks, repeats);
}

absl::StatusOr<CopyBandwidth> MeasureCopyBandwidth(MPI_Comm comm, size_t bytes, int repeats) {
  if (bytes == 0) return absl::InvalidArgumentError("copy probe: bytes is 0");
  if (repeats < 1) return absl::InvalidArgumentError(absl::StrCat("copy probe: repeats ", repeats, " is below 1"));
  std::vector<unsigned char> from(bytes, 1), to(bytes, 0);  // written once: no page faults in the timed copies
  std::memcpy(to.data(), from.data(), bytes);
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    MPI_Barrier(comm);  // every rank copies at the same time
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(to.data(), from.data(), bytes);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    from[r % bytes] = static_cast<unsigned char>(to[bytes - 1] + 1);  // the copies cannot be elided
  }
  std::sort(seconds.begin(), seconds.end());
  double rate = AlgBwGBps(static_cast<double>(bytes), seconds[seconds.size() / 2]);
  MPI_Allreduce(MPI_IN_PLACE, &rate, 1, MPI_DOUBLE, MPI_MIN, comm);
  CopyBandwidth out;
  out.gbps_per_rank = rate;
  out.bytes = bytes;
  out.repeats = repeats;
  return out;
}

}  // namespace bench
}  // namespace kcoll
