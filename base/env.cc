#include "base/env.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace kcoll {

absl::StatusOr<bool> ParseFlag(absl::string_view text, absl::string_view source) {
  const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  if (lower == "1" || lower == "true" || lower == "yes" || lower == "on") return true;
  if (lower == "0" || lower == "false" || lower == "no" || lower == "off") return false;
  return absl::InvalidArgumentError(absl::StrCat(source, ": '", text, "' is not one of 1/0, true/false, yes/no"));
}

}  // namespace kcoll
