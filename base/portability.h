// KCOLL_INLINE_FUNCTION: KOKKOS_INLINE_FUNCTION when Kokkos is included, plain inline otherwise, so that headers
// shared with host-only code (tests, references) compile without Kokkos. BitCast: std::bit_cast for C++17 and
// device code.
#ifndef KCOLL_BASE_PORTABILITY_H_
#define KCOLL_BASE_PORTABILITY_H_

#if defined(KOKKOS_INLINE_FUNCTION)
#define KCOLL_INLINE_FUNCTION KOKKOS_INLINE_FUNCTION
#elif defined(__CUDACC__)
#define KCOLL_INLINE_FUNCTION __host__ __device__ inline
#else
#define KCOLL_INLINE_FUNCTION inline
#endif

namespace kcoll {

// The bits of `from` read as a `To` of the same size.
template <class To, class From>
KCOLL_INLINE_FUNCTION To BitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "BitCast reads the bits of one type as another of the same size");
  union Bits {
    From from;
    To to;
  } bits;
  bits.from = from;
  return bits.to;
}

}  // namespace kcoll

#endif  // KCOLL_BASE_PORTABILITY_H_
