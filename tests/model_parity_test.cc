// The cost model and the library describe the same algorithms: the model prices exactly the algorithms registered
// for each collective (but `direct`, which runs only on registered buffers and is not chosen by price), with the
// library's pipeline chunk, over the trees the library builds.
#include <algorithm>
#include <vector>

#include "collectives/algorithms/chunking.h"
#include "collectives/algorithms/registry.h"
#include "collectives/topology/graph.h"
#include "gtest/gtest.h"
#include "models/cost_model.h"
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

TEST(ModelParityTest, ModelPricesExactlyTheRegisteredAlgorithms) {
  for (Collective c : AllCollectives()) {
    const std::vector<Algorithm> registered = TransferAlgorithmsFor(c);
    EXPECT_EQ(Sorted(models::ApplicableAlgorithms(c)), Sorted(registered)) << CollectiveName(c);
  }
}

TEST(ModelParityTest, ModelUsesTheLibrarysChunk) {
  EXPECT_EQ(models::CostOptions().chunk_bytes, static_cast<double>(kDefaultChunkBytes));
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
