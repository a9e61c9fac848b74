#include "collectives/inline_path.h"

#include "absl/strings/str_cat.h"
#include "base/byte_size.h"
#include "base/env.h"

namespace kcoll {

absl::StatusOr<size_t> InlineMaxBytes() {
  const char* env = GetEnv("KCOLL_INLINE_MAX_BYTES");
  if (env == nullptr) return kDefaultInlineMaxBytes;
  absl::StatusOr<size_t> parsed = ParseByteSize(env);
  if (!parsed.ok())
    return absl::InvalidArgumentError(absl::StrCat("KCOLL_INLINE_MAX_BYTES: ", parsed.status().message()));
  if (*parsed > InlineExchange::kMaxPayloadBytes) {
    return absl::InvalidArgumentError(absl::StrCat("KCOLL_INLINE_MAX_BYTES: '", env, "' is over the ",
                                                   InlineExchange::kMaxPayloadBytes,
                                                   " bytes a rank's inline lines hold"));
  }
  return *parsed;
}

absl::StatusOr<std::unique_ptr<InlineExchange>> MakeInlineExchange(MPI_Comm comm, const Topology& topology,
                                                                   TransportKind transport, ExecBackend backend,
                                                                   const TimeoutSettings& timeout) {
  // The same on every rank: the transport and backend are agreed, the topology is every rank's view of one layout.
  const bool one_node_shm = SharesNodeMemory(transport) && topology.nnodes == 1 && backend != ExecBackend::kCuda;
  if (!one_node_shm || topology.nranks < 2) return std::unique_ptr<InlineExchange>();
  absl::StatusOr<std::unique_ptr<InlineExchange>> exchange = InlineExchange::Create(comm, {});
  if (!exchange.ok()) return exchange.status();
  (*exchange)->set_timeout(timeout.timeout, timeout.source);
  return exchange;
}

void CountInlineAllReduce(size_t bytes, int nranks, PrimitiveCounts& total) {
  const uint64_t peers = static_cast<uint64_t>(nranks - 1);
  for (TransferCounts* t : {&total.send, &total.recv}) {
    t->calls += peers;
    t->bytes += peers * bytes;
    t->intra_node_bytes += peers * bytes;
  }
  total.reduce.calls += peers;
  total.reduce.bytes += peers * bytes;
}

}  // namespace kcoll
