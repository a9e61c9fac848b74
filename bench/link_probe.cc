#include "bench/link_probe.h"

#include <algorithm>
#include <chrono>

#include "bench/calibrate.h"

namespace kcoll {
namespace bench {

LinkProbe::LinkProbe(MPI_Comm comm, const Topology& topology, const models::Profile& profile) : comm_(comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  LinkClass link_class = LinkClass::kIntra;
  std::vector<std::pair<int, int>> pairs = ExchangePairs(topology, link_class);
  if (pairs.empty()) {
    link_class = LinkClass::kInter;
    pairs = ExchangePairs(topology, link_class);
  }
  for (const auto& [a, b] : pairs) {
    if (rank == a) peer_ = b;
    if (rank == b) peer_ = a;
  }
  const models::LinkParams& link = link_class == LinkClass::kIntra ? profile.intra : profile.inter;
  profile_seconds_ = pairs.empty() ? 0 : link.Seconds(kBytes, kBytes);
  if (peer_ >= 0) {
    a_.assign(kBytes, 1);
    b_.assign(kBytes, 0);
  }
}

double LinkProbe::Ratio() {
  double median = 0;
  if (peer_ >= 0) {
    char* send = a_.data();
    char* recv = b_.data();
    std::vector<double> times;
    for (int i = 0; i <= kReps; ++i) {
      const auto start = std::chrono::steady_clock::now();
      MPI_Sendrecv(send, static_cast<int>(kBytes), MPI_BYTE, peer_, 0, recv, static_cast<int>(kBytes), MPI_BYTE, peer_,
                   0, comm_, MPI_STATUS_IGNORE);
      if (i > 0) times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      std::swap(send, recv);
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    median = times[times.size() / 2];
  }
  double slowest = 0;
  MPI_Allreduce(&median, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return profile_seconds_ > 0 ? slowest / profile_seconds_ : 0;
}

}  // namespace bench
}  // namespace kcoll
