#include "bench/data/aligned_buffer.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace kcoll {
namespace bench {

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

absl::Status AlignedBuffer::Reserve(size_t bytes) {
  bytes = std::max<size_t>(bytes, 64);
  if (bytes <= capacity_) return absl::OkStatus();
  std::free(data_);
  data_ = nullptr;
  capacity_ = 0;
  const size_t rounded = (bytes + 63) / 64 * 64;
  data_ = static_cast<char*>(std::aligned_alloc(64, rounded));
  if (data_ == nullptr) return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", rounded, " bytes"));
  capacity_ = rounded;
  return absl::OkStatus();
}

}  // namespace bench
}  // namespace kcoll
