#include "collectives/communicator.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "collectives/algorithm_choice.h"
#include "collectives/algorithms/registry.h"
#include "collectives/status_macros.h"
#include "collectives/transport/mpi_transport.h"
#include "collectives/validate.h"

namespace kcoll {
namespace {

const char* GetEnv(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? v : nullptr;
}

absl::StatusOr<ExecBackend> ChooseBackend(const CommunicatorOptions& options, TransportKind transport) {
  if (options.backend.has_value()) return *options.backend;
  if (const char* env = GetEnv("KCOLL_EXEC")) {
    auto parsed = ParseExecBackend(env);
    if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat("KCOLL_EXEC: ", parsed.status().message()));
    return *parsed;
  }
  return transport == TransportKind::kNccl ? ExecBackend::kCuda : ExecBackend::kSerial;
}

absl::StatusOr<int> ChooseRanksPerNode(const CommunicatorOptions& options, int nranks) {
  int rpn = options.ranks_per_node;
  std::string source = "ranks_per_node";
  if (rpn == 0) {
    if (const char* env = GetEnv("KCOLL_RANKS_PER_NODE")) {
      source = "KCOLL_RANKS_PER_NODE";
      if (!absl::SimpleAtoi(env, &rpn)) {
        return absl::InvalidArgumentError(absl::StrCat(source, ": '", env, "' is not an integer"));
      }
      if (rpn == 0) return absl::InvalidArgumentError(absl::StrCat(source, ": 0 ranks per node"));
    }
  }
  if (rpn < 0 || (rpn > 0 && nranks % rpn != 0)) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", rpn, " does not divide the number of ranks ", nranks));
  }
  return rpn;
}

// Node labels from MPI: ranks that can share memory get the lowest rank among them as their label.
absl::StatusOr<std::vector<int>> NodeLabelsFromMpi(MPI_Comm comm, int rank, int nranks) {
  MPI_Comm node_comm = MPI_COMM_NULL;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm) != MPI_SUCCESS) {
    return absl::InternalError("MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed");
  }
  int label = rank;
  MPI_Allreduce(MPI_IN_PLACE, &label, 1, MPI_INT, MPI_MIN, node_comm);
  MPI_Comm_free(&node_comm);
  std::vector<int> labels(nranks);
  MPI_Allgather(&label, 1, MPI_INT, labels.data(), 1, MPI_INT, comm);
  return labels;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Communicator>> Communicator::Create(MPI_Comm comm, const CommunicatorOptions& options) {
  KCOLL_ASSIGN_OR_RETURN(TransportKind transport, ChooseTransportKind(options.transport));
  KCOLL_ASSIGN_OR_RETURN(ExecBackend backend, ChooseBackend(options, transport));
  std::unique_ptr<Communicator> c(new Communicator());
  c->backend_ = backend;
  c->transport_kind_ = transport;
  KCOLL_ASSIGN_OR_RETURN(std::unique_ptr<MpiTransport> mpi, MpiTransport::Create(comm));
  const int rank = mpi->rank(), nranks = mpi->size();
  KCOLL_ASSIGN_OR_RETURN(int ranks_per_node, ChooseRanksPerNode(options, nranks));
  if (ranks_per_node > 0) {
    c->topology_ = MakeEmulatedTopology(rank, nranks, ranks_per_node);
  } else {
    KCOLL_ASSIGN_OR_RETURN(std::vector<int> labels, NodeLabelsFromMpi(mpi->comm(), rank, nranks));
    c->topology_ = MakeTopology(rank, labels, /*emulated=*/false);
  }
  KCOLL_ASSIGN_OR_RETURN(Execution execution, MakeExecution(std::move(mpi), transport, backend, options.gpu));
  c->kernels_ = std::move(execution.kernels);
  c->transport_ = std::move(execution.transport);
  c->execution_ = std::move(execution.description);
  return c;
}

Communicator::~Communicator() { Finalize().IgnoreError(); }

int Communicator::rank() const { return topology_.rank; }
int Communicator::size() const { return topology_.nranks; }

absl::Status Communicator::Finalize() {
  kernels_.reset();
  transport_.reset();
  return absl::OkStatus();
}

absl::StatusOr<Algorithm> Communicator::ResolveAlgorithm(Collective collective, size_t bytes,
                                                         Algorithm requested) const {
  if (requested != Algorithm::kAuto) return requested;
  KCOLL_ASSIGN_OR_RETURN(std::optional<Algorithm> from_env, AlgorithmFromEnv(collective));
  if (from_env.has_value()) return *from_env;
  return DefaultAlgorithm(collective, bytes, topology_);
}

namespace {

CollectiveArgs MakeArgs(Collective collective, const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                        int root, const CallOptions& options) {
  CollectiveArgs args;
  args.collective = collective;
  args.send = send;
  args.recv = recv;
  args.count = count;
  args.type = type;
  args.op = op;
  args.root = root;
  args.options = options.tuning;
  return args;
}

}  // namespace

absl::Status Communicator::AllReduce(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                                     const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kAllReduce, send, recv, count, type, op, 0, options), options.algorithm, memory);
}

absl::Status Communicator::ReduceScatter(const void* send, void* recv, size_t recvcount, DataType type, ReduceOp op,
                                         const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kReduceScatter, send, recv, recvcount, type, op, 0, options), options.algorithm,
             memory);
}

absl::Status Communicator::AllGather(const void* send, void* recv, size_t sendcount, DataType type,
                                     const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kAllGather, send, recv, sendcount, type, ReduceOp::kSum, 0, options),
             options.algorithm, memory);
}

absl::Status Communicator::Broadcast(const void* send, void* recv, size_t count, DataType type, int root,
                                     const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kBroadcast, send, recv, count, type, ReduceOp::kSum, root, options),
             options.algorithm, memory);
}

absl::Status Communicator::Reduce(const void* send, void* recv, size_t count, DataType type, ReduceOp op, int root,
                                  const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kReduce, send, recv, count, type, op, root, options), options.algorithm, memory);
}

absl::Status Communicator::AllToAll(const void* send, void* recv, size_t count, DataType type,
                                    const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kAllToAll, send, recv, count, type, ReduceOp::kSum, 0, options), options.algorithm,
             memory);
}

absl::Status Communicator::Gather(const void* send, void* recv, size_t count, DataType type, int root,
                                  const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kGather, send, recv, count, type, ReduceOp::kSum, root, options), options.algorithm,
             memory);
}

absl::Status Communicator::Scatter(const void* send, void* recv, size_t count, DataType type, int root,
                                   const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kScatter, send, recv, count, type, ReduceOp::kSum, root, options), options.algorithm,
             memory);
}

absl::Status Communicator::SendRecv(const void* send, void* recv, size_t count, DataType type,
                                    const CallOptions& options, MemoryKind memory) {
  return Run(MakeArgs(Collective::kSendRecv, send, recv, count, type, ReduceOp::kSum, 0, options), options.algorithm,
             memory);
}

absl::Status Communicator::Barrier(const CallOptions& options) {
  return Run(MakeArgs(Collective::kBarrier, nullptr, nullptr, 0, DataType::kUint8, ReduceOp::kSum, 0, options),
             options.algorithm, MemoryKind::kHost);
}

absl::Status Communicator::Run(CollectiveArgs args, Algorithm requested, MemoryKind memory) {
  if (finalized()) {
    return absl::InvalidArgumentError(
        absl::StrCat(CollectiveName(args.collective), ": communicator used after Finalize()"));
  }
  const bool reachable = transport_->CanReach(memory) && memory == kernels_->memory();
  KCOLL_RETURN_IF_ERROR(ValidateArgs(args, rank(), size(), memory, reachable));
  KCOLL_ASSIGN_OR_RETURN(Algorithm algorithm,
                         ResolveAlgorithm(args.collective, args.count * DataTypeSize(args.type), requested));
  KCOLL_ASSIGN_OR_RETURN(AlgorithmFn fn, FindAlgorithm(args.collective, algorithm));
  Resources resources{*transport_, *kernels_, topology_};
  KCOLL_RETURN_IF_ERROR(fn(args, resources));
  if (args.op == ReduceOp::kAvg) {
    const size_t result_count = RecvCount(args, rank(), size());
    if (result_count > 0) KCOLL_RETURN_IF_ERROR(kernels_->Divide(args.type, args.recv, result_count, size()));
  }
  // The result is in place when the call returns (a stream-ordered transport waits for its stream here).
  return transport_->Synchronize();
}

}  // namespace kcoll
