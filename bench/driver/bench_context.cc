#include "bench/driver/bench_context.h"

#include "absl/strings/str_cat.h"
#include "bench/data/device_memory.h"

namespace kcoll {
namespace bench {

std::string Describe(const Case& c, const Implementation& impl) {
  std::string s =
      absl::StrCat(CollectiveName(c.collective), " ", impl.name(), " ", NcclTypeName(c.type), " ", NcclOpName(c.op));
  if (c.root >= 0) absl::StrAppend(&s, " root ", c.root);
  absl::StrAppend(&s, " ", c.layout.bytes, " B ", c.in_place ? "in-place" : "out-of-place");
  return s;
}

// The call's count times its element size: the size auto chooses by.
size_t CallBytes(const Case& c) { return c.layout.count * DataTypeSize(c.type); }

Buffers::~Buffers() {
  DeviceFree(device_send);
  DeviceFree(device_recv);
}

}  // namespace bench
}  // namespace kcoll
