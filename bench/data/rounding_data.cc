#include "bench/data/rounding_data.h"

#include <cmath>
#include <cstring>

#include "base/half.h"

namespace kcoll {
namespace bench {
namespace {

uint64_t Mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

double RoundingSensitiveValue(int rank, size_t i, int nranks, int span) {
  const uint64_t bits = Mix((uint64_t{static_cast<uint32_t>(rank)} << 40) ^ i ^ 0xf1a9);
  const double significand = 1.0 + static_cast<double>(bits >> 11) / 9007199254740992.0;
  const int exponent = static_cast<int>((bits >> 3) % static_cast<uint64_t>(2 * span + 1)) - span;
  double x = std::ldexp((bits & 1) ? -significand : significand, exponent);
  if (i % 4 == 0 && nranks > 1) {
    const int owner = static_cast<int>((i / 4) % static_cast<size_t>(nranks));
    if (rank == owner) x += std::ldexp(1.0, span + 10);
    if (rank == (owner + 1) % nranks) x -= std::ldexp(1.0, span + 10);
  }
  return x;
}

int RoundingSpan(DataType type) { return type == DataType::kFloat64 ? 40 : type == DataType::kFloat32 ? 12 : 4; }

bool HasFingerprint(const CheckSpec& spec) {
  const bool floating = spec.type == DataType::kFloat64 || spec.type == DataType::kFloat32 ||
                        spec.type == DataType::kFloat16 || spec.type == DataType::kBfloat16;
  return floating && spec.op.has_value();
}

void FillRoundingSensitive(const CheckSpec& spec, void* buffer, size_t count) {
  const int span = RoundingSpan(spec.type);
  char* out = static_cast<char*>(buffer);
  for (size_t i = 0; i < count; ++i) {
    const double x = RoundingSensitiveValue(spec.rank, i, spec.nranks, span);
    if (spec.type == DataType::kFloat64) {
      std::memcpy(out + i * 8, &x, 8);
    } else if (spec.type == DataType::kFloat32) {
      const float f = static_cast<float>(x);
      std::memcpy(out + i * 4, &f, 4);
    } else if (spec.type == DataType::kFloat16) {
      const Float16 h = ToFloat16(static_cast<float>(x));
      std::memcpy(out + i * 2, &h, 2);
    } else if (spec.type == DataType::kBfloat16) {
      const Bfloat16 h = ToBfloat16(static_cast<float>(x));
      std::memcpy(out + i * 2, &h, 2);
    }
  }
}

std::vector<char> RoundingSensitiveInput(const CheckSpec& spec, int rank) {
  CheckSpec of = spec;
  of.rank = rank;
  std::vector<char> bytes(spec.layout.send_count * DataTypeSize(spec.type));
  FillRoundingSensitive(of, bytes.data(), spec.layout.send_count);
  return bytes;
}

uint64_t Fingerprint(const void* data, size_t bytes, uint64_t hash) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 0x100000001b3ull;
  return hash;
}

}  // namespace bench
}  // namespace kcoll
