// The cost model and the library move the same bytes: for every priced algorithm of every collective, on one node and
// on emulated nodes of two ranks, the bytes all ranks send in one call (the traffic counters, summed over the ranks)
// equal what the model says the schedule it prices sends (CostModel::SentBytes), and so do the bytes sent between
// nodes wherever the model prices a schedule transfer by transfer (CostModel::InterNodeSentBytes). A schedule changed
// on one side only fails here.
#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "choice/auto_choice.h"
#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "gtest/gtest.h"
#include "models/cost_model.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

struct Sent {
  uint64_t all = 0;    // every byte sent
  uint64_t inter = 0;  // those sent to a rank on another node
};

// Every rank's sent bytes for one call of (collective, algorithm) with `count` float32 elements, summed over ranks.
Sent SentByAllRanks(Communicator& comm, Collective c, Algorithm algorithm, size_t count, absl::Status* status) {
  const int n = comm.size();
  // Large enough for every collective's send and receive side (count * n elements at most).
  std::vector<float> send(count * n + 1, 1.0f), recv(count * n + 1, 0.0f);
  CallOptions call;
  call.algorithm = algorithm;
  comm.ResetCounters();
  *status = comm.Call(c, send.data(), recv.data(), count, DataType::kFloat32, ReduceOp::kSum, 0, call);
  uint64_t mine[2] = {comm.counters().total.send.bytes, comm.counters().total.send.inter_node_bytes}, all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return Sent{all[0], all[1]};
}

void ExpectSameTraffic(int ranks_per_node) {
  CommunicatorOptions options;
  options.backend = ExecBackend::kSerial;
  options.transport = TransportKind::kMpi;
  options.ranks_per_node = ranks_per_node;
  absl::StatusOr<std::unique_ptr<Communicator>> comm = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
  const int n = WorldSize();
  const models::Topology topology = ModelTopology((*comm)->topology());
  // Divisible by every block and chunk split the schedules make of it.
  const size_t count = size_t{64} * n * n;
  for (Collective c : AllCollectives()) {
    for (Algorithm algorithm : TransferAlgorithmsFor(c)) {
      if (!models::Applies(c, algorithm)) continue;  // not priced (auto_choice_test names the exceptions)
      const std::string what = absl::StrCat(CollectiveName(c), " (", AlgorithmName(algorithm), ") on ", n, " ranks, ",
                                            ranks_per_node, " per node");
      absl::Status status;
      const Sent sent = SentByAllRanks(**comm, c, algorithm, count, &status);
      ASSERT_TRUE(AllRanks(status.ok())) << what << ": " << status;
      absl::StatusOr<models::CostModel> model =
          models::CostModel::Create(c, algorithm, topology, (*comm)->auto_choice().profile());
      ASSERT_TRUE(model.ok()) << what << ": " << model.status();
      const double bytes = static_cast<double>(NcclTestsBytes(c, count, DataTypeSize(DataType::kFloat32), n));
      const double priced = model->SentBytes(bytes);
      EXPECT_NEAR(static_cast<double>(sent.all), priced, 1e-9 * priced + 0.5)
          << what << ": the library sent " << sent.all << " B, the model prices " << priced << " B (S = " << bytes
          << ")";
      // Where the model knows each transfer, also which of them cross nodes: a schedule that sends its large steps
      // between nodes where the model has them inside would be priced for a network it does not load.
      if (const std::optional<double> inter = model->InterNodeSentBytes(bytes); inter.has_value()) {
        EXPECT_NEAR(static_cast<double>(sent.inter), *inter, 1e-9 * *inter + 0.5)
            << what << ": the library sent " << sent.inter << " B to other nodes, the model prices " << *inter << " B";
      }
    }
  }
}

TEST(ModelTrafficParityTest, OneNode) { ExpectSameTraffic(WorldSize()); }

// AllReduce's `linear`, which the model does not price, moves a reduce-scatter's and an all-gather's bytes: what the
// model prices the ring's AllReduce at.
TEST(ModelTrafficParityTest, TheLinearAllReduceSendsWhatTheRingSends) {
  CommunicatorOptions options;
  options.backend = ExecBackend::kSerial;
  for (TransportKind transport : {TransportKind::kMpi, TransportKind::kShm}) {
    options.transport = transport;
    absl::StatusOr<std::unique_ptr<Communicator>> comm = Communicator::Create(MPI_COMM_WORLD, options);
    ASSERT_TRUE(AllRanks(comm.ok())) << comm.status();
    const int n = WorldSize();
    const size_t count = size_t{64} * 1024 * n + 3;  // pieces of 64 KiB and blocks that differ
    absl::Status status;
    const Sent sent = SentByAllRanks(**comm, Collective::kAllReduce, Algorithm::kLinear, count, &status);
    ASSERT_TRUE(AllRanks(status.ok())) << status;
    absl::StatusOr<models::CostModel> ring = models::CostModel::Create(
        Collective::kAllReduce, Algorithm::kRing, ModelTopology((*comm)->topology()), (*comm)->auto_choice().profile());
    ASSERT_TRUE(ring.ok()) << ring.status();
    const double priced = ring->SentBytes(static_cast<double>(count * sizeof(float)));
    EXPECT_NEAR(static_cast<double>(sent.all), priced, 1e-9 * priced + 0.5)
        << TransportKindName(transport) << ": linear sent " << sent.all << " B, a ring " << priced << " B";
  }
}

TEST(ModelTrafficParityTest, NodesOfTwoRanks) {
  if (WorldSize() % 2 != 0) GTEST_SKIP() << "two ranks per node need an even number of ranks";
  ExpectSameTraffic(2);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
