// What every algorithm receives: the call's arguments (already validated by the Communicator) and the resources it
// runs on. An algorithm is a schedule of transport steps and kernel calls; it owns nothing but scratch memory, which
// it takes from Kernels::Scratch.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ALGORITHM_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ALGORITHM_H_

#include <mpi.h>

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/names.h"
#include "base/topology.h"
#include "base/types.h"
#include "collectives/kernels/kernels.h"
#include "collectives/options.h"
#include "collectives/transport/peer_memory.h"
#include "collectives/transport/transport.h"

namespace kcoll {

class InlineExchange;  // collectives/transport/shm/inline_exchange.h

// NCCL's conventions: `count` is the AllReduce/Broadcast/Reduce element count, the per-rank *receive* count of
// ReduceScatter, the per-rank *send* count of AllGather, and the per-peer count of AllToAll/Gather/Scatter.
struct CollectiveArgs {
  Collective collective = Collective::kAllReduce;
  const void* send = nullptr;
  void* recv = nullptr;
  size_t count = 0;
  DataType type = DataType::kFloat32;
  ReduceOp op = ReduceOp::kSum;
  int root = 0;
  AlgorithmOptions options;
  // The v-collectives (IsVariable): per-rank element counts and displacements, nranks entries each; `count` is then
  // this rank's send count (AllGatherV) or unused (AllToAllV). Null elsewhere.
  const size_t* send_counts = nullptr;
  const size_t* send_displs = nullptr;
  const size_t* recv_counts = nullptr;
  const size_t* recv_displs = nullptr;
  int counts_size = 0;  // entries of each array: the communicator's size
  // numerics=exact on a floating-point sum: the inline lane sums as collectives/kernels/exact_sum.h does.
  bool exact_sum = false;
};

// What the vendor path (all_reduce/vendor.cc) calls MPI's collective with.
struct VendorMpi {
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate of the communicator's ranks, made for these calls
  absl::Duration timeout = absl::InfiniteDuration();
  std::string timeout_source;
};

struct Resources {
  Transport& transport;
  Kernels& kernels;
  // Nodes, the channels' rings and the trees (binomial, double binary): read orders from here rather than
  // deriving them, so every algorithm and the logs agree (base/graph.h explains them).
  const Topology& topology;
  // The zero-copy path (all_reduce/direct.cc and its siblings): the node's registered memory when the communicator has
  // one and its ranks share a node, and this call's buffers of every rank when all of them are registered; else null.
  PeerMemory* peer_memory = nullptr;
  const PeerMemory::Buffers* peer_buffers = nullptr;
  // The inline path (all_reduce/inline.cc): the node's inline exchange when the ranks share one node over shm.
  InlineExchange* inline_exchange = nullptr;
  // The vendor path: MPI's own collective, where this call may make it (host buffers; a nonblocking call needs
  // MPI_THREAD_MULTIPLE); else null, and `vendor_refusal` says why.
  const VendorMpi* vendor = nullptr;
  absl::string_view vendor_refusal = "MPI's collective is not set up for this call";
  // Set by a schedule that returns an error after every transfer of the call completed as every rank planned it
  // (bruck's alltoallv finding a block of another size than recv_counts says): the ranks are still in step, so the
  // communicator stays usable. Any other error after a transfer leaves the ranks out of step and breaks it.
  bool failed_in_step = false;
};

using AlgorithmFn = absl::Status (*)(const CollectiveArgs& args, Resources& resources);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ALGORITHM_H_
