#include "collectives/counters.h"

namespace kcoll {

TransferCounts& TransferCounts::operator+=(const TransferCounts& o) {
  calls += o.calls;
  bytes += o.bytes;
  intra_node_bytes += o.intra_node_bytes;
  inter_node_bytes += o.inter_node_bytes;
  return *this;
}

TransferCounts& TransferCounts::AddTimes(const TransferCounts& o, uint64_t times) {
  calls += o.calls * times;
  bytes += o.bytes * times;
  intra_node_bytes += o.intra_node_bytes * times;
  inter_node_bytes += o.inter_node_bytes * times;
  return *this;
}

TransferCounts& TransferCounts::operator-=(const TransferCounts& o) {
  calls -= o.calls;
  bytes -= o.bytes;
  intra_node_bytes -= o.intra_node_bytes;
  inter_node_bytes -= o.inter_node_bytes;
  return *this;
}

bool TransferCounts::operator==(const TransferCounts& o) const {
  return calls == o.calls && bytes == o.bytes && intra_node_bytes == o.intra_node_bytes &&
         inter_node_bytes == o.inter_node_bytes;
}

KernelCounts& KernelCounts::operator+=(const KernelCounts& o) {
  calls += o.calls;
  bytes += o.bytes;
  return *this;
}

KernelCounts& KernelCounts::AddTimes(const KernelCounts& o, uint64_t times) {
  calls += o.calls * times;
  bytes += o.bytes * times;
  return *this;
}

KernelCounts& KernelCounts::operator-=(const KernelCounts& o) {
  calls -= o.calls;
  bytes -= o.bytes;
  return *this;
}

bool KernelCounts::operator==(const KernelCounts& o) const { return calls == o.calls && bytes == o.bytes; }

PrimitiveCounts& PrimitiveCounts::operator+=(const PrimitiveCounts& o) {
  send += o.send;
  recv += o.recv;
  reduce += o.reduce;
  copy += o.copy;
  divide += o.divide;
  return *this;
}

PrimitiveCounts& PrimitiveCounts::AddTimes(const PrimitiveCounts& o, uint64_t times) {
  send.AddTimes(o.send, times);
  recv.AddTimes(o.recv, times);
  reduce.AddTimes(o.reduce, times);
  copy.AddTimes(o.copy, times);
  divide.AddTimes(o.divide, times);
  return *this;
}

PrimitiveCounts& PrimitiveCounts::operator-=(const PrimitiveCounts& o) {
  send -= o.send;
  recv -= o.recv;
  reduce -= o.reduce;
  copy -= o.copy;
  divide -= o.divide;
  return *this;
}

bool PrimitiveCounts::operator==(const PrimitiveCounts& o) const {
  return send == o.send && recv == o.recv && reduce == o.reduce && copy == o.copy && divide == o.divide;
}

CollectiveCounts& Counters::Entry(Collective collective, Algorithm algorithm) {
  for (CollectiveCounts& c : collectives) {
    if (c.collective == collective && c.algorithm == algorithm) return c;
  }
  collectives.push_back(CollectiveCounts{collective, algorithm});
  return collectives.back();
}

const CollectiveCounts* Counters::Find(Collective collective, Algorithm algorithm) const {
  for (const CollectiveCounts& c : collectives) {
    if (c.collective == collective && c.algorithm == algorithm) return &c;
  }
  return nullptr;
}

TrafficPerCall SummarizeTraffic(const Counters& counters, Collective collective, std::optional<Algorithm> algorithm) {
  TrafficPerCall out;
  PrimitiveCounts sum;
  uint64_t payload = 0;
  for (const CollectiveCounts& c : counters.collectives) {
    if (c.collective != collective || (algorithm.has_value() && c.algorithm != *algorithm)) continue;
    out.calls += c.calls;
    payload += c.bytes;
    out.seconds += c.seconds;
    sum += c.primitives;
  }
  if (out.calls == 0) return out;
  const double n = static_cast<double>(out.calls);
  out.payload_bytes = payload / n;
  out.sent_bytes = sum.send.bytes / n;
  out.intra_node_sent_bytes = sum.send.intra_node_bytes / n;
  out.inter_node_sent_bytes = sum.send.inter_node_bytes / n;
  out.received_bytes = sum.recv.bytes / n;
  out.inter_node_share =
      sum.send.bytes > 0 ? static_cast<double>(sum.send.inter_node_bytes) / static_cast<double>(sum.send.bytes) : 0;
  out.seconds /= n;
  return out;
}

}  // namespace kcoll
