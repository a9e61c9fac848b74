#include "collectives/inline_path.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/byte_size.h"
#include "base/env.h"
#include "collectives/argument_comparison.h"
#include "collectives/call_sizes.h"

namespace kcoll {

absl::StatusOr<std::optional<size_t>> InlineLimitSetting() {
  const char* env = GetEnv("KCOLL_INLINE_MAX_BYTES");
  if (env == nullptr || std::string(env) == "measure") return std::optional<size_t>();
  absl::StatusOr<size_t> parsed = ParseByteSize(env);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("KCOLL_INLINE_MAX_BYTES: ", parsed.status().message(), " (a byte size, 0, or 'measure')"));
  }
  if (*parsed > InlineExchange::kMaxPayloadBytes) {
    return absl::InvalidArgumentError(absl::StrCat("KCOLL_INLINE_MAX_BYTES: '", env, "' is over the ",
                                                   InlineExchange::kMaxPayloadBytes,
                                                   " bytes a rank's inline lines hold"));
  }
  return std::optional<size_t>(*parsed);
}

size_t ChooseInlineLimit(const std::vector<InlineTiming>& timings) {
  size_t limit = kInlineFloorBytes;
  for (const InlineTiming& t : timings) {
    if (!(t.inline_seconds <= t.slots_seconds)) break;  // a NaN time stops it too
    limit = std::max(limit, t.bytes);
  }
  return limit;
}

std::string FormatInlineBytes(size_t bytes) {
  return bytes > 0 && bytes % 1024 == 0 ? absl::StrCat(bytes / 1024, " KiB") : absl::StrCat(bytes, " B");
}

std::string DescribeInlineTimings(const std::vector<InlineTiming>& timings) {
  std::vector<std::string> parts;
  for (const InlineTiming& t : timings) {
    parts.push_back(
        absl::StrFormat("%s %.2f/%.2f", FormatInlineBytes(t.bytes), t.inline_seconds * 1e6, t.slots_seconds * 1e6));
  }
  return absl::StrCat("inline / over the slots, us per call: ", absl::StrJoin(parts, ", "));
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

InlineCallMemo MakeInlineCallMemo(const CollectiveArgs& args, int rank, int nranks) {
  InlineCallMemo memo;
  memo.valid = true;
  memo.collective = args.collective;
  memo.count = args.count;
  memo.type = args.type;
  memo.op = args.op;
  memo.exact_sum = args.exact_sum;
  memo.tuning = args.options;
  memo.signature = CallSignature(args, Algorithm::kInline);
  memo.bytes = CallBytes(args, rank, nranks);
  memo.payload_bytes = args.count * DataTypeSize(args.type);
  CountInlineAllReduce(memo.payload_bytes, nranks, memo.primitives);
  memo.fold = HostFoldInOrderFor(args.op, args.type);
  memo.repeatable = args.collective == Collective::kAllReduce && !args.exact_sum && memo.fold != nullptr;
  return memo;
}

CollectiveCounts& InlineCallMemo::EntryIn(Counters& counters) {
  if (entry_index < counters.collectives.size()) {
    CollectiveCounts& kept = counters.collectives[entry_index];
    if (kept.collective == collective && kept.algorithm == Algorithm::kInline) return kept;
  }
  CollectiveCounts& entry = counters.Entry(collective, Algorithm::kInline);
  entry_index = static_cast<size_t>(&entry - counters.collectives.data());
  return entry;
}

}  // namespace kcoll
