// The copy choice (KCOLL_SHM_SINGLE_COPY=auto, and by default for the collectives that only move data): a communicator
// whose large messages travel through the slots or as a single copy, call by call, as CopyChoice picks; every result
// stays exact whichever way each call and each rank took. The same for the store choice (KCOLL_SHM_STREAM_STORES):
// the slots written with cached or streaming stores.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collectives/communicator.h"
#include "gtest/gtest.h"
#include "tests/make_communicator.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace testing {
namespace {

// 64 Ki int32 per rank (256 KiB): above the choice's threshold, in several slots.
constexpr size_t kCount = size_t{64} << 10;
// Enough calls that each size class measures both ways and then explores (CopyChoice's defaults: 4 calls each way
// besides an uncounted first, then the other way 16 calls later).
constexpr int kCalls = 40;

int32_t Value(int rank, size_t i, int call) { return static_cast<int32_t>((rank + 1) * 3 + i % 97 + call); }

TEST(CopyChoiceCommunicator, SaysItChoosesPerCall) {
  ScopedEnv env("KCOLL_SHM_SINGLE_COPY", "auto");
  auto comm = MakeCommunicator();
  ASSERT_NE(comm, nullptr);
  if (WorldSize() == 1) GTEST_SKIP() << "one rank: no transport between ranks";
  if (comm->execution().find("transport shm") == std::string::npos &&
      comm->execution().find("shm:") == std::string::npos) {
    GTEST_SKIP() << "not on shared memory: " << comm->execution();
  }
  if (comm->execution().find("the kernel does not let") != std::string::npos) {
    GTEST_SKIP() << "the kernel does not let these ranks read each other's memory: " << comm->execution();
  }
  EXPECT_THAT(comm->execution(), HasSubstr("single copy or the slots from 64K, chosen per call"));
  EXPECT_THAT(comm->execution(), HasSubstr("(KCOLL_SHM_SINGLE_COPY=auto)"));
}

// Unset, and no profile measured a threshold: the collectives that only move data choose, those that reduce keep the
// slots.
TEST(CopyChoiceCommunicator, ByDefaultTheCollectivesThatOnlyMoveDataChoose) {
  ScopedEnv env("KCOLL_SHM_SINGLE_COPY", nullptr);
  auto comm = MakeCommunicator();
  ASSERT_NE(comm, nullptr);
  if (WorldSize() == 1) GTEST_SKIP() << "one rank: no transport between ranks";
  if (comm->execution().find("shm:") == std::string::npos) GTEST_SKIP() << "not on shared memory";
  if (comm->execution().find("measured; profile") != std::string::npos) {
    GTEST_SKIP() << "a machine profile sets the threshold: " << comm->execution();
  }
  if (comm->execution().find("the kernel does not let") != std::string::npos) {
    EXPECT_THAT(comm->execution(), HasSubstr("no single copy (default: the kernel does not let"));
    return;
  }
  // Ranks that outnumber the cores keep the slots (they would time the scheduler more than the ways).
  if (RanksTakeTurnsOnTheCores()) {
    EXPECT_THAT(comm->execution(), HasSubstr("no single copy (default; the ranks take turns on the cores)"));
    return;
  }
  EXPECT_THAT(comm->execution(),
              HasSubstr("single copy or the slots from 64K, chosen per call by their measured times (default; the "
                        "collectives that reduce keep the slots)"));
}

// Every collective's results, each call checked, while the ways alternate.
void ExpectEveryCollectiveExact(Communicator* comm) {
  const int rank = WorldRank(), n = WorldSize();
  std::vector<int32_t> send(kCount), recv(kCount * n), in_place(kCount * n);
  for (int call = 0; call < kCalls; ++call) {
    for (size_t i = 0; i < kCount; ++i) send[i] = Value(rank, i, call);
    // AllReduce, out of place and in place.
    ASSERT_TRUE(comm->AllReduce(send.data(), recv.data(), kCount, DataType::kInt32, ReduceOp::kSum).ok());
    in_place.assign(send.begin(), send.end());
    ASSERT_TRUE(comm->AllReduce(in_place.data(), in_place.data(), kCount, DataType::kInt32, ReduceOp::kSum).ok());
    for (size_t i = 0; i < kCount; ++i) {
      int32_t want = 0;
      for (int r = 0; r < n; ++r) want += Value(r, i, call);
      ASSERT_EQ(recv[i], want) << "AllReduce, call " << call << ", element " << i;
      ASSERT_EQ(in_place[i], want) << "AllReduce in place, call " << call << ", element " << i;
    }
    // AllGather in place: this rank's block already sits in its place.
    for (size_t i = 0; i < kCount; ++i) in_place[rank * kCount + i] = send[i];
    ASSERT_TRUE(comm->AllGather(in_place.data() + rank * kCount, in_place.data(), kCount, DataType::kInt32).ok());
    for (int r = 0; r < n; ++r) {
      for (size_t i = 0; i < kCount; ++i) {
        ASSERT_EQ(in_place[r * kCount + i], Value(r, i, call)) << "AllGather, call " << call << ", block " << r;
      }
    }
    // ReduceScatter of every rank's n blocks: block b of rank r holds Value(r, b * kCount + i).
    std::vector<int32_t> blocks(kCount * n), mine(kCount);
    for (size_t i = 0; i < blocks.size(); ++i) blocks[i] = Value(rank, i, call);
    ASSERT_TRUE(comm->ReduceScatter(blocks.data(), mine.data(), kCount, DataType::kInt32, ReduceOp::kSum).ok());
    for (size_t i = 0; i < kCount; ++i) {
      int32_t want = 0;
      for (int r = 0; r < n; ++r) want += Value(r, rank * kCount + i, call);
      ASSERT_EQ(mine[i], want) << "ReduceScatter, call " << call << ", element " << i;
    }
    // Broadcast from the last rank.
    const int root = n - 1;
    std::vector<int32_t> data(kCount);
    for (size_t i = 0; i < kCount; ++i) data[i] = rank == root ? Value(root, i, call) : -1;
    ASSERT_TRUE(comm->Broadcast(data.data(), data.data(), kCount, DataType::kInt32, root).ok());
    for (size_t i = 0; i < kCount; ++i) ASSERT_EQ(data[i], Value(root, i, call)) << "Broadcast, call " << call;
  }
}

// The same on a communicator made with `variable` set to `value` (nullptr: unset).
void ExpectEveryCollectiveExactWith(const char* variable, const char* value) {
  ScopedEnv env(variable, value);
  auto comm = MakeCommunicator();
  ASSERT_NE(comm, nullptr);
  ExpectEveryCollectiveExact(comm.get());
}

TEST(CopyChoiceCommunicator, EveryCollectiveStaysExactAsTheWaysAlternate) {
  ExpectEveryCollectiveExactWith("KCOLL_SHM_SINGLE_COPY", "auto");
}

TEST(CopyChoiceCommunicator, EveryCollectiveStaysExactUnderTheDefaultChoice) {
  ExpectEveryCollectiveExactWith("KCOLL_SHM_SINGLE_COPY", nullptr);
}

// How the senders write the slots, as the execution line says it.
TEST(StoreChoiceCommunicator, SaysHowTheSlotsAreWritten) {
  struct Case {
    const char* value;
    const char* expected;
  };
  for (const Case& c :
       {Case{"1", "streaming stores into the slots (KCOLL_SHM_STREAM_STORES=1)"},
        Case{"0", "cached stores into the slots (KCOLL_SHM_STREAM_STORES=0)"},
        Case{"auto",
             "cached or streaming stores into the slots from 64K, chosen per call "
             "(KCOLL_SHM_STREAM_STORES=auto)"},
        Case{nullptr, "cached or streaming stores into the slots from 64K, chosen per call (default)"}}) {
    ScopedEnv env("KCOLL_SHM_STREAM_STORES", c.value);
    auto comm = MakeCommunicator();
    ASSERT_NE(comm, nullptr);
    if (WorldSize() == 1) GTEST_SKIP() << "one rank: no transport between ranks";
    if (comm->execution().find("shm:") == std::string::npos) GTEST_SKIP() << "not on shared memory";
    std::string expected = c.expected;
    if (c.value == nullptr && RanksTakeTurnsOnTheCores()) {
      expected = "cached stores into the slots (default; the ranks take turns on the cores)";
    }
    EXPECT_THAT(comm->execution(), HasSubstr(expected)) << "KCOLL_SHM_STREAM_STORES=" << (c.value ? c.value : "unset");
  }
}

TEST(StoreChoiceCommunicator, EveryCollectiveStaysExactWithStreamingStores) {
  ExpectEveryCollectiveExactWith("KCOLL_SHM_STREAM_STORES", "1");
}

// Chosen per call even where the ranks take turns on the cores (asked for), so that both ways run.
TEST(StoreChoiceCommunicator, EveryCollectiveStaysExactAsTheStoresAlternate) {
  ExpectEveryCollectiveExactWith("KCOLL_SHM_STREAM_STORES", "auto");
}

TEST(StoreChoiceCommunicator, AnUnknownValueIsAnErrorNamingTheVariable) {
  ScopedEnv env("KCOLL_SHM_STREAM_STORES", "2");
  if (WorldSize() == 1) GTEST_SKIP() << "one rank: the shared-memory transport is not set up";
  auto comm = Communicator::Create(MPI_COMM_WORLD, {});
  ASSERT_FALSE(comm.ok());
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(comm.status().message(), HasSubstr("KCOLL_SHM_STREAM_STORES: '2'"));
}

TEST(CopyChoiceCommunicator, AnUnknownWordIsAnErrorNamingTheVariable) {
  ScopedEnv env("KCOLL_SHM_SINGLE_COPY", "automatic");
  if (WorldSize() == 1) GTEST_SKIP() << "one rank: the shared-memory transport is not set up";
  auto comm = Communicator::Create(MPI_COMM_WORLD, {});
  ASSERT_FALSE(comm.ok());
  EXPECT_THAT(comm.status().message(), HasSubstr("KCOLL_SHM_SINGLE_COPY"));
  EXPECT_THAT(comm.status().message(), HasSubstr("automatic"));
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
