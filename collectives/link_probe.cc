#include "collectives/link_probe.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "collectives/transport/mpi/mpi_wait.h"
#include "models/measured_curve.h"

namespace kcoll {
namespace {

// Point-to-point on the communicator before any collective runs on it; apart from the control tags (7301, 7302).
constexpr int kProbeTag = 7303;

// One message to or from `peer`, waited for at most `timeout`.
absl::Status Move(bool send, char* buffer, int64_t bytes, int peer, MPI_Comm comm, absl::Duration timeout,
                  std::vector<int>* scratch) {
  MPI_Request request = MPI_REQUEST_NULL;
  const int count = static_cast<int>(bytes);
  const int rc = send ? MPI_Isend(buffer, count, MPI_CHAR, peer, kProbeTag, comm, &request)
                      : MPI_Irecv(buffer, count, MPI_CHAR, peer, kProbeTag, comm, &request);
  if (rc != MPI_SUCCESS) {
    return absl::InternalError(
        absl::StrCat("link probe: ", send ? "MPI_Isend" : "MPI_Irecv", " failed: ", MpiErrorString(rc)));
  }
  KCOLL_ASSIGN_OR_RETURN(bool done, WaitForRequests(&request, 1, timeout, scratch));
  if (!done) {
    // The buffer stays with MPI (a pending request cannot be taken back); the caller leaks it.
    return absl::DeadlineExceededError(absl::StrCat("link probe: rank ", peer, " did not ", send ? "take" : "send",
                                                    " its message within ", absl::FormatDuration(timeout)));
  }
  return absl::OkStatus();
}

// The median one-way time of `trips` round trips of `bytes` (after one untimed), timed on the rank that starts them.
absl::StatusOr<double> PingPong(bool starts, int peer, int64_t bytes, int trips, char* buffer, MPI_Comm comm,
                                absl::Duration timeout, std::vector<int>* scratch) {
  std::vector<double> one_way;
  for (int trip = 0; trip <= trips; ++trip) {
    const auto start = std::chrono::steady_clock::now();
    KCOLL_RETURN_IF_ERROR(Move(starts, buffer, bytes, peer, comm, timeout, scratch));
    KCOLL_RETURN_IF_ERROR(Move(!starts, buffer, bytes, peer, comm, timeout, scratch));
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    if (trip > 0) one_way.push_back(took.count() / 2);
  }
  std::nth_element(one_way.begin(), one_way.begin() + one_way.size() / 2, one_way.end());
  return one_way[one_way.size() / 2];
}

// The hosts of the two ranks that ping-pong, naming the link a probe measured.
using HostPair = std::pair<std::string, std::string>;

// The times this process's communicators measured, per pair of hosts, and how many probes ran.
std::mutex known_mutex;
std::map<HostPair, std::vector<double>>& Known() {
  static auto* known = new std::map<HostPair, std::vector<double>>();
  return *known;
}
std::atomic<int64_t> probes_run{0};

std::optional<std::vector<double>> KnownTimes(const HostPair& hosts) {
  std::lock_guard<std::mutex> lock(known_mutex);
  auto it = Known().find(hosts);
  if (it == Known().end()) return std::nullopt;
  return it->second;
}

void Remember(const HostPair& hosts, std::vector<double> times) {
  std::lock_guard<std::mutex> lock(known_mutex);
  Known()[hosts] = std::move(times);
}

// Rank 0's `count` doubles at `values` on every rank. On a timeout the array is left to MPI (BroadcastWithin): the
// caller must then release it, not free it.
absl::Status BroadcastFromRankZero(double* values, int count, MPI_Comm comm, absl::Duration timeout,
                                   std::vector<int>* scratch) {
  KCOLL_ASSIGN_OR_RETURN(bool done, BroadcastWithin(values, count, MPI_DOUBLE, 0, comm, timeout, scratch));
  if (!done) {
    return absl::DeadlineExceededError(
        absl::StrCat("link probe: not every rank took part within ", absl::FormatDuration(timeout)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LinkProbeMode> LinkProbeModeFromEnv() {
  const char* env = GetEnv("KCOLL_LINK_PROBE");
  if (env == nullptr) return LinkProbeMode::kRealNodes;
  const std::string value = env;
  if (value == "auto") return LinkProbeMode::kRealNodes;
  if (value == "on") return LinkProbeMode::kAlways;
  if (value == "off") return LinkProbeMode::kOff;
  return absl::InvalidArgumentError(absl::StrCat("KCOLL_LINK_PROBE: '", value, "' is not auto, on or off"));
}

bool ShouldProbeLink(LinkProbeMode mode, const Topology& topology) {
  if (topology.nnodes < 2 || mode == LinkProbeMode::kOff) return false;
  return mode == LinkProbeMode::kAlways || !topology.emulated;
}

absl::StatusOr<models::LinkParams> LinkFromProbe(const std::vector<models::CurvePoint>& points) {
  if (points.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat("link probe: ", points.size(), " point(s), not two or more"));
  }
  models::LinkParams link;
  link.curve.points = points;
  if (absl::Status s = models::ValidateCurve(link.curve, "link probe curve"); !s.ok()) return s;
  const models::CurvePoint& first = points.front();
  const models::CurvePoint& last = points.back();
  link.beta_s_per_byte = std::max(last.seconds - first.seconds, 0.01 * last.seconds) / (last.bytes - first.bytes);
  link.alpha_s = std::max(first.seconds - first.bytes * link.beta_s_per_byte, 0.5 * first.seconds);
  return link;
}

absl::StatusOr<models::LinkParams> ProbeInterNodeLink(MPI_Comm comm, const Topology& topology, absl::Duration timeout,
                                                      bool reuse) {
  if (topology.nnodes < 2 || topology.node_of.empty() || topology.node_of[0] != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("link probe: needs rank 0 on node 0 of at least 2 nodes; the topology has ", topology.nnodes));
  }
  const int other = topology.RanksOnNode(1).front();
  const bool named = static_cast<int>(topology.ranks.size()) == topology.nranks;
  const HostPair hosts = named ? HostPair{topology.ranks[0].host, topology.ranks[other].host} : HostPair{};
  std::vector<int> scratch;
  // Rank 0's answer to every rank: whether it has these hosts' times already (1), then the times (zeroed).
  auto shared = std::make_unique<double[]>(1 + kLinkProbeSizeCount);
  if (topology.rank == 0 && reuse && named) {
    if (std::optional<std::vector<double>> known = KnownTimes(hosts)) {
      shared[0] = 1;
      std::copy(known->begin(), known->end(), shared.get() + 1);
    }
  }
  if (absl::Status sent = BroadcastFromRankZero(shared.get(), 1 + kLinkProbeSizeCount, comm, timeout, &scratch);
      !sent.ok()) {
    shared.release();  // left to MPI
    return sent;
  }
  if (shared[0] == 0) {
    if (topology.rank == 0 || topology.rank == other) {
      const bool starts = topology.rank == 0;
      const int peer = starts ? other : 0;
      const int64_t largest = kLinkProbeSizes[kLinkProbeSizeCount - 1];
      auto buffer = std::make_unique<char[]>(largest);  // zeroed
      for (int i = 0; i < kLinkProbeSizeCount; ++i) {
        absl::StatusOr<double> one_way =
            PingPong(starts, peer, kLinkProbeSizes[i], kLinkProbeTrips, buffer.get(), comm, timeout, &scratch);
        if (!one_way.ok()) {
          buffer.release();  // a request may still write into it
          return one_way.status();
        }
        shared[1 + i] = *one_way;
      }
    }
    if (absl::Status sent = BroadcastFromRankZero(shared.get() + 1, kLinkProbeSizeCount, comm, timeout, &scratch);
        !sent.ok()) {
      shared.release();  // left to MPI
      return sent;
    }
    probes_run.fetch_add(1);
    if (topology.rank == 0 && named) {
      Remember(hosts, std::vector<double>(shared.get() + 1, shared.get() + 1 + kLinkProbeSizeCount));
    }
  }
  std::vector<models::CurvePoint> points;
  for (int i = 0; i < kLinkProbeSizeCount; ++i) {
    points.push_back({static_cast<double>(kLinkProbeSizes[i]), shared[1 + i]});
  }
  return LinkFromProbe(points);
}

int64_t LinkProbesRun() { return probes_run.load(); }

}  // namespace kcoll
