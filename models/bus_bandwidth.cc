#include "models/bus_bandwidth.h"

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

}  // namespace

absl::StatusOr<double> BusBwFactor(Collective collective, int64_t nranks) {
  if (absl::Status s = CheckRanks(nranks); !s.ok()) return s;
  const double n = static_cast<double>(nranks);
  switch (collective) {
    case Collective::kAllReduce:
      return 2.0 * (n - 1) / n;
    case Collective::kReduceScatter:
    case Collective::kAllGather:
    case Collective::kAllToAll:
    case Collective::kGather:
    case Collective::kScatter:
      return (n - 1) / n;
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv:
      return 1.0;
    case Collective::kBarrier:
      return 0.0;
  }
  return absl::InvalidArgumentError(absl::StrCat("collective=", static_cast<int>(collective), " is not valid"));
}

absl::StatusOr<double> CollectiveBytes(Collective collective, int64_t count, int64_t elem_bytes, int64_t nranks) {
  if (absl::Status s = CheckRanks(nranks); !s.ok()) return s;
  if (count < 0) return absl::InvalidArgumentError(absl::StrCat("count=", count, " must be >= 0"));
  if (elem_bytes < 1) return absl::InvalidArgumentError(absl::StrCat("elem_bytes=", elem_bytes, " must be >= 1"));
  const double per_call = static_cast<double>(count) * static_cast<double>(elem_bytes);
  switch (collective) {
    case Collective::kAllReduce:
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv:
      return per_call;
    case Collective::kReduceScatter:
    case Collective::kAllGather:
    case Collective::kAllToAll:
    case Collective::kGather:
    case Collective::kScatter:
      return per_call * static_cast<double>(nranks);
    case Collective::kBarrier:
      return 0.0;
  }
  return absl::InvalidArgumentError(absl::StrCat("collective=", static_cast<int>(collective), " is not valid"));
}

absl::StatusOr<double> AlgBw(double bytes, double seconds) {
  if (!std::isfinite(bytes) || bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("bytes=", bytes, " must be finite and >= 0"));
  }
  if (!std::isfinite(seconds) || seconds <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("seconds=", seconds, " must be finite and > 0"));
  }
  return bytes / seconds;
}

absl::StatusOr<double> BusBw(Collective collective, double bytes, double seconds, int64_t nranks) {
  absl::StatusOr<double> factor = BusBwFactor(collective, nranks);
  if (!factor.ok()) return factor.status();
  absl::StatusOr<double> algbw = AlgBw(bytes, seconds);
  if (!algbw.ok()) return algbw.status();
  return *algbw * *factor;
}

}  // namespace models
}  // namespace kcoll
