// Inputs whose floating-point reductions change their last bits with the order of the additions, and a fingerprint
// of a result: the benchmark's fingerprint column (--fingerprint), where rows that summed in the same order, or that
// promise the same bits (numerics=deterministic, exact), show the same value.
//
// Element i of rank r: a significand in [1, 2) times 2^e, e drawn in [-span, span] (float64 40, float32 12, 16-bit
// types 4), either sign; on every fourth element one rank adds 2^(span + 10) and the next rank subtracts it, so that
// large terms cancel and the small ones decide the last bits. Computed from (rank, i) alone.
#ifndef KCOLL_BENCH_DATA_ROUNDING_DATA_H_
#define KCOLL_BENCH_DATA_ROUNDING_DATA_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bench/data/exact_data.h"

namespace kcoll {
namespace bench {

// Whether the fingerprint applies: a reduction (it has an op) of a floating-point type.
bool HasFingerprint(const CheckSpec& spec);

// Element i of rank `rank` of `nranks`, as a double, for a type whose span is `span` (RoundingSpan).
double RoundingSensitiveValue(int rank, size_t i, int nranks, int span);
// The exponent span of a floating-point type's data: 40 (float64), 12 (float32), 4 (16-bit types).
int RoundingSpan(DataType type);

// Fills this rank's `count` send elements (spec.rank) with the data above; spec.type must be floating-point.
void FillRoundingSensitive(const CheckSpec& spec, void* buffer, size_t count);
// Rank `rank`'s whole send buffer (spec.layout.send_count elements) as FillRoundingSensitive fills it there.
std::vector<char> RoundingSensitiveInput(const CheckSpec& spec, int rank);

// FNV-1a, 64 bits, of `bytes` bytes, continuing from `hash` (start with kFingerprintSeed).
inline constexpr uint64_t kFingerprintSeed = 0xcbf29ce484222325ull;
uint64_t Fingerprint(const void* data, size_t bytes, uint64_t hash = kFingerprintSeed);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DATA_ROUNDING_DATA_H_
