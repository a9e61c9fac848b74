// What the transport tests share: a byte pattern that differs per rank and salt, and one exchange around the ring.
#ifndef KCOLL_TESTS_TRANSPORT_TEST_UTIL_H_
#define KCOLL_TESTS_TRANSPORT_TEST_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectives/transport/transport.h"
#include "gtest/gtest.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {

inline std::vector<uint8_t> Pattern(int rank, size_t bytes, int salt) {
  std::vector<uint8_t> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<uint8_t>(i * 31 + rank * 7 + salt);
  return v;
}

// Every rank sends `bytes` of its pattern to the right and receives its left neighbour's, which must arrive intact.
inline void ExpectRingExchange(Transport& t, size_t bytes) {
  const int n = t.size(), me = t.rank();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  std::vector<uint8_t> out = Pattern(me, bytes, 1), in(bytes, 0);
  ASSERT_TRUE(t.Recv(left, in.data(), bytes, 0).ok());
  ASSERT_TRUE(t.Send(right, out.data(), bytes, 0).ok());
  ASSERT_TRUE(AllRanks(t.WaitAll().ok()));
  EXPECT_EQ(in, Pattern(left, bytes, 1)) << bytes << " bytes";
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_TRANSPORT_TEST_UTIL_H_
