// Folding a group of n positions onto p2 = the largest power of two <= n "virtual" positions, for the recursive
// halving and doubling schedules, which pair position v with v ^ d and so need a power of two.
//
// With rem = n - p2, the first 2*rem positions pair up: in each pair (2i, 2i+1) the odd position takes part as
// virtual position i and speaks for both, the even one sits out of the power-of-two phase. The remaining positions
// q >= 2*rem become virtual q - rem. Virtual position v covers the blocks of positions
// [FirstBlock(v), FirstBlock(v + 1)): two blocks for v < rem, one otherwise. Because that map is monotonic, any
// range of virtual positions covers a contiguous range of blocks, so every exchange is one contiguous message.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_POWER_OF_TWO_FOLD_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_POWER_OF_TWO_FOLD_H_

namespace kcoll {

struct VirtualPowerOfTwo {
  explicit VirtualPowerOfTwo(int group_size) : n(group_size) {
    while (p2 * 2 <= n) p2 *= 2;
    rem = n - p2;
  }
  // The virtual position of group position q, or -1 if q sits out.
  int VirtualOf(int q) const {
    if (q < 2 * rem) return q % 2 == 1 ? q / 2 : -1;
    return q - rem;
  }
  // The group position that plays virtual position v.
  int PositionOf(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
  // The first block virtual position v covers; FirstBlock(p2) == n.
  int FirstBlock(int v) const { return v < rem ? 2 * v : v + rem; }
  // Whether position q is the even half of a pair (sits out), and its partner.
  bool SitsOut(int q) const { return q < 2 * rem && q % 2 == 0; }

  int n;
  int p2 = 1;
  int rem = 0;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_POWER_OF_TWO_FOLD_H_
