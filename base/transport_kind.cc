#include "base/transport_kind.h"

#include "base/named_values.h"

namespace kcoll {
namespace {

constexpr NamedValue<TransportKind> kTransportNames[] = {
#define KCOLL_TRANSPORT_NAME(enumerator, name, moves, node_memory, factory) {TransportKind::k##enumerator, name},
    KCOLL_TRANSPORTS(KCOLL_TRANSPORT_NAME)
#undef KCOLL_TRANSPORT_NAME
};

constexpr TransportMemory kMemoryMoved[] = {
#define KCOLL_TRANSPORT_MEMORY(enumerator, name, moves, node_memory, factory) TransportMemory::moves,
    KCOLL_TRANSPORTS(KCOLL_TRANSPORT_MEMORY)
#undef KCOLL_TRANSPORT_MEMORY
};

constexpr bool kSharesNodeMemory[] = {
#define KCOLL_TRANSPORT_NODE_MEMORY(enumerator, name, moves, node_memory, factory) node_memory,
    KCOLL_TRANSPORTS(KCOLL_TRANSPORT_NODE_MEMORY)
#undef KCOLL_TRANSPORT_NODE_MEMORY
};

constexpr NamedValue<MemoryKind> kMemoryNames[] = {{MemoryKind::kHost, "host"}, {MemoryKind::kDevice, "device"}};

}  // namespace

absl::string_view TransportKindName(TransportKind kind) { return NameIn(kTransportNames, kind); }

absl::StatusOr<TransportKind> ParseTransportKind(absl::string_view text) {
  return ParseNameIn(kTransportNames, text, "transport");
}

TransportMemory MemoryMovedBy(TransportKind kind) { return kMemoryMoved[static_cast<size_t>(kind)]; }

bool SharesNodeMemory(TransportKind kind) { return kSharesNodeMemory[static_cast<size_t>(kind)]; }

absl::string_view MemoryKindName(MemoryKind memory) { return NameIn(kMemoryNames, memory); }

}  // namespace kcoll
