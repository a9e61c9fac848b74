// The bandwidth arithmetic the benchmarks report, in nccl-tests' units (GB/s = 1e9 bytes per second):
//
//   algbw = S / t        busbw = algbw * BusBwFactor(collective, n)
//
// with nccl-tests' size S and factor per collective (seed: nccl-tests PERFORMANCE.md):
//
//   all_reduce 2(n-1)/n; reduce_scatter, all_gather, alltoall, gather, scatter (n-1)/n; broadcast, reduce, sendrecv 1.
//
// and the ideal busbw of a machine (intra-node link B per rank, inter-node bandwidth I per node, P ranks per node on
// Q nodes): B on one node, min(I (N-1) Q / (N ), B (N-1) / (N-Q)) on several.
//
// This header is the one seam between the benchmarks and the models package: every number the harness prints goes
// through it, and bandwidth.cc computes it with //models/bandwidth:bus_bandwidth, //models/bandwidth:ideal_bandwidth
// and
// //models:calibration (which work in bytes per second; the benchmarks print nccl-tests' GB/s).
#ifndef KCOLL_BENCH_MODEL_BANDWIDTH_H_
#define KCOLL_BENCH_MODEL_BANDWIDTH_H_

#include <string>

#include "absl/status/statusor.h"
#include "base/names.h"

namespace kcoll {
namespace bench {

inline constexpr double kBytesPerGB = 1e9;

// nccl-tests' busbw correction factor for `collective` on `nranks` ranks (0 for barrier).
double BusBwFactor(Collective collective, int nranks);

// S / t in GB/s (0 when t <= 0).
double AlgBwGBps(double bytes, double seconds);

// AlgBwGBps * BusBwFactor.
double BusBwGBps(Collective collective, double bytes, double seconds, int nranks);

// The ideal busbw of one size, from the two bounds on its time: the bandwidth bound `bandwidth_gbps` (the size's
// bus bytes at that rate) and the latency floor `floor_s` (no call finishes sooner); whichever takes longer is the
// ideal time. Either bound may be 0 (unknown); 0 when both are, or for a collective without a busbw (barrier) when
// the bandwidth bound is.
double IdealBusBwAtSize(Collective collective, double bytes, int nranks, double bandwidth_gbps, double floor_s);

// The machine, as given by --intra_bw/--inter_bw (GB/s) or a calibration profile, and the ranks' placement.
struct IdealInputs {
  double intra_gbps = 0;  // B: one rank's intra-node bandwidth
  double inter_gbps = 0;  // I: one node's inter-node bandwidth (needed only when nodes > 1)
  int ranks_per_node = 1;
  int nodes = 1;
};

// The ideal busbw in GB/s. InvalidArgument (naming the missing or bad input) when it cannot be computed: no intra
// bandwidth, several nodes without an inter bandwidth, or one rank per node on several nodes.
absl::StatusOr<double> IdealBusBwGBps(const IdealInputs& inputs);

// Intra- and inter-node bandwidths (GB/s) from a calibration profile (models/profile_json.h: JSON schema version 1,
// {"intra": {"alpha_s", "beta_s_per_byte"}, "inter": {...}, ...}): bandwidth = 1 / beta. Errors name the path and
// the field.
struct ProfileBandwidths {
  double intra_gbps = 0;
  double inter_gbps = 0;
  std::string description;
};
absl::StatusOr<ProfileBandwidths> LoadProfileBandwidths(const std::string& path);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_MODEL_BANDWIDTH_H_
