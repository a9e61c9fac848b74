#include "base/byte_size.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace kcoll {

absl::StatusOr<size_t> ParseByteSize(absl::string_view text) {
  const absl::string_view original = text;
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("'", original, "' is not a size in bytes (", why,
                                                   "; use a number with an optional K, M or G suffix: 8, 1K, 128M)"));
  };
  text = absl::StripAsciiWhitespace(text);
  if (text.empty()) return bad("empty");
  // Optional unit spelling after the multiplier: "KiB", "KB", "B".
  if (absl::ConsumeSuffix(&text, "iB") || absl::ConsumeSuffix(&text, "ib")) {
    if (text.empty() || !absl::ascii_isalpha(text.back())) return bad("'iB' needs a K, M or G before it");
  } else if (!text.empty() && (text.back() == 'B' || text.back() == 'b') && text.size() > 1) {
    text.remove_suffix(1);
  }
  double multiplier = 1;
  if (!text.empty() && absl::ascii_isalpha(text.back())) {
    switch (absl::ascii_toupper(text.back())) {
      case 'K':
        multiplier = 1024.0;
        break;
      case 'M':
        multiplier = 1024.0 * 1024;
        break;
      case 'G':
        multiplier = 1024.0 * 1024 * 1024;
        break;
      case 'T':
        multiplier = 1024.0 * 1024 * 1024 * 1024;
        break;
      default:
        return bad(absl::StrCat("unknown suffix '", text.substr(text.size() - 1), "'"));
    }
    text.remove_suffix(1);
  }
  double value = 0;
  if (text.empty() || !absl::SimpleAtod(text, &value) || !std::isfinite(value)) return bad("not a number");
  if (value < 0) return bad("negative");
  const double bytes = value * multiplier;
  if (bytes != std::floor(bytes)) return bad("not a whole number of bytes");
  if (bytes > static_cast<double>(std::numeric_limits<size_t>::max() / 2)) return bad("too large");
  return static_cast<size_t>(bytes);
}

std::string FormatByteSize(size_t bytes) {
  const char* suffixes[] = {"", "K", "M", "G", "T"};
  int unit = 0;
  double value = static_cast<double>(bytes);
  while (unit < 4 && value >= 1024 && std::fmod(value, 1024) == 0) {
    value /= 1024;
    ++unit;
  }
  if (unit < 4 && value >= 1024 && std::fmod(value * 2, 1024) == 0) {  // e.g. 1536 -> 1.5K
    return absl::StrCat(value / 1024, suffixes[unit + 1]);
  }
  return absl::StrCat(static_cast<uint64_t>(value), suffixes[unit]);
}

}  // namespace kcoll
