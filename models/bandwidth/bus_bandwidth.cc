#include "models/bandwidth/bus_bandwidth.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kcoll {
namespace models {

namespace {

absl::Status CheckRanks(int64_t nranks) {
  if (nranks < 1) return absl::InvalidArgumentError(absl::StrCat("nranks=", nranks, " must be >= 1"));
  return absl::OkStatus();
}

absl::Status InvalidCollective(Collective collective) {
  return absl::InvalidArgumentError(absl::StrCat("collective=", static_cast<int>(collective), " is not valid"));
}

}  // namespace

absl::StatusOr<double> BusBwFactor(Collective collective, int64_t nranks) {
  if (absl::Status s = CheckRanks(nranks); !s.ok()) return s;
  if (!IsValid(collective)) return InvalidCollective(collective);
  return BusBwFactorValue(collective, nranks);
}

absl::StatusOr<double> CollectiveBytes(Collective collective, int64_t count, int64_t elem_bytes, int64_t nranks) {
  if (absl::Status s = CheckRanks(nranks); !s.ok()) return s;
  if (count < 0) return absl::InvalidArgumentError(absl::StrCat("count=", count, " must be >= 0"));
  if (elem_bytes < 1) return absl::InvalidArgumentError(absl::StrCat("elem_bytes=", elem_bytes, " must be >= 1"));
  if (!IsValid(collective)) return InvalidCollective(collective);
  const CollectiveFacts& facts = FactsOf(collective);
  if (facts.busbw_scaling == BusBwScaling::kZero) return 0.0;
  // In doubles: S of a large sweep may exceed what NcclTestsBytes' integers hold.
  const double per_call = static_cast<double>(count) * static_cast<double>(elem_bytes);
  return facts.size_counts_every_rank ? per_call * static_cast<double>(nranks) : per_call;
}

absl::StatusOr<double> CheckedRatio(const char* numerator_name, double numerator, const char* denominator_name,
                                    double denominator) {
  if (!std::isfinite(numerator) || numerator < 0) {
    return absl::InvalidArgumentError(absl::StrCat(numerator_name, "=", numerator, " must be finite and >= 0"));
  }
  if (!std::isfinite(denominator) || denominator <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(denominator_name, "=", denominator, " must be finite and > 0"));
  }
  return numerator / denominator;
}

absl::StatusOr<double> AlgBw(double bytes, double seconds) { return CheckedRatio("bytes", bytes, "seconds", seconds); }

absl::StatusOr<double> BusBw(Collective collective, double bytes, double seconds, int64_t nranks) {
  absl::StatusOr<double> factor = BusBwFactor(collective, nranks);
  if (!factor.ok()) return factor.status();
  absl::StatusOr<double> algbw = AlgBw(bytes, seconds);
  if (!algbw.ok()) return algbw.status();
  return *algbw * *factor;
}

}  // namespace models
}  // namespace kcoll
