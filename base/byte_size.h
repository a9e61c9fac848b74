// Byte sizes as people write them and as nccl-tests reads them ("8", "1K", "128M", "1.5G"; K/M/G/T are powers of
// 1024), for command lines, environment variables and messages.
#ifndef KCOLL_BASE_BYTE_SIZE_H_
#define KCOLL_BASE_BYTE_SIZE_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kcoll {

// "8" -> 8, "1K" -> 1024, "128M" -> 134217728, "1.5G"; an optional trailing "B" or "iB" is accepted ("64KiB").
// InvalidArgument naming the text for anything else (negative, empty, unknown suffix, not a whole number of bytes).
absl::StatusOr<size_t> ParseByteSize(absl::string_view text);

// "8", "1K", "128M", "1.5G" style, exact when possible ("1536" -> "1.5K").
std::string FormatByteSize(size_t bytes);

}  // namespace kcoll

#endif  // KCOLL_BASE_BYTE_SIZE_H_
