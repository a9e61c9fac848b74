// How pipelined schedules size their pieces: the call's AlgorithmOptions when set, kcoll's defaults otherwise.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_CHUNKING_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_CHUNKING_H_

#include <algorithm>
#include <cstddef>

#include "base/algorithm_list.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// Elements per pipeline stage: `chunk_bytes` (or `default_bytes` when 0) rounded down to whole elements, at least
// one element.
inline size_t ChunkElements(size_t chunk_bytes, size_t default_bytes, size_t elem) {
  const size_t bytes = chunk_bytes > 0 ? chunk_bytes : default_bytes;
  return std::max<size_t>(1, bytes / elem);
}

// Elements per pipeline stage for `type`: options.chunk_bytes (or `default_bytes` when 0), at least one element.
inline size_t ChunkElems(const AlgorithmOptions& options, DataType type, size_t default_bytes = kDefaultChunkBytes) {
  return ChunkElements(options.chunk_bytes, default_bytes, DataTypeSize(type));
}

// Ceiling of a / b for b > 0.
inline size_t DivCeil(size_t a, size_t b) { return (a + b - 1) / b; }

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_CHUNKING_H_
