// The AllReduce sizes at which a machine's MPI library beats kcoll, measured: the calibration times `auto` (with the
// profile it has just built) against MPI_Allreduce called through kcoll (the vendor algorithm, so the comparison
// includes what kcoll's call adds to MPI's) at each size of its sweep, in place and out of place, passes interleaved,
// each size keeping its fastest pass of the slowest rank. Where MPI took at most kVendorMargin of kcoll's
// time in both forms, and at every measured size between, the profile hands those sizes to MPI's own collective (the
// vendor algorithm, collectives/algorithms/all_reduce/vendor.cc): `auto` then never runs a path that measured slower
// than MPI there. The margin keeps a size that measured alike on both sides with kcoll's own schedules, whose numerics
// modes, counters and timeouts are kcoll's.
#ifndef KCOLL_CALIBRATION_VENDOR_SIZES_H_
#define KCOLL_CALIBRATION_VENDOR_SIZES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kcoll {
namespace calibration {

inline constexpr double kVendorMargin = 0.95;

// One measured size (bytes per rank): seconds per call of kcoll's `auto` and of MPI_Allreduce through kcoll, out of
// place and in place.
struct VendorPoint {
  int64_t bytes = 0;
  double kcoll_out = 0, kcoll_in = 0, mpi_out = 0, mpi_in = 0;
};

// Whether MPI took at most kVendorMargin of kcoll's time at `point` in both forms (false for a time that is not
// positive and finite).
bool MpiWins(const VendorPoint& point);

// The maximal runs of consecutive points (in increasing size) that MPI wins, each as [its first size, its last size].
std::vector<std::pair<int64_t, int64_t>> ChooseVendorSizes(const std::vector<VendorPoint>& points);

// Where the winner changes between neighbouring points more than `finest_factor` apart in size, the size between
// them (their geometric mean, rounded down to whole floats): what the sweep measures next, so that a range handed to
// MPI ends within `finest_factor` of where MPI stops winning, not a whole step of the sweep short of it. `points`
// in increasing size; the sizes come out in increasing size, each strictly between its two neighbours.
std::vector<int64_t> SizesBetweenWinners(const std::vector<VendorPoint>& points, double finest_factor);

// The calibration's table (size, kcoll and MPI per form, MPI over kcoll) and a closing line naming the sizes handed
// to MPI, or none.
std::string FormatVendorSweep(const std::vector<VendorPoint>& points,
                              const std::vector<std::pair<int64_t, int64_t>>& chosen);

}  // namespace calibration
}  // namespace kcoll

#endif  // KCOLL_CALIBRATION_VENDOR_SIZES_H_
