#include "collectives/transport/timeout.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/env.h"

namespace kcoll {
absl::StatusOr<absl::Duration> ParseTimeout(absl::string_view text, absl::string_view source) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  absl::Duration timeout;
  double seconds = 0;
  if (absl::SimpleAtod(trimmed, &seconds)) {
    if (!std::isfinite(seconds)) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": '", text, "' is not a finite duration (0 means no limit)"));
    }
    timeout = absl::Seconds(seconds);
  } else if (!absl::ParseDuration(trimmed, &timeout)) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": '", text, "' is not a duration (seconds, or a number with a unit: 90s, 2m, 500ms; 0: no limit)"));
  }
  if (timeout < absl::ZeroDuration() || timeout == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": '", text, "' is not a finite duration >= 0 (0 means no limit)"));
  }
  return timeout == absl::ZeroDuration() ? absl::InfiniteDuration() : timeout;
}

absl::StatusOr<OnTimeout> ParseOnTimeout(absl::string_view text, absl::string_view source) {
  const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  if (lower == "return") return OnTimeout::kReturn;
  if (lower == "abort") return OnTimeout::kAbort;
  return absl::InvalidArgumentError(absl::StrCat(source, ": '", text, "' is not 'return' or 'abort'"));
}

absl::string_view OnTimeoutName(OnTimeout on_timeout) { return on_timeout == OnTimeout::kAbort ? "abort" : "return"; }

absl::StatusOr<TimeoutSettings> ChooseTimeout(std::optional<absl::Duration> timeout,
                                              std::optional<OnTimeout> on_timeout, TransportKind transport) {
  TimeoutSettings out;
  if (timeout.has_value()) {
    if (*timeout < absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          absl::StrCat("timeout: ", absl::FormatDuration(*timeout), " is negative (zero means no limit)"));
    }
    out.timeout = *timeout == absl::ZeroDuration() ? absl::InfiniteDuration() : *timeout;
    out.source = "CommunicatorOptions::timeout";
  } else if (const char* env = GetEnv("KCOLL_TIMEOUT")) {
    auto parsed = ParseTimeout(env, "KCOLL_TIMEOUT");
    if (!parsed.ok()) return parsed.status();
    out.timeout = *parsed;
    out.source = "KCOLL_TIMEOUT";
  } else if (MovesDeviceMemoryOnly(transport)) {
    // A stream that waits for a peer that never comes would wait forever: the GPU transports have a bound.
    out.timeout = kDefaultNcclTimeout;
    out.source = transport == TransportKind::kNccl ? "the NCCL default" : "the GPU transports' default";
    if (const char* env = transport == TransportKind::kNccl ? GetEnv("KCOLL_NCCL_TIMEOUT") : nullptr) {
      auto parsed = ParseTimeout(env, "KCOLL_NCCL_TIMEOUT");
      if (!parsed.ok()) return parsed.status();
      out.timeout = *parsed;
      out.source = "KCOLL_NCCL_TIMEOUT";
    }
  } else {
    out.source = "no limit";
  }
  if (on_timeout.has_value()) {
    out.on_timeout = *on_timeout;
  } else if (const char* env = GetEnv("KCOLL_ON_TIMEOUT")) {
    auto parsed = ParseOnTimeout(env, "KCOLL_ON_TIMEOUT");
    if (!parsed.ok()) return parsed.status();
    out.on_timeout = *parsed;
  }
  return out;
}

}  // namespace kcoll
