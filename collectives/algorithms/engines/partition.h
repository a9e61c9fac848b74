// Splitting `count` elements into `parts` contiguous blocks whose sizes differ by at most one (the first
// count % parts blocks get the extra element).
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_PARTITION_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_PARTITION_H_

#include <cstddef>

namespace kcoll {

struct Block {
  size_t offset;  // in elements
  size_t count;
};

inline Block BlockOf(size_t count, int parts, int index) {
  const size_t p = static_cast<size_t>(parts), i = static_cast<size_t>(index);
  const size_t base = count / p, extra = count % p;
  return Block{i * base + (i < extra ? i : extra), base + (i < extra ? 1 : 0)};
}

// Non-negative modulo, for ring positions.
inline int Mod(int a, int n) { return ((a % n) + n) % n; }

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_PARTITION_H_
