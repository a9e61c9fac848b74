#include "base/rank_info.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kcoll {

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::vector<int> sorted = cpus;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    absl::StrAppend(&out, out.empty() ? "" : ",", sorted[i]);
    if (j > i) absl::StrAppend(&out, "-", sorted[j]);
    i = j + 1;
  }
  return out;
}

absl::StatusOr<std::vector<int>> ParseCpuList(absl::string_view text) {
  std::vector<int> cpus;
  for (absl::string_view item : absl::StrSplit(absl::StripAsciiWhitespace(text), ',', absl::SkipWhitespace())) {
    std::vector<absl::string_view> range = absl::StrSplit(item, absl::MaxSplits('-', 1));
    int lo = 0, hi = 0;
    if (!absl::SimpleAtoi(range[0], &lo) || lo < 0 || !absl::SimpleAtoi(range.size() == 2 ? range[1] : range[0], &hi) ||
        hi < lo) {
      return absl::InvalidArgumentError(absl::StrCat("cpu list '", text, "': '", item, "' is not a cpu or range"));
    }
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

uint64_t StableHash(absl::string_view bytes) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace kcoll
