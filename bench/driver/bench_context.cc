#include "bench/driver/bench_context.h"

#include "absl/strings/str_cat.h"
#include "bench/data/device_memory.h"

namespace kcoll {
namespace bench {

namespace {

// The case's fields joined by spaces (`words`, for messages) or by slashes (a benchmark's name).
std::string CaseText(const Case& c, const Implementation& impl, bool words) {
  const char* sep = words ? " " : "/";
  std::string s =
      absl::StrCat(CollectiveName(c.collective), sep, impl.name(), sep, NcclTypeName(c.type), sep, NcclOpName(c.op));
  if (c.root >= 0) absl::StrAppend(&s, sep, words ? "root " : "root:", c.root);
  const char* placement = c.in_place ? (words ? "in-place" : "in_place") : (words ? "out-of-place" : "out_of_place");
  absl::StrAppend(&s, sep, c.layout.bytes, words ? " B " : "/", placement);
  return s;
}

}  // namespace

std::string Describe(const Case& c, const Implementation& impl) { return CaseText(c, impl, /*words=*/true); }

std::string CaseName(const Case& c, const Implementation& impl) { return CaseText(c, impl, /*words=*/false); }

// The call's count times its element size: the size auto chooses by.
size_t CallBytes(const Case& c) { return c.layout.count * DataTypeSize(c.type); }

Buffers::~Buffers() {
  DeviceFree(device_send);
  DeviceFree(device_recv);
}

}  // namespace bench
}  // namespace kcoll
