#include "bench/driver/bench_context.h"

#include "absl/strings/str_cat.h"
#include "bench/data/device_memory.h"

namespace kcoll {
namespace bench {

namespace {

// How a case is written: in words for messages, or as a benchmark's name.
struct CaseSpelling {
  const char* sep;
  const char* root;        // before the root rank
  const char* bytes_unit;  // after the size in bytes
  const char* in_place;
  const char* out_of_place;
};
constexpr CaseSpelling kInWords = {" ", "root ", " B", "in-place", "out-of-place"};
constexpr CaseSpelling kAsName = {"/", "root:", "", "in_place", "out_of_place"};

std::string CaseText(const Case& c, const Implementation& impl, const CaseSpelling& w) {
  std::string s = absl::StrCat(CollectiveName(c.collective), w.sep, impl.name(), w.sep, NcclTypeName(c.type), w.sep,
                               NcclOpName(c.op));
  if (c.root >= 0) absl::StrAppend(&s, w.sep, w.root, c.root);
  absl::StrAppend(&s, w.sep, c.layout.bytes, w.bytes_unit, w.sep, c.in_place ? w.in_place : w.out_of_place);
  return s;
}

}  // namespace

std::string Describe(const Case& c, const Implementation& impl) { return CaseText(c, impl, kInWords); }

std::string CaseName(const Case& c, const Implementation& impl) { return CaseText(c, impl, kAsName); }

// The call's count times its element size: the size auto chooses by.
size_t CallBytes(const Case& c) { return c.layout.count * DataTypeSize(c.type); }

Buffers::~Buffers() {
  DeviceFree(device_send);
  DeviceFree(device_recv);
}

}  // namespace bench
}  // namespace kcoll
