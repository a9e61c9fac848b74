// The printable and JSON descriptions of a communicator: its topology block (logged at INFO on creation), its
// counters (logged at INFO on finalize) and the line of one call (logged at TRACE). docs/observability.md shows and
// explains every line and field; keep it in step with this file.
#ifndef KCOLL_COLLECTIVES_OBSERVABILITY_DESCRIBE_H_
#define KCOLL_COLLECTIVES_OBSERVABILITY_DESCRIBE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "base/names.h"
#include "base/topology.h"
#include "base/types.h"
#include "collectives/counters.h"
#include "nlohmann/json.hpp"

namespace kcoll {

// What a description needs beyond the topology.
struct CommInfo {
  std::string backend;    // kernels' execution space: "serial", "openmp", "cuda"
  std::string transport;  // "shm", "shm+mpi", "mpi", "nccl"
  std::string execution;  // Communicator::execution(): what each path runs on (empty: no line)
};

// The topology block, one line per entry, each starting with "comm <id> ": the summary, one line per rank, one per
// network interface of each host, one per channel, one per tree.
std::vector<std::string> DescribeTopology(const Topology& topology, const CommInfo& info);
// The block's line for one rank ("comm <id> rank 2 node 1 local_rank 0 host ... pid ... cpus ... numa ... gpu ...").
std::string DescribeRank(const Topology& topology, int rank);

// One line per (collective, algorithm) that ran, then the totals.
std::vector<std::string> DescribeCounters(const Topology& topology, const Counters& counters);
// "send calls 4 bytes 96 intra 48 inter 48 | recv ... | reduce calls 2 bytes 48 | copy ... | divide ..."
std::string DescribePrimitives(const PrimitiveCounts& counts);

// The TRACE line of one call.
struct CallRecord {
  Collective collective = Collective::kAllReduce;
  Algorithm algorithm = Algorithm::kRing;
  size_t count = 0;
  DataType type = DataType::kFloat32;
  ReduceOp op = ReduceOp::kSum;
  int root = 0;
  uint64_t bytes = 0;  // payload (NcclTestsBytes)
  double seconds = 0;
  PrimitiveCounts primitives;  // issued by this call
};
std::string DescribeCall(const Topology& topology, const CallRecord& call, const absl::Status& status);

// {"comm_id", "nranks", "nnodes", "emulated", "ranks_per_node", "nchannels", "ranks": [...], "hosts": [...],
//  "channels": [...], "trees": {...}}; docs/observability.md lists every field.
nlohmann::json TopologyToJson(const Topology& topology);
// {"total": <primitives>, "collectives": [{"collective", "algorithm", "calls", "bytes", "seconds", "primitives"}]}
nlohmann::json CountersToJson(const Counters& counters);
nlohmann::json PrimitivesToJson(const PrimitiveCounts& counts);
nlohmann::json TreeToJson(const Tree& tree);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_OBSERVABILITY_DESCRIBE_H_
