// The GPU path's pure decisions, on every machine: which device a rank takes, how the overrides and the timeout are
// read, when two ranks would share a GPU, and how buffers reach each transport.
#include "collectives/transport/cuda/gpu_placement.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/env.h"
#include "base/transport_kind.h"
#include "collectives/transport/device_path.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace {

TEST(ParseCudaDeviceList, OneDeviceOrOnePerLocalRank) {
  EXPECT_THAT(*ParseCudaDeviceList("3", "KCOLL_CUDA_DEVICE"), ElementsAre(3));
  EXPECT_THAT(*ParseCudaDeviceList("0,2, 4 ,6", "KCOLL_CUDA_DEVICE"), ElementsAre(0, 2, 4, 6));
}

TEST(ParseCudaDeviceList, RejectsWhatIsNotADeviceList) {
  for (const char* bad : {"", "gpu0", "1,,2", "-1", "1.5", "2,x"}) {
    auto parsed = ParseCudaDeviceList(bad, "KCOLL_CUDA_DEVICE");
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_THAT(parsed, IsInvalidArgument("KCOLL_CUDA_DEVICE"));
    EXPECT_THAT(parsed.status().message(), HasSubstr(absl::StrCat("'", bad, "'")));
  }
}

TEST(ChooseCudaDevice, OneDevicePerLocalRank) {
  for (int local = 0; local < 8; ++local) EXPECT_EQ(*ChooseCudaDevice(local, 8, 8, {}), local);
  // Fewer ranks than devices: the first devices are used.
  EXPECT_EQ(*ChooseCudaDevice(1, 2, 8, {}), 1);
}

TEST(ChooseCudaDevice, ARankThatSeesOneDeviceUsesIt) {
  // The launcher narrowed CUDA_VISIBLE_DEVICES per rank (or the node has one GPU): every rank's device 0.
  for (int local = 0; local < 4; ++local) EXPECT_EQ(*ChooseCudaDevice(local, 4, 1, {}), 0);
}

TEST(ChooseCudaDevice, MoreRanksThanDevicesIsAnError) {
  auto chosen = ChooseCudaDevice(0, 4, 2, {});
  ASSERT_FALSE(chosen.ok());
  EXPECT_EQ(chosen.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(chosen.status().message(), HasSubstr("4 ranks share this node but it has 2 CUDA devices"));
}

TEST(ChooseCudaDevice, NoDevice) {
  auto chosen = ChooseCudaDevice(0, 1, 0, {});
  ASSERT_FALSE(chosen.ok());
  EXPECT_THAT(chosen.status().message(), HasSubstr("no CUDA device"));
}

TEST(ChooseCudaDevice, OverrideWithOneDevice) {
  EXPECT_EQ(*ChooseCudaDevice(0, 1, 4, {3}), 3);
  EXPECT_EQ(*ChooseCudaDevice(2, 4, 4, {1}), 1);
}

TEST(ChooseCudaDevice, OverrideWithAListIndexedByLocalRank) {
  EXPECT_EQ(*ChooseCudaDevice(0, 2, 8, {6, 7}), 6);
  EXPECT_EQ(*ChooseCudaDevice(1, 2, 8, {6, 7}), 7);
  auto short_list = ChooseCudaDevice(2, 3, 8, {6, 7});
  ASSERT_FALSE(short_list.ok());
  EXPECT_THAT(short_list, IsInvalidArgument("lists 2 devices but local rank 2 needs one"));
}

TEST(ChooseCudaDevice, OverrideOutOfRange) {
  auto chosen = ChooseCudaDevice(0, 1, 2, {2});
  ASSERT_FALSE(chosen.ok());
  EXPECT_THAT(chosen, IsInvalidArgument("device 2 is not in [0, 2)"));
}

TEST(ChooseCudaDevice, BadLocalRank) {
  auto chosen = ChooseCudaDevice(4, 4, 8, {});
  ASSERT_FALSE(chosen.ok());
  EXPECT_THAT(chosen.status().message(), HasSubstr("local rank 4 is not in [0, 4)"));
}

TEST(CheckKokkosDevice, AgreesOrSaysHowToMakeItAgree) {
  EXPECT_TRUE(CheckKokkosDevice(2, 2, 2).ok());
  const absl::Status s = CheckKokkosDevice(3, 0, 3);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("local rank 3 should use CUDA device 3 but Kokkos was initialised on device 0"));
  EXPECT_THAT(s.message(), HasSubstr("--kokkos-device-id=3"));
  EXPECT_THAT(s.message(), HasSubstr("KCOLL_CUDA_DEVICE=0"));
}

TEST(FindSharedDevice, FirstPairOnOneGpu) {
  EXPECT_FALSE(FindSharedDevice({}).has_value());
  EXPECT_FALSE(FindSharedDevice({"0000:3b:00.0", "0000:5e:00.0"}).has_value());
  auto shared = FindSharedDevice({"0000:3b:00.0", "0000:5e:00.0", "0000:86:00.0", "0000:5e:00.0"});
  ASSERT_TRUE(shared.has_value());
  EXPECT_EQ(shared->first, 1);
  EXPECT_EQ(shared->second, 3);
  // Ranks that could not name their device are not reported as sharing one.
  EXPECT_FALSE(FindSharedDevice({"", "", "0000:3b:00.0"}).has_value());
}

TEST(NcclMayShareGpus, OnlyWhenNcclIsAskedTo) {
  {
    testing::ScopedEnv unset("NCCL_MULTI_RANK_GPU_ENABLE", nullptr);
    EXPECT_FALSE(NcclMayShareGpus());
  }
  {
    testing::ScopedEnv off("NCCL_MULTI_RANK_GPU_ENABLE", "0");
    EXPECT_FALSE(NcclMayShareGpus());
  }
  testing::ScopedEnv on("NCCL_MULTI_RANK_GPU_ENABLE", "1");
  EXPECT_TRUE(NcclMayShareGpus());
}

TEST(ParseFlag, Spellings) {
  for (const char* yes : {"1", "true", "YES", "On"}) EXPECT_TRUE(*ParseFlag(yes, "F")) << yes;
  for (const char* no : {"0", "false", "No", "off"}) EXPECT_FALSE(*ParseFlag(no, "F")) << no;
  auto bad = ParseFlag("maybe", "KCOLL_MPI_CUDA_AWARE");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("KCOLL_MPI_CUDA_AWARE: 'maybe'"));
}

TEST(TransportKind, NamesRoundTrip) {
  for (TransportKind k : {TransportKind::kMpi, TransportKind::kShm, TransportKind::kNccl, TransportKind::kCudaIpc}) {
    EXPECT_EQ(*ParseTransportKind(TransportKindName(k)), k);
  }
  EXPECT_EQ(*ParseTransportKind("NCCL"), TransportKind::kNccl);
  EXPECT_EQ(*ParseTransportKind("cuda_ipc"), TransportKind::kCudaIpc);
  auto bad = ParseTransportKind("gloo");
  ASSERT_FALSE(bad.ok());
  std::vector<std::string> listed;  // every transport of base/transport_kind.h, in its order
#define KCOLL_LISTED_TRANSPORT(enumerator, name, moves, node_memory, factory) listed.push_back(name);
  KCOLL_TRANSPORTS(KCOLL_LISTED_TRANSPORT)
#undef KCOLL_LISTED_TRANSPORT
  EXPECT_THAT(bad, IsInvalidArgument(absl::StrCat("'gloo' is not one of: ", absl::StrJoin(listed, ", "))));
  EXPECT_THAT(bad, IsInvalidArgument("mpi, shm, nccl"));  // the transports every build has
}

TEST(ChooseDevicePath, EveryTransportMemoryAndAwareness) {
  struct Case {
    TransportKind transport;
    MemoryKind memory;
    bool aware;
    DevicePath want;
  };
  const Case cases[] = {
      {TransportKind::kMpi, MemoryKind::kHost, false, DevicePath::kDirect},
      {TransportKind::kMpi, MemoryKind::kHost, true, DevicePath::kDirect},
      {TransportKind::kMpi, MemoryKind::kDevice, true, DevicePath::kDirect},
      {TransportKind::kMpi, MemoryKind::kDevice, false, DevicePath::kStaged},
      {TransportKind::kNccl, MemoryKind::kDevice, false, DevicePath::kDirect},
      {TransportKind::kNccl, MemoryKind::kDevice, true, DevicePath::kDirect},
      {TransportKind::kShm, MemoryKind::kHost, false, DevicePath::kDirect},
  };
  for (const Case& c : cases) {
    auto path = ChooseDevicePath(c.transport, c.memory, c.aware);
    ASSERT_TRUE(path.ok()) << path.status();
    EXPECT_EQ(*path, c.want) << TransportKindName(c.transport) << " memory=" << static_cast<int>(c.memory)
                             << " aware=" << c.aware << " got " << DevicePathName(*path);
  }
}

TEST(ChooseDevicePath, NcclCannotMoveHostBuffers) {
  for (bool aware : {false, true}) {
    auto path = ChooseDevicePath(TransportKind::kNccl, MemoryKind::kHost, aware);
    ASSERT_FALSE(path.ok());
    EXPECT_THAT(path, IsInvalidArgument("'nccl' moves device memory only"));
  }
}

TEST(ChooseDevicePath, SharedMemoryCannotMoveDeviceBuffers) {
  auto path = ChooseDevicePath(TransportKind::kShm, MemoryKind::kDevice, /*mpi_cuda_aware=*/true);
  ASSERT_FALSE(path.ok());
  EXPECT_THAT(path, IsInvalidArgument("'shm' moves host memory only"));
}

}  // namespace
}  // namespace kcoll
