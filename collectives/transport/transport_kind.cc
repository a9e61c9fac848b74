#include "collectives/transport/transport_kind.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace kcoll {

absl::string_view TransportKindName(TransportKind kind) {
  switch (kind) {
    case TransportKind::kMpi:
      return "mpi";
    case TransportKind::kNccl:
      return "nccl";
    case TransportKind::kShm:
      return "shm";
  }
  return "invalid";
}

absl::StatusOr<TransportKind> ParseTransportKind(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  for (TransportKind kind : {TransportKind::kMpi, TransportKind::kShm, TransportKind::kNccl}) {
    if (lower == TransportKindName(kind)) return kind;
  }
  return absl::InvalidArgumentError(absl::StrCat("transport '", text, "' is not one of: mpi, shm, nccl"));
}

}  // namespace kcoll
