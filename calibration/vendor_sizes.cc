#include "calibration/vendor_sizes.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/seconds_format.h"
#include "models/machine.h"

namespace kcoll {
namespace calibration {
namespace {

bool Usable(double seconds) { return std::isfinite(seconds) && seconds > 0; }

}  // namespace

bool MpiWins(const VendorPoint& p) {
  for (double s : {p.kcoll_out, p.kcoll_in, p.mpi_out, p.mpi_in}) {
    if (!Usable(s)) return false;
  }
  return p.mpi_out <= kVendorMargin * p.kcoll_out && p.mpi_in <= kVendorMargin * p.kcoll_in;
}

std::vector<std::pair<int64_t, int64_t>> ChooseVendorSizes(const std::vector<VendorPoint>& points) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  bool in_run = false;
  for (const VendorPoint& p : points) {
    if (!MpiWins(p)) {
      in_run = false;
    } else if (in_run) {
      ranges.back().second = p.bytes;
    } else {
      ranges.emplace_back(p.bytes, p.bytes);
      in_run = true;
    }
  }
  return ranges;
}

std::vector<int64_t> SizesBetweenWinners(const std::vector<VendorPoint>& points, double finest_factor) {
  std::vector<int64_t> between;
  for (size_t i = 1; i < points.size(); ++i) {
    const VendorPoint &a = points[i - 1], &b = points[i];
    if (MpiWins(a) == MpiWins(b) || a.bytes <= 0 || !(static_cast<double>(b.bytes) > finest_factor * a.bytes)) continue;
    constexpr int64_t kFloat = sizeof(float);
    const int64_t mid =
        static_cast<int64_t>(std::sqrt(static_cast<double>(a.bytes) * static_cast<double>(b.bytes))) / kFloat * kFloat;
    if (mid > a.bytes && mid < b.bytes) between.push_back(mid);
  }
  return between;
}

std::string FormatVendorSweep(const std::vector<VendorPoint>& points,
                              const std::vector<std::pair<int64_t, int64_t>>& chosen) {
  std::string out =
      "\nAllReduce: kcoll's auto against MPI_Allreduce through kcoll's call (the vendor algorithm; each size's fastest "
      "pass, slowest rank; MPI / kcoll time)\n";
  absl::StrAppendFormat(&out, "  %10s %11s %11s %7s %11s %11s %7s\n", "bytes", "kcoll oop", "MPI oop", "ratio",
                        "kcoll ip", "MPI ip", "ratio");
  for (const VendorPoint& p : points) {
    absl::StrAppendFormat(&out, "  %10d %11s %11s %7.2f %11s %11s %7.2f%s\n", p.bytes, FormatSeconds(p.kcoll_out),
                          FormatSeconds(p.mpi_out), p.mpi_out / p.kcoll_out, FormatSeconds(p.kcoll_in),
                          FormatSeconds(p.mpi_in), p.mpi_in / p.kcoll_in, MpiWins(p) ? "  MPI" : "");
  }
  absl::StrAppend(&out, "handed to MPI's own AllReduce (MPI <= ", kVendorMargin,
                  "x kcoll's time in place and out of place): ", models::FormatVendorSizes(chosen), "\n");
  return out;
}

}  // namespace calibration
}  // namespace kcoll
