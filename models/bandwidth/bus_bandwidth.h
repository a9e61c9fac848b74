// Algorithm bandwidth and bus bandwidth, with nccl-tests' definitions, so that kcoll's numbers compare directly
// with nccl-tests' and with the hardware peak.
//
//   algbw = S / t                    (bytes per second)
//   busbw = algbw * factor(collective, n)
//
// where n is the number of ranks and S is nccl-tests' "size" of the operation, which is NOT always the per-rank
// buffer:
//
//   collective       S (bytes)                                   factor
//   all_reduce       count * elem                                2(n-1)/n
//   reduce_scatter   recvcount * elem * n   (the whole input)    (n-1)/n
//   all_gather       sendcount * elem * n   (the whole output)   (n-1)/n
//   broadcast        count * elem                                1
//   reduce           count * elem                                1
//   alltoall         count * elem * n       (one rank's buffer)  (n-1)/n
//   gather           count * elem * n       (the root's buffer)  (n-1)/n
//   scatter          count * elem * n       (the root's buffer)  (n-1)/n
//   sendrecv         count * elem                                1
//   barrier          0                                           0
//
// `count` is the count argument of the call (per rank for reduce_scatter, all_gather, gather and scatter; per peer
// for alltoall). The factor is the fraction of S that must cross the busiest rank's link for each S of result: with
// it, busbw of a well-implemented collective approaches the per-rank link bandwidth whatever n is.
//
// All bandwidths here are in bytes per second; divide by kBytesPerGB to print nccl-tests' GB/s.
#ifndef KCOLL_MODELS_BANDWIDTH_BUS_BANDWIDTH_H_
#define KCOLL_MODELS_BANDWIDTH_BUS_BANDWIDTH_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "base/names.h"

namespace kcoll {
namespace models {

inline constexpr double kBytesPerGB = 1e9;

// The busbw correction factor of the table above (base/names.h keeps it). InvalidArgument if nranks < 1.
absl::StatusOr<double> BusBwFactor(Collective collective, int64_t nranks);

// S in bytes for a call with `count` elements of `elem_bytes` bytes on `nranks` ranks (table above; the rule is
// base/names.h's NcclTestsBytes, in doubles).
// InvalidArgument if count < 0, elem_bytes < 1 or nranks < 1.
absl::StatusOr<double> CollectiveBytes(Collective collective, int64_t count, int64_t elem_bytes, int64_t nranks);

// bytes / seconds, in bytes per second. InvalidArgument unless bytes >= 0 and seconds > 0 (both finite).
absl::StatusOr<double> AlgBw(double bytes, double seconds);

// numerator / denominator of two measured quantities: InvalidArgument naming the one that is not finite, a negative
// numerator or a denominator <= 0.
absl::StatusOr<double> CheckedRatio(const char* numerator_name, double numerator, const char* denominator_name,
                                    double denominator);

// AlgBw(bytes, seconds) * BusBwFactor(collective, nranks), in bytes per second.
absl::StatusOr<double> BusBw(Collective collective, double bytes, double seconds, int64_t nranks);

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_BANDWIDTH_BUS_BANDWIDTH_H_
