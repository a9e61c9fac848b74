// Non-temporal ("streaming") stores for host memory: writes that go around the caches, so a destination that is not
// read again while it could still be cached costs one write of its bytes, instead of a read for ownership and a
// later write-back. They pay only for destinations larger than the last-level cache (below that the next reader
// finds the lines cached, and streaming them out costs up to 4x: docs/measured/streaming_stores.txt), hence the
// threshold: the machine's last-level cache by default. Whole copies need none of this: memcpy (what Kokkos'
// deep_copy calls) already streams copies larger than the caches. On CPUs without them (not x86-64), StreamingCopy
// is a memcpy.
#ifndef KCOLL_COLLECTIVES_KERNELS_STREAMING_STORES_H_
#define KCOLL_COLLECTIVES_KERNELS_STREAMING_STORES_H_

#include <cstddef>
#include <limits>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kcoll {

inline constexpr size_t kNoStreamingStores = std::numeric_limits<size_t>::max();

// The default threshold: this machine's last-level cache (sysconf's level 3, else level 2; 32 MiB when it says
// neither). Host destinations of at least this many bytes are written with streaming stores unless
// $KCOLL_STREAMING_STORES says otherwise.
size_t DefaultStreamingStoreMinBytes();

// The threshold a setting gives: "off" -> kNoStreamingStores, "on" -> 0 (every size), a byte size ("8M", "65536")
// -> that size. InvalidArgument naming `source` and the text otherwise.
absl::StatusOr<size_t> ParseStreamingStoreMinBytes(absl::string_view text, absl::string_view source);
// $KCOLL_STREAMING_STORES parsed as above; unset or empty: DefaultStreamingStoreMinBytes().
absl::StatusOr<size_t> StreamingStoreMinBytesFromEnv();

// Whether this build and CPU have streaming stores (x86-64: SSE2's movntdq).
bool StreamingStoresAvailable();

// memcpy(dst, src, bytes) with the destination written by streaming stores (an unaligned head and tail with
// ordinary ones). The ranges must not overlap. The stores are weakly ordered: call StreamingStoreFence before
// anything that tells another thread or process the data is there.
void StreamingCopy(void* dst, const void* src, size_t bytes);
// Orders this thread's streaming stores before its later stores (sfence).
void StreamingStoreFence();

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_STREAMING_STORES_H_
