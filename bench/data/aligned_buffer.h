// Host buffers of the benchmarks, aligned for vector loads.
#ifndef KCOLL_BENCH_DATA_ALIGNED_BUFFER_H_
#define KCOLL_BENCH_DATA_ALIGNED_BUFFER_H_

#include <cstddef>

#include "absl/status/status.h"

namespace kcoll {
namespace bench {

// A grow-only buffer aligned for vector loads; pages are first touched by whoever writes them.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  // At least `bytes` bytes (at least one); contents are not kept when it grows.
  absl::Status Reserve(size_t bytes);
  char* data() { return data_; }

 private:
  char* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DATA_ALIGNED_BUFFER_H_
