// KCOLL_INLINE_FUNCTION: KOKKOS_INLINE_FUNCTION when Kokkos is included, plain inline otherwise, so that headers
// shared with host-only code (tests, references) compile without Kokkos.
#ifndef KCOLL_BASE_PORTABILITY_H_
#define KCOLL_BASE_PORTABILITY_H_

#if defined(KOKKOS_INLINE_FUNCTION)
#define KCOLL_INLINE_FUNCTION KOKKOS_INLINE_FUNCTION
#elif defined(__CUDACC__)
#define KCOLL_INLINE_FUNCTION __host__ __device__ inline
#else
#define KCOLL_INLINE_FUNCTION inline
#endif

#endif  // KCOLL_BASE_PORTABILITY_H_
