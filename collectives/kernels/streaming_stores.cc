#include "collectives/kernels/streaming_stores.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/byte_size.h"
#include "base/cache_size.h"
#include "base/env.h"

// SSE2 is part of x86-64: no run-time check. Its header (unlike the AVX-512 ones) also parses under nvcc, which
// compiles every source of a CUDA build.
#if defined(__x86_64__)
#include <emmintrin.h>
#define KCOLL_STREAMING_STORES_X86 1
#endif

namespace kcoll {

absl::StatusOr<size_t> ParseStreamingStoreMinBytes(absl::string_view text, absl::string_view source) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower == "off") return kNoStreamingStores;
  if (lower == "on") return size_t{0};
  absl::StatusOr<size_t> bytes = ParseByteSize(text);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, " '", text,
                                                   "': expected off, on, or the smallest destination in bytes to "
                                                   "write with streaming stores (8M, 65536)"));
  }
  return *bytes;
}

size_t DefaultStreamingStoreMinBytes() {
  for (int level : {3, 2}) {
    const size_t bytes = CacheBytes(level);
    if (bytes > 0) return bytes;
  }
  return size_t{32} << 20;
}

absl::StatusOr<size_t> StreamingStoreMinBytesFromEnv() {
  const char* value = GetEnv("KCOLL_STREAMING_STORES");
  if (value == nullptr || *value == '\0') return DefaultStreamingStoreMinBytes();
  return ParseStreamingStoreMinBytes(value, "KCOLL_STREAMING_STORES");
}

#if defined(KCOLL_STREAMING_STORES_X86)

bool StreamingStoresAvailable() { return true; }

void StreamingCopy(void* dst, const void* src, size_t bytes) {
  auto* out = static_cast<unsigned char*>(dst);
  const auto* in = static_cast<const unsigned char*>(src);
  // Ordinary stores up to the first 16-byte boundary of the destination (movntdq needs it aligned).
  const size_t head = std::min(bytes, (16 - reinterpret_cast<uintptr_t>(out) % 16) % 16);
  std::memcpy(out, in, head);
  out += head;
  in += head;
  bytes -= head;
  // A cache line per iteration: the write-combining buffer fills whole lines.
  for (; bytes >= 64; bytes -= 64, out += 64, in += 64) {
    const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
    const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 16));
    const __m128i v2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 32));
    const __m128i v3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(out), v0);
    _mm_stream_si128(reinterpret_cast<__m128i*>(out + 16), v1);
    _mm_stream_si128(reinterpret_cast<__m128i*>(out + 32), v2);
    _mm_stream_si128(reinterpret_cast<__m128i*>(out + 48), v3);
  }
  for (; bytes >= 16; bytes -= 16, out += 16, in += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(out), _mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
  }
  std::memcpy(out, in, bytes);
}

void StreamingStoreFence() { _mm_sfence(); }

#else

bool StreamingStoresAvailable() { return false; }
void StreamingCopy(void* dst, const void* src, size_t bytes) { std::memcpy(dst, src, bytes); }
void StreamingStoreFence() {}

#endif

}  // namespace kcoll
