// RegisteredMemory over each way of making an allocation's parts (mapped_parts.h): the node's shared segment, and
// parts that lie apart from each other, one mapping per rank, as device memory opened through CUDA IPC does. Every
// rank must find every peer's buffer at the address the parts give, whatever the layout; a maker that fails fails
// Allocate on every rank with its reason. And the device maker, on a machine without a GPU (or a build without the
// CUDA runtime), refuses on every rank saying why.
#include "collectives/transport/shm/registered_memory.h"

#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/transport/cuda_ipc/device_parts.h"
#include "collectives/transport/shm/shm_segment.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

// Each rank's part in a segment of its own, mapped by every rank: the parts are not one after the other.
class SeparateParts final : public MappedParts {
 public:
  unsigned char* part(int local_rank) const override { return segments[local_rank]->data(); }
  std::vector<std::unique_ptr<shm::Segment>> segments;
};

absl::StatusOr<std::unique_ptr<MappedParts>> MakeSeparateParts(MPI_Comm comm, const std::vector<uint64_t>& sizes) {
  auto parts = std::make_unique<SeparateParts>();
  for (uint64_t bytes : sizes) {
    absl::StatusOr<std::unique_ptr<shm::Segment>> segment = shm::Segment::Create(comm, bytes + 4096);
    if (!segment.ok()) return segment.status();
    parts->segments.push_back(*std::move(segment));
  }
  return std::unique_ptr<MappedParts>(std::move(parts));
}

std::vector<int> WorldNames() {
  std::vector<int> names(WorldSize());
  for (int r = 0; r < WorldSize(); ++r) names[r] = r;
  return names;
}

Transport::CallInfo Call(uint32_t signature) { return Transport::CallInfo{"AllReduce", "direct", signature}; }

// Each rank allocates a size of its own, writes its rank into every byte, and reads every peer's buffer through the
// addresses Exchange hands out.
void EveryRankSeesEveryPart(RegisteredMemory& memory) {
  const int rank = WorldRank(), n = WorldSize();
  const size_t bytes = 1000 + 24 * static_cast<size_t>(rank);
  absl::StatusOr<void*> send = memory.Allocate(1, bytes);
  absl::StatusOr<void*> recv = memory.Allocate(2, bytes);
  ASSERT_TRUE(AllRanks(send.ok() && recv.ok())) << send.status() << recv.status();
  std::memset(*send, rank + 1, bytes);
  EXPECT_EQ(memory.AllocationAt(*send), 1u);
  EXPECT_EQ(memory.AllocationAt(*recv), 2u);
  EXPECT_TRUE(memory.Contains(static_cast<char*>(*send) + 10, bytes - 10));
  EXPECT_FALSE(memory.Contains(*send, bytes + 1));
  // From an offset inside the allocation: the peers see the same offset.
  PeerMemory::Buffers peers;
  absl::StatusOr<bool> registered = memory.Exchange(Call(7), static_cast<char*>(*send) + 8, 64, *recv, 64, &peers);
  ASSERT_TRUE(AllRanks(registered.ok() && *registered)) << registered.status();
  for (int p = 0; p < n; ++p) {
    ASSERT_NE(peers.send[p], nullptr);
    EXPECT_EQ(peers.send[p][0], p + 1) << "rank " << p << "'s send buffer";
    EXPECT_EQ(peers.send[p][63], p + 1) << "rank " << p << "'s send buffer";
  }
  EXPECT_EQ(peers.send[rank], static_cast<unsigned char*>(*send) + 8);
  EXPECT_EQ(peers.recv[rank], *recv);
  // Each rank writes into the next rank's receive buffer; after the barrier every rank finds its predecessor's mark.
  peers.recv[(rank + 1) % n][0] = static_cast<unsigned char>(100 + rank);
  ASSERT_TRUE(memory.Barrier().ok());
  EXPECT_EQ(static_cast<unsigned char*>(*recv)[0], 100 + (rank + n - 1) % n);
  // A buffer outside the allocations on one rank: no rank may read the others'.
  std::vector<unsigned char> plain(64);
  registered = memory.Exchange(Call(8), rank == n - 1 ? plain.data() : *send, 64, *recv, 64, &peers);
  ASSERT_TRUE(registered.ok()) << registered.status();
  EXPECT_TRUE(AllRanks(!*registered));
  memory.Release(1);
  memory.Release(2);
  EXPECT_EQ(memory.AllocationAt(*send), 0u);
}

TEST(RegisteredMemoryTest, OneSegmentOfTheNode) {
  auto memory = RegisteredMemory::Create(MPI_COMM_WORLD, WorldNames());
  ASSERT_TRUE(AllRanks(memory.ok())) << memory.status();
  EXPECT_EQ((*memory)->memory(), MemoryKind::kHost);
  EveryRankSeesEveryPart(**memory);
}

TEST(RegisteredMemoryTest, PartsApartFromEachOther) {
  auto memory =
      RegisteredMemory::Create(MPI_COMM_WORLD, WorldNames(), 0, MemoryKind::kDevice, PartsMaker(MakeSeparateParts));
  ASSERT_TRUE(AllRanks(memory.ok())) << memory.status();
  EXPECT_EQ((*memory)->memory(), MemoryKind::kDevice);
  EveryRankSeesEveryPart(**memory);
}

TEST(RegisteredMemoryTest, AMakerThatFailsFailsAllocateEverywhere) {
  int calls = 0;
  PartsMaker second_fails =
      [&calls](MPI_Comm comm, const std::vector<uint64_t>& sizes) -> absl::StatusOr<std::unique_ptr<MappedParts>> {
    if (++calls == 2) return absl::ResourceExhaustedError("out of device memory (test)");
    return MakeSeparateParts(comm, sizes);
  };
  auto memory = RegisteredMemory::Create(MPI_COMM_WORLD, WorldNames(), 0, MemoryKind::kDevice, second_fails);
  ASSERT_TRUE(AllRanks(memory.ok())) << memory.status();
  absl::StatusOr<void*> first = (*memory)->Allocate(1, 128);
  ASSERT_TRUE(AllRanks(first.ok())) << first.status();
  absl::StatusOr<void*> second = (*memory)->Allocate(2, 256);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(second.status().message()), ::testing::HasSubstr("Allocate(256): out of device memory"));
  absl::StatusOr<void*> third = (*memory)->Allocate(3, 64);
  ASSERT_TRUE(AllRanks(third.ok())) << third.status();
  EXPECT_EQ((*memory)->AllocationAt(*third), 3u);
  EXPECT_EQ((*memory)->AllocationAt(*first), 1u);
}

// Without a GPU (these machines) the device maker fails alike on every rank, naming what is missing.
TEST(RegisteredMemoryTest, DeviceMakerWithoutAGpuSaysWhy) {
  absl::StatusOr<std::unique_ptr<MappedParts>> parts =
      MakeDeviceParts(MPI_COMM_WORLD, std::vector<uint64_t>(WorldSize(), 64));
  if (AllRanks(parts.ok())) GTEST_SKIP() << "a GPU is here: tests/gpu_collectives_test.cc checks device parts";
  EXPECT_FALSE(parts.ok());
  EXPECT_TRUE(AllRanks(!parts.ok()));
  EXPECT_THAT(std::string(parts.status().message()),
              ::testing::AnyOf(::testing::HasSubstr("cudaMalloc"), ::testing::HasSubstr("CUDA runtime")));
  std::printf("[kcoll] device parts refused: %s\n", std::string(parts.status().message()).c_str());
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
