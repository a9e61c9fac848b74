#include "base/transport_kind.h"

#include "base/named_values.h"

namespace kcoll {
namespace {

constexpr NamedValue<TransportKind> kTransportNames[] = {
#define KCOLL_TRANSPORT_NAME(enumerator, name, moves, factory) {TransportKind::k##enumerator, name},
    KCOLL_TRANSPORTS(KCOLL_TRANSPORT_NAME)
#undef KCOLL_TRANSPORT_NAME
};

constexpr TransportMemory kMemoryMoved[] = {
#define KCOLL_TRANSPORT_MEMORY(enumerator, name, moves, factory) TransportMemory::moves,
    KCOLL_TRANSPORTS(KCOLL_TRANSPORT_MEMORY)
#undef KCOLL_TRANSPORT_MEMORY
};

constexpr NamedValue<MemoryKind> kMemoryNames[] = {{MemoryKind::kHost, "host"}, {MemoryKind::kDevice, "device"}};

}  // namespace

absl::string_view TransportKindName(TransportKind kind) { return NameIn(kTransportNames, kind); }

absl::StatusOr<TransportKind> ParseTransportKind(absl::string_view text) {
  return ParseNameIn(kTransportNames, text, "transport");
}

TransportMemory MemoryMovedBy(TransportKind kind) { return kMemoryMoved[static_cast<size_t>(kind)]; }

absl::string_view MemoryKindName(MemoryKind memory) { return NameIn(kMemoryNames, memory); }

}  // namespace kcoll
