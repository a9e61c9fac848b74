#include "base/graph.h"

#include <algorithm>

namespace kcoll {
namespace {

int LowestSetBit(int v) { return v & -v; }

// An empty tree over n ranks rooted at `root`.
Tree EmptyTree(int n, int root) {
  Tree t;
  t.root = root;
  t.parent.assign(n, -1);
  t.children.assign(n, {});
  return t;
}

void AddEdge(Tree& t, int parent, int child) {
  t.parent[child] = parent;
  t.children[parent].push_back(child);
}

// Children of position v in the in-order binary tree on positions 0..m-1 whose leaves are the odd positions.
std::vector<int> InOrderChildren(int v, int m) {
  std::vector<int> out;
  if (v == 0) {
    int top = 1;
    while (top * 2 < m) top *= 2;
    if (m > 1) out.push_back(top);
    return out;
  }
  const int b = LowestSetBit(v);
  if (b == 1) return out;
  out.push_back(v - b / 2);  // the left subtree (v - b, v) lies below v, always in range
  // The right subtree covers (v, v + b) ∩ [0, m): its root is v + b/2, or, when that is out of range, the root of
  // the part that remains, v + b/4, v + b/8, ...
  for (int step = b / 2; step >= 1; step /= 2) {
    if (v + step < m) {
      out.push_back(v + step);
      break;
    }
  }
  return out;
}

}  // namespace

int Tree::Depth() const {
  int depth = 0;
  std::vector<int> level = {root};
  while (true) {
    std::vector<int> next;
    for (int r : level) next.insert(next.end(), children[r].begin(), children[r].end());
    if (next.empty()) return depth;
    ++depth;
    level = std::move(next);
  }
}

std::vector<int> ChannelRing(const std::vector<int>& node_of, int channel) {
  const int nnodes = node_of.empty() ? 0 : *std::max_element(node_of.begin(), node_of.end()) + 1;
  std::vector<std::vector<int>> on_node(nnodes);
  for (int r = 0; r < static_cast<int>(node_of.size()); ++r) on_node[node_of[r]].push_back(r);
  std::vector<int> ring;
  ring.reserve(node_of.size());
  for (const std::vector<int>& local : on_node) {
    const int l = static_cast<int>(local.size());
    for (int i = 0; i < l; ++i) ring.push_back(local[(i + channel) % l]);
  }
  return ring;
}

Tree BinomialTree(const std::vector<int>& order) {
  const int n = static_cast<int>(order.size());
  Tree t = EmptyTree(n, n > 0 ? order[0] : 0);
  for (int v = 0; v < n; ++v) {
    const int limit = v == 0 ? n : LowestSetBit(v);  // children at v + 2^k for 2^k below v's lowest set bit
    for (int step = 1; step < limit && v + step < n; step *= 2) AddEdge(t, order[v], order[v + step]);
  }
  return t;
}

std::array<Tree, 2> DoubleBinaryTree(const std::vector<int>& order) {
  const int n = static_cast<int>(order.size());
  if (n <= 1) return {EmptyTree(n, n == 1 ? order[0] : 0), EmptyTree(n, n == 1 ? order[0] : 0)};
  const int m = n % 2 == 0 ? n : n - 1;
  std::array<Tree, 2> trees = {EmptyTree(n, order[0]), EmptyTree(n, order[m - 1])};
  for (int v = 0; v < m; ++v) {
    for (int c : InOrderChildren(v, m)) {
      AddEdge(trees[0], order[v], order[c]);
      AddEdge(trees[1], order[m - 1 - v], order[m - 1 - c]);
    }
  }
  if (m < n) {  // odd n: the last position is a leaf of both trees, under their roots (which have one child each)
    AddEdge(trees[0], trees[0].root, order[m]);
    AddEdge(trees[1], trees[1].root, order[m]);
  }
  return trees;
}

}  // namespace kcoll
