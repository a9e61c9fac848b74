// Names of enum values kept as one table per enum: the name of a value, and the value of a name (ASCII case ignored,
// surrounding white space trimmed) with one error wording for every enum kcoll parses.
#ifndef KCOLL_BASE_NAMED_VALUES_H_
#define KCOLL_BASE_NAMED_VALUES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace kcoll {

// The `field` of every row of `table`, in order: an enumeration's values from its table of facts.
template <typename Value, typename Row, size_t N>
std::vector<Value> ColumnOf(const Row (&table)[N], Value Row::*field) {
  std::vector<Value> column;
  for (const Row& row : table) column.push_back(row.*field);
  return column;
}

template <typename Enum>
struct NamedValue {
  Enum value;
  absl::string_view name;
};

// The name `table` gives `value`; `missing` for a value the table lacks (an out-of-range integer cast to the enum).
template <typename Enum, size_t N>
constexpr absl::string_view NameIn(const NamedValue<Enum> (&table)[N], Enum value,
                                   absl::string_view missing = "invalid") {
  for (const NamedValue<Enum>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return missing;
}

// The value among `values` whose `name_of(value)` equals `text`; otherwise InvalidArgument
// "<what> '<text>' is not one of: <the names, in order>".
template <typename Enum, typename NameOf>
absl::StatusOr<Enum> ParseName(const std::vector<Enum>& values, NameOf name_of, absl::string_view text,
                               absl::string_view what) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  std::vector<std::string> names;
  for (Enum value : values) {
    const absl::string_view name = name_of(value);
    if (absl::EqualsIgnoreCase(trimmed, name)) return value;
    names.emplace_back(name);
  }
  return absl::InvalidArgumentError(absl::StrCat(what, " '", text, "' is not one of: ", absl::StrJoin(names, ", ")));
}

// The values of `table`, in its order.
template <typename Enum, size_t N>
std::vector<Enum> ValuesIn(const NamedValue<Enum> (&table)[N]) {
  std::vector<Enum> values;
  for (const NamedValue<Enum>& entry : table) values.push_back(entry.value);
  return values;
}

// ParseName over the names of `table`.
template <typename Enum, size_t N>
absl::StatusOr<Enum> ParseNameIn(const NamedValue<Enum> (&table)[N], absl::string_view text, absl::string_view what) {
  return ParseName(
      ValuesIn(table), [&](Enum value) { return NameIn(table, value); }, text, what);
}

}  // namespace kcoll

#endif  // KCOLL_BASE_NAMED_VALUES_H_
