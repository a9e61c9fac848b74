#include "collectives/transport/transport_kind.h"

#include "base/named_values.h"

namespace kcoll {
namespace {

constexpr NamedValue<TransportKind> kTransportNames[] = {
    {TransportKind::kMpi, "mpi"}, {TransportKind::kShm, "shm"}, {TransportKind::kNccl, "nccl"}};

}  // namespace

absl::string_view TransportKindName(TransportKind kind) { return NameIn(kTransportNames, kind); }

absl::StatusOr<TransportKind> ParseTransportKind(absl::string_view text) {
  return ParseNameIn(kTransportNames, text, "transport");
}

}  // namespace kcoll
