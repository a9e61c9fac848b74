#include "collectives/observability/counting.h"

namespace kcoll {

void CountingTransport::Count(TransferCounts& counts, int peer, size_t bytes) const {
  ++counts.calls;
  counts.bytes += bytes;
  if (topology_.SameNode(topology_.rank, peer)) {
    counts.intra_node_bytes += bytes;
  } else {
    counts.inter_node_bytes += bytes;
  }
}

absl::StatusOr<Transport::Request> CountingTransport::Send(int peer, const void* data, size_t bytes, int tag) {
  absl::StatusOr<Request> r = inner_->Send(peer, data, bytes, tag);
  if (r.ok()) Count(counts_.send, peer, bytes);
  return r;
}

absl::StatusOr<Transport::Request> CountingTransport::Recv(int peer, void* data, size_t bytes, int tag) {
  absl::StatusOr<Request> r = inner_->Recv(peer, data, bytes, tag);
  if (r.ok()) Count(counts_.recv, peer, bytes);
  return r;
}

absl::StatusOr<Transport::Request> CountingTransport::RecvReduce(int peer, void* dst, const void* local, size_t bytes,
                                                                 int tag, const ChunkReducer& reduce) {
  absl::StatusOr<Request> r = inner_->RecvReduce(peer, dst, local, bytes, tag, reduce);
  if (r.ok()) Count(counts_.recv, peer, bytes);
  return r;
}

absl::Status CountingKernels::Reduce(ReduceOp op, DataType type, void* dst, const void* a, const void* b, size_t n) {
  absl::Status s = inner_->Reduce(op, type, dst, a, b, n);
  if (s.ok()) {
    ++counts_.reduce.calls;
    counts_.reduce.bytes += n * DataTypeSize(type);
  }
  return s;
}

absl::Status CountingKernels::FoldInOrder(ReduceOp op, DataType type, void* dst, const void* contributions,
                                          size_t stride, size_t n, int terms) {
  absl::Status s = inner_->FoldInOrder(op, type, dst, contributions, stride, n, terms);
  if (s.ok()) {  // one reduction over every term: the bytes it combined
    ++counts_.reduce.calls;
    counts_.reduce.bytes += n * DataTypeSize(type) * static_cast<size_t>(terms > 1 ? terms - 1 : 0);
  }
  return s;
}

absl::Status CountingKernels::ExactFold(DataType type, void* dst, const void* contributions, size_t stride, size_t n,
                                        int window_terms, int sum_terms) {
  absl::Status s = inner_->ExactFold(type, dst, contributions, stride, n, window_terms, sum_terms);
  if (s.ok()) {
    ++counts_.reduce.calls;
    counts_.reduce.bytes += n * DataTypeSize(type) * static_cast<size_t>(sum_terms > 1 ? sum_terms - 1 : 0);
  }
  return s;
}

absl::Status CountingKernels::ExactSumOfTwo(DataType type, void* dst, const void* a, const void* b, size_t n) {
  absl::Status s = inner_->ExactSumOfTwo(type, dst, a, b, n);
  if (s.ok()) {
    ++counts_.reduce.calls;
    counts_.reduce.bytes += n * DataTypeSize(type);
  }
  return s;
}

absl::Status CountingKernels::Copy(void* dst, const void* src, size_t bytes, size_t destination_bytes) {
  absl::Status s = inner_->Copy(dst, src, bytes, destination_bytes);
  if (s.ok()) {
    ++counts_.copy.calls;
    counts_.copy.bytes += bytes;
  }
  return s;
}

absl::Status CountingKernels::Divide(DataType type, void* data, size_t n, int divisor) {
  absl::Status s = inner_->Divide(type, data, n, divisor);
  if (s.ok()) {
    ++counts_.divide.calls;
    counts_.divide.bytes += n * DataTypeSize(type);
  }
  return s;
}

}  // namespace kcoll
