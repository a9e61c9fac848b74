// Inline AllReduce (kInline), for small buffers on one node. Every rank publishes its whole buffer inline in cache
// lines of its own in the node's shared segment, with the call's number and signature (InlineExchange,
// collectives/transport/shm/inline_exchange.h), waits until every rank has published, and folds the n buffers in rank
// order straight from the peers' shared lines and its own send buffer into its receive buffer, on its own thread. One
// cache-line exchange for an 8-byte buffer: no message protocol, no kernel launch, no barrier between calls (the lines
// alternate by call parity). Every rank combines the same operands in the same order, so every rank ends with the same
// bits. A nonblocking call runs the two halves apart: Start publishes when the call is issued, Finish folds once the
// request is waited for. Each rank reads n-1 buffers and reduces n: worth it while S is small (the communicator takes
// it up to its inline limit, measured at creation: collectives/inline_path.h). The scans run the same exchange and fold
// only their prefix (scan/inline.cc).
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/kernels/host_reduce.h"
#include "collectives/transport/shm/inline_exchange.h"

namespace kcoll {

absl::Status InlineStart(const CollectiveArgs& args, Resources& res) {
  InlineExchange* exchange = res.inline_exchange;
  const absl::string_view name = CollectiveName(args.collective);
  if (exchange == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        name, " (inline): needs a communicator whose ranks share one node over the shm transport, on host buffers"));
  }
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes > InlineExchange::kMaxPayloadBytes) {
    return absl::InvalidArgumentError(absl::StrCat(name, " (inline): count ", args.count, " is ", bytes,
                                                   " bytes; inline carries at most ", InlineExchange::kMaxPayloadBytes,
                                                   " bytes per rank"));
  }
  if (bytes == 0) return absl::OkStatus();
  return exchange->Publish(args.send, bytes);
}

absl::Status InlineFinish(const CollectiveArgs& args, Resources& res) {
  InlineExchange* exchange = res.inline_exchange;
  if (args.count == 0) return absl::OkStatus();
  // Every rank waits for every other, whatever it folds: the lines alternate by call parity, so no rank may start the
  // next call while a peer has not published this one.
  KCOLL_RETURN_IF_ERROR(exchange->AwaitAll());
  // The ranks this rank's result reduces, in rank order: all of them, or the scans' prefix.
  const int n = ReducedRanks(args.collective, exchange->rank(), exchange->size());
  if (n == 0) return absl::OkStatus();  // ExScan's rank 0
  // numerics=exact reads every rank's terms, whose largest chooses the window, and sums the prefix.
  const int read = args.exact_sum ? exchange->size() : n;
  constexpr int kOnStack = 64;
  const unsigned char* on_stack[kOnStack];
  std::vector<const unsigned char*> on_heap;
  const unsigned char** inputs = on_stack;
  if (read > kOnStack) {
    on_heap.resize(read);
    inputs = on_heap.data();
  }
  for (int r = 0; r < read; ++r) inputs[r] = exchange->Payload(r);
  if (args.exact_sum) {
    if (!HostExactSum(args.type, args.recv, inputs, read, n, args.count)) {
      return absl::InvalidArgumentError(absl::StrCat(CollectiveName(args.collective), " (inline): numerics=exact ",
                                                     "sums floating-point types only, not type ",
                                                     static_cast<int>(args.type)));
    }
    return absl::OkStatus();
  }
  // This rank's own terms are read from its send buffer (the same bits its lines hold), not from the lines it has
  // just published while the peers read them: that fold measured faster from 512 B up
  // (docs/measured/inline_own_terms_from_send.txt). The fold stores a block after reading it: in place is fine.
  if (exchange->rank() < n) inputs[exchange->rank()] = static_cast<const unsigned char*>(args.send);
  if (!HostReduceInOrder(args.op, args.type, args.recv, inputs, n, args.count)) {
    return absl::InvalidArgumentError(absl::StrCat(CollectiveName(args.collective), " (inline): type ",
                                                   static_cast<int>(args.type), " or op ", static_cast<int>(args.op),
                                                   " is not valid"));
  }
  return absl::OkStatus();
}

absl::Status InlineAllReduce(const CollectiveArgs& args, Resources& res) {
  KCOLL_RETURN_IF_ERROR(InlineStart(args, res));
  return InlineFinish(args, res);
}

}  // namespace kcoll
