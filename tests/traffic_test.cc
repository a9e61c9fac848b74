// The counted traffic of every AllReduce algorithm against its theoretical volume, for every emulated node layout
// the rank count allows (and MPI's own nodes):
//  - every algorithm: bytes are conserved (sent = received over all ranks, also split into intra and inter node);
//  - ring: each rank sends exactly the blocks of the partition its schedule says (2S minus two blocks), all to its
//    right neighbour on the flat ring, so the inter-node bytes are those of the ranks whose neighbour is on the
//    next node (4 ranks, 2 per node: 2 of the 4 links cross);
//  - ring variants and trees: every element crosses every ring link / tree edge once each way, so the ranks send
//    2(n-1)S in total;
//  - 2D hierarchical: inside each node a ReduceScatter and an AllGather (2(L-1)S per node), across nodes an
//    AllReduce of one shard per rank (2(N-1)S in total over the shards), i.e. 1/L of the flat ring's inter-node
//    volume per rank, up to (N-1)/N vs (n-1)/n.
// S is the buffer in bytes, n ranks on N nodes of L ranks.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "gtest/gtest.h"
#include "tests/make_communicator.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

uint64_t Sum(uint64_t v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

// Emulated ranks per node to test: every divisor of the rank count; 0 stands for MPI's own nodes.
std::vector<int> Layouts() {
  std::vector<int> out = {0};
  for (int rpn = 1; rpn <= WorldSize(); ++rpn) {
    if (WorldSize() % rpn == 0) out.push_back(rpn);
  }
  return out;
}

std::string LayoutName(int rpn) { return rpn == 0 ? std::string("MPI nodes") : absl::StrCat(rpn, " ranks per node"); }

bool Registered(Algorithm a) {
  const std::vector<Algorithm> all = TransferAlgorithmsFor(Collective::kAllReduce);
  return std::find(all.begin(), all.end(), a) != all.end();
}

// Elements in block i of the partition of `count` into n blocks whose sizes differ by at most one (the first
// count % n blocks get the extra element).
uint64_t BlockElements(size_t count, int n, int i) {
  i = ((i % n) + n) % n;
  return count / n + (static_cast<size_t>(i) < count % n ? 1 : 0);
}

const std::vector<size_t>& Counts() {
  static const std::vector<size_t> counts = {0, 1, static_cast<size_t>(WorldSize()) + 1,
                                             10 * static_cast<size_t>(WorldSize()) + 3, 1000};
  return counts;
}

// A communicator for the layout, or nullptr after recording a failure.
std::unique_ptr<Communicator> MakeComm(int rpn) {
  CommunicatorOptions options;
  options.ranks_per_node = rpn;
  return MakeCommunicator(options);
}

// Runs one AllReduce of `count` elements of `type` with `algorithm` and returns the primitives it issued.
PrimitiveCounts Traffic(Communicator& comm, Algorithm algorithm, DataType type, size_t count) {
  std::vector<char> buf(count * DataTypeSize(type) + 1, 0);
  comm.ResetCounters();
  CallOptions options;
  options.algorithm = algorithm;
  const absl::Status s = comm.AllReduce(buf.data(), buf.data(), count, type, ReduceOp::kSum, options);
  EXPECT_TRUE(s.ok()) << s;
  const CollectiveCounts* c = comm.counters().Find(Collective::kAllReduce, algorithm);
  EXPECT_NE(c, nullptr);
  if (c == nullptr) return {};
  EXPECT_EQ(c->calls, 1u);
  EXPECT_EQ(c->bytes, count * DataTypeSize(type));
  EXPECT_TRUE(c->primitives == comm.counters().total);
  return c->primitives;
}

TEST(AllReduceTraffic, EveryAlgorithmConservesBytes) {
  for (int rpn : Layouts()) {
    auto comm = MakeComm(rpn);
    ASSERT_TRUE(AllRanks(comm != nullptr));
    for (Algorithm algorithm : TransferAlgorithmsFor(Collective::kAllReduce)) {
      for (size_t count : Counts()) {
        const PrimitiveCounts p = Traffic(*comm, algorithm, DataType::kFloat32, count);
        const std::string what = absl::StrCat(AlgorithmName(algorithm), ", ", LayoutName(rpn), ", count ", count);
        EXPECT_EQ(p.send.intra_node_bytes + p.send.inter_node_bytes, p.send.bytes) << what;
        EXPECT_EQ(p.recv.intra_node_bytes + p.recv.inter_node_bytes, p.recv.bytes) << what;
        EXPECT_EQ(Sum(p.send.bytes), Sum(p.recv.bytes)) << what;
        EXPECT_EQ(Sum(p.send.inter_node_bytes), Sum(p.recv.inter_node_bytes)) << what;
        EXPECT_EQ(Sum(p.send.calls), Sum(p.recv.calls)) << what;
        if (comm->topology().nnodes == 1) {
          EXPECT_EQ(p.send.inter_node_bytes, 0u) << what;
        }
        if (HasFailure()) return;
      }
    }
  }
}

TEST(AllReduceTraffic, RingSendsTheBlockPartitionAroundTheFlatRing) {
  if (!Registered(Algorithm::kRing)) GTEST_SKIP() << "no ring AllReduce registered";
  const int n = WorldSize(), rank = WorldRank();
  for (int rpn : Layouts()) {
    auto comm = MakeComm(rpn);
    ASSERT_TRUE(AllRanks(comm != nullptr));
    const std::vector<int>& node_of = comm->topology().node_of;
    if (rpn > 0) {
      for (int r = 0; r < n; ++r) ASSERT_EQ(node_of[r], r / rpn);
    }
    // The flat ring: ranks ordered by node, then by rank.
    std::vector<int> ring(n);
    for (int r = 0; r < n; ++r) ring[r] = r;
    std::stable_sort(ring.begin(), ring.end(), [&](int a, int b) { return node_of[a] < node_of[b]; });
    const int p = static_cast<int>(std::find(ring.begin(), ring.end(), rank) - ring.begin());
    const bool right_is_remote = node_of[ring[(p + 1) % n]] != node_of[rank];
    const bool left_is_remote = node_of[ring[(p + n - 1) % n]] != node_of[rank];
    int crossing_links = 0;
    for (int i = 0; i < n; ++i) crossing_links += node_of[ring[i]] != node_of[ring[(i + 1) % n]] ? 1 : 0;

    for (DataType type : {DataType::kInt8, DataType::kFloat16, DataType::kFloat64}) {
      for (size_t count : Counts()) {
        const uint64_t e = DataTypeSize(type), s = count * e;
        const std::string what =
            absl::StrCat(LayoutName(rpn), ", ", DataTypeName(type), ", count ", count, ", ring position ", p);
        const PrimitiveCounts got = Traffic(*comm, Algorithm::kRing, type, count);
        if (n == 1) {
          EXPECT_EQ(got.send.bytes, 0u) << what;
          continue;
        }
        // ReduceScatter sends every block but (p+1), AllGather every block but (p+2); receives miss p and p+1.
        const uint64_t sent = 2 * s - (BlockElements(count, n, p + 1) + BlockElements(count, n, p + 2)) * e;
        const uint64_t received = 2 * s - (BlockElements(count, n, p) + BlockElements(count, n, p + 1)) * e;
        EXPECT_EQ(got.send.bytes, sent) << what;
        EXPECT_EQ(got.send.calls, 2u * (n - 1)) << what;
        EXPECT_EQ(got.send.inter_node_bytes, right_is_remote ? sent : 0) << what;
        EXPECT_EQ(got.recv.bytes, received) << what;
        EXPECT_EQ(got.recv.inter_node_bytes, left_is_remote ? received : 0) << what;
        EXPECT_EQ(got.reduce.bytes, s - BlockElements(count, n, p) * e) << what;  // (n-1)/n of the buffer
        // 2(n-1)/n S per rank: 2(n-1)S over the ring; crossing_links of its n links leave a node.
        EXPECT_EQ(Sum(got.send.bytes), 2 * (n - 1) * s) << what;
        if (count >= static_cast<size_t>(n)) {
          const uint64_t crossing_ranks = Sum(got.send.inter_node_bytes > 0 ? 1 : 0);
          EXPECT_EQ(crossing_ranks, static_cast<uint64_t>(crossing_links)) << what;
          EXPECT_EQ(crossing_links, comm->topology().nnodes > 1 ? comm->topology().nnodes : 0) << what;
        }
        if (HasFailure()) return;
      }
    }
  }
}

TEST(AllReduceTraffic, RingVariantsAndTreesSendEveryElementOverEveryLinkTwice) {
  const std::vector<Algorithm> known = {Algorithm::kRing, Algorithm::kRingPipelined, Algorithm::kBidirectionalRing,
                                        Algorithm::kTree, Algorithm::kDoubleBinaryTree};
  const int n = WorldSize();
  std::string checked;
  for (Algorithm algorithm : known) {
    if (!Registered(algorithm)) continue;
    absl::StrAppend(&checked, checked.empty() ? "" : ", ", AlgorithmName(algorithm));
    for (int rpn : Layouts()) {
      auto comm = MakeComm(rpn);
      ASSERT_TRUE(AllRanks(comm != nullptr));
      for (size_t count : Counts()) {
        const uint64_t s = count * 4;
        const PrimitiveCounts got = Traffic(*comm, algorithm, DataType::kFloat32, count);
        EXPECT_EQ(Sum(got.send.bytes), 2 * static_cast<uint64_t>(n - 1) * s)
            << AlgorithmName(algorithm) << ", " << LayoutName(rpn) << ", count " << count;
        if (HasFailure()) return;
      }
    }
  }
  if (WorldRank() == 0) std::printf("[kcoll] total volume 2(n-1)S checked for: %s\n", checked.c_str());
}

TEST(AllReduceTraffic, HierarchicalSendsOneShardPerRankAcrossNodes) {
  std::vector<Algorithm> hierarchical;
  for (Algorithm a : {Algorithm::kHierarchical, Algorithm::kHierarchicalRingTree}) {
    if (Registered(a)) hierarchical.push_back(a);
  }
  if (hierarchical.empty()) GTEST_SKIP() << "no 2D hierarchical AllReduce is registered yet: nothing to check";
  const int n = WorldSize();
  for (Algorithm algorithm : hierarchical) {
    for (int rpn : Layouts()) {
      if (rpn == 0) continue;
      const int nodes = n / rpn;
      auto comm = MakeComm(rpn);
      ASSERT_TRUE(AllRanks(comm != nullptr));
      for (size_t count : Counts()) {
        const uint64_t s = count * 4;
        const std::string what = absl::StrCat(AlgorithmName(algorithm), ", ", LayoutName(rpn), ", count ", count);
        const PrimitiveCounts hier = Traffic(*comm, algorithm, DataType::kFloat32, count);
        // Across nodes: an AllReduce (ring, or tree reduce + broadcast) of each of the L shards among the N nodes,
        // 2(N-1) x shard, summed over the shards.
        EXPECT_EQ(Sum(hier.send.inter_node_bytes), 2 * static_cast<uint64_t>(nodes - 1) * s) << what;
        // Inside each node: ReduceScatter and AllGather among L ranks, (L-1)S each.
        EXPECT_EQ(Sum(hier.send.intra_node_bytes), 2 * static_cast<uint64_t>(nodes) * (rpn - 1) * s) << what;
        if (Registered(Algorithm::kRing) && count == Counts().back() && nodes > 1 && rpn > 1) {
          const PrimitiveCounts flat = Traffic(*comm, Algorithm::kRing, DataType::kFloat32, count);
          // Per rank, inter-node bytes over the flat ring's bytes: (N-1)/(n-1) = 1/L x ((N-1)/N) / ((n-1)/n).
          const double ratio =
              static_cast<double>(Sum(hier.send.inter_node_bytes)) / static_cast<double>(Sum(flat.send.bytes));
          EXPECT_NEAR(ratio, static_cast<double>(nodes - 1) / (n - 1), 1e-12) << what;
          if (WorldRank() == 0) {
            std::printf("[kcoll] %s: inter-node bytes / flat ring bytes per rank = %.4f (1/L = %.4f)\n", what.c_str(),
                        ratio, 1.0 / rpn);
          }
        }
        if (HasFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
