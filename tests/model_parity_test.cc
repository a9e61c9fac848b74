// The cost model and the library describe the same algorithms: the model prices exactly the algorithms registered
// for each collective (but `direct`, which runs only on registered buffers and is not chosen by price), with the
// library's pipeline chunk, over the trees the library builds.
#include <algorithm>
#include <vector>

#include "base/graph.h"
#include "collectives/algorithms/all_reduce/ring_pipelined.h"
#include "collectives/algorithms/engines/chunking.h"
#include "collectives/algorithms/registry.h"
#include "gtest/gtest.h"
#include "models/cost_model.h"
#include "models/test_util.h"
#include "models/trees.h"

namespace kcoll {
namespace {

std::vector<Algorithm> Sorted(std::vector<Algorithm> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<int> Identity(int n) {
  std::vector<int> order(n);
  for (int r = 0; r < n; ++r) order[r] = r;
  return order;
}

std::vector<int64_t> Parents(const Tree& tree) { return std::vector<int64_t>(tree.parent.begin(), tree.parent.end()); }

// Every algorithm that runs on any buffers, but AllReduce's `linear` and `ordered_halving_doubling`, which
// numerics=deterministic takes by its own rule (collectives/communicator_numerics.cc) and auto never prices.
TEST(ModelParityTest, ModelPricesExactlyTheRegisteredAlgorithms) {
  for (Collective c : AllCollectives()) {
    std::vector<Algorithm> registered = TransferAlgorithmsFor(c);
    if (c == Collective::kAllReduce) {
      for (Algorithm rank_ordered : {Algorithm::kLinear, Algorithm::kOrderedHalvingDoubling}) {
        registered.erase(std::remove(registered.begin(), registered.end(), rank_ordered), registered.end());
      }
    }
    EXPECT_EQ(Sorted(models::ApplicableAlgorithms(c)), Sorted(registered)) << CollectiveName(c);
  }
}

TEST(ModelParityTest, ModelUsesTheLibrarysChunk) {
  EXPECT_EQ(models::CostOptions().chunk_bytes, static_cast<double>(kDefaultChunkBytes));
}

// ring_pipelined runs one channel per whole slice of n chunks, up to the communicator's channels (2 on NCCL): the
// model prices the channels the library runs at every size.
TEST(ModelParityTest, ModelRunsTheLibrarysRingChannels) {
  const models::Profile profile = models::Uniform(1e-6, 10e9);
  for (int n : {2, 3, 8}) {
    for (int channels : {1, 2, 4}) {
      models::CostOptions options;
      options.channels = channels;
      options.chunk_bytes = static_cast<double>(kDefaultChunkBytes);
      absl::StatusOr<models::CostModel> model = models::CostModel::Create(
          Collective::kAllReduce, Algorithm::kRingPipelined, models::Topology{1, n, 1}, profile, options);
      ASSERT_TRUE(model.ok()) << model.status();
      for (size_t bytes : {size_t{0}, size_t{4096}, kDefaultChunkBytes * n - 1, kDefaultChunkBytes * n,
                           3 * kDefaultChunkBytes * n + 17, size_t{1} << 30}) {
        EXPECT_EQ(model->RingChannels(static_cast<double>(bytes)),
                  DefaultRingChannels(bytes, n, kDefaultChunkBytes, channels))
            << n << " ranks, " << channels << " channels, " << bytes << " B";
      }
    }
  }
}

TEST(ModelParityTest, ModelTreesAreTheLibrarysTrees) {
  for (int n = 1; n <= 16; ++n) {
    const std::array<Tree, 2> built = DoubleBinaryTree(Identity(n));
    const models::DoubleBinaryTree priced = models::DoubleBinaryTreeParents(n);
    EXPECT_EQ(priced.first, Parents(built[0])) << n << " ranks";
    EXPECT_EQ(priced.second, Parents(built[1])) << n << " ranks";
    EXPECT_EQ(models::BinomialTreeParents(n), Parents(BinomialTree(Identity(n)))) << n << " ranks";
  }
}

}  // namespace
}  // namespace kcoll
