// The MPI transport: point-to-point exchange around a ring, messages split into pieces, tags keeping concurrent
// streams apart, waiting on single requests, and the errors for bad peers and buffers.
#include "collectives/transport/mpi/mpi_transport.h"

#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"
#include "tests/transport_test_util.h"

namespace kcoll {
namespace testing {
namespace {

std::unique_ptr<MpiTransport> MakeTransport() {
  auto t = MpiTransport::Create(MPI_COMM_WORLD);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? std::move(t).value() : nullptr;
}

TEST(MpiTransport, DuplicatesTheCommunicator) {
  auto t = MakeTransport();
  int result = MPI_UNEQUAL;
  MPI_Comm_compare(t->comm(), MPI_COMM_WORLD, &result);
  EXPECT_EQ(result, MPI_CONGRUENT);  // same group, different context: no message can cross over
  EXPECT_EQ(t->rank(), WorldRank());
  EXPECT_EQ(t->size(), WorldSize());
}

TEST(MpiTransport, RingExchangeSplitIntoPieces) {
  auto t = MakeTransport();
  t->set_max_piece_bytes(1000);  // 4099 bytes travel as 5 pieces
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{1000}, size_t{4099}}) ExpectRingExchange(*t, bytes);
}

TEST(MpiTransport, TagsSeparateConcurrentStreamsAndSingleWaitsComplete) {
  auto t = MakeTransport();
  const int n = t->size(), me = t->rank();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  std::vector<uint8_t> a = Pattern(me, 64, 10), b = Pattern(me, 64, 20), in_a(64), in_b(64);
  // Receives posted in the opposite order of the sends: only the tags make them match correctly.
  auto rb = t->Recv(left, in_b.data(), 64, /*tag=*/2);
  auto ra = t->Recv(left, in_a.data(), 64, /*tag=*/1);
  ASSERT_TRUE(rb.ok() && ra.ok());
  auto sa = t->Send(right, a.data(), 64, 1);
  auto sb = t->Send(right, b.data(), 64, 2);
  ASSERT_TRUE(sa.ok() && sb.ok());
  ASSERT_TRUE(t->Wait(*ra).ok());
  EXPECT_EQ(in_a, Pattern(left, 64, 10));
  ASSERT_TRUE(t->WaitAll().ok());
  EXPECT_EQ(in_b, Pattern(left, 64, 20));
}

TEST(MpiTransport, BadArgumentsAreErrorsNotCrashes) {
  auto t = MakeTransport();
  uint8_t byte = 0;
  auto s = t->Send(t->size(), &byte, 1, 0);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s, IsInvalidArgument(absl::StrCat("peer ", t->size(), " is not a rank")));
  auto r = t->Recv(-1, &byte, 1, 0);
  EXPECT_THAT(r.status().message(), HasSubstr("Recv: peer -1"));
  auto null_send = t->Send(0, nullptr, 8, 0);
  EXPECT_THAT(null_send.status().message(), HasSubstr("null buffer for 8 bytes"));
  EXPECT_THAT(t->Wait(Transport::Request{42}).message(), HasSubstr("request 42 is not pending"));
  EXPECT_TRUE(t->WaitAll().ok());  // nothing was posted by the failed calls
}

TEST(MpiTransport, ReachesHostMemoryOnly) {
  auto t = MakeTransport();
  EXPECT_TRUE(t->CanReach(MemoryKind::kHost));
  EXPECT_FALSE(t->CanReach(MemoryKind::kDevice));
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
