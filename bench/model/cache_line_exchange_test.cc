// The cache-line exchange on the ranks of one host: every rank sees every rank's bytes of each exchange, in rank
// order, across many exchanges (both lines of each rank reused); too many bytes and a rank that never publishes are
// errors.
#include "bench/model/cache_line_exchange.h"

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace bench {
namespace {

using ::kcoll::testing::WorldRank;
using ::kcoll::testing::WorldSize;

// What `rank` publishes in exchange `i`, byte `b`: different for every rank, exchange and byte.
unsigned char Byte(int rank, int i, size_t b) { return static_cast<unsigned char>(rank * 31 + i * 7 + b); }

TEST(CacheLineExchangeTest, EveryRankSeesEveryRanksBytesInRankOrder) {
  absl::StatusOr<std::unique_ptr<CacheLineExchange>> made = CacheLineExchange::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(made.ok()) << made.status();
  CacheLineExchange& exchange = **made;
  const int n = WorldSize();
  ASSERT_EQ(exchange.nranks(), n);
  ASSERT_EQ(exchange.rank(), WorldRank());
  int wrong = 0;
  for (int i = 0; i < 2000; ++i) {
    const size_t bytes = 1 + i % CacheLineExchange::kPayloadBytes;
    unsigned char mine[CacheLineExchange::kPayloadBytes];
    for (size_t b = 0; b < bytes; ++b) mine[b] = Byte(WorldRank(), i, b);
    int next = 0;
    const absl::Status done = exchange.Exchange(mine, bytes, [&](int rank, const void* payload) {
      if (rank != next++) ++wrong;
      const auto* got = static_cast<const unsigned char*>(payload);
      for (size_t b = 0; b < bytes; ++b) wrong += got[b] != Byte(rank, i, b);
    });
    ASSERT_TRUE(done.ok()) << done;
    ASSERT_EQ(next, n);
  }
  EXPECT_EQ(wrong, 0);
}

TEST(CacheLineExchangeTest, MoreBytesThanALineCarriesIsAnError) {
  absl::StatusOr<std::unique_ptr<CacheLineExchange>> made = CacheLineExchange::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(made.ok()) << made.status();
  unsigned char big[CacheLineExchange::kPayloadBytes + 1] = {};
  int calls = 0;
  EXPECT_THAT((*made)->Exchange(big, sizeof(big), [&](int, const void*) { ++calls; }),
              IsInvalidArgument("57 bytes, over the 56 one line carries"));
  EXPECT_EQ(calls, 0);
}

TEST(CacheLineExchangeTest, ARankThatDoesNotPublishEndsTheWaitNamingIt) {
  const int n = WorldSize();
  if (n < 2) GTEST_SKIP() << "needs a second rank that stays away";
  absl::StatusOr<std::unique_ptr<CacheLineExchange>> made = CacheLineExchange::Create(MPI_COMM_WORLD);
  ASSERT_TRUE(made.ok()) << made.status();
  if (WorldRank() == 0) {
    const uint64_t value = 1;
    const absl::Status done = (*made)->Exchange(
        &value, sizeof(value), [](int, const void*) {}, std::chrono::milliseconds(50));
    EXPECT_EQ(done.code(), absl::StatusCode::kDeadlineExceeded) << done;
    EXPECT_THAT(std::string(done.message()), HasSubstr("rank 1 did not publish"));
  }
  MPI_Barrier(MPI_COMM_WORLD);  // the others stay away until rank 0 gave up
}

}  // namespace
}  // namespace bench
}  // namespace kcoll
