// The CUDA IPC transport's settings (KCOLL_CUDA_IPC_SLOTS, KCOLL_CUDA_IPC_SLOT_BYTES, KCOLL_CUDA_IPC_ACROSS):
// defaults, sizes with units, and every refusal naming the setting and its value. Read on every machine: no GPU is
// touched.
#include "absl/strings/str_cat.h"
#include "collectives/transport/cuda_ipc/cuda_ipc_execution.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace {

using testing::ScopedEnv;

class CudaIpcSettingsTest : public ::testing::Test {
 protected:
  ScopedEnv slots_{"KCOLL_CUDA_IPC_SLOTS", nullptr};
  ScopedEnv slot_bytes_{"KCOLL_CUDA_IPC_SLOT_BYTES", nullptr};
  ScopedEnv across_{"KCOLL_CUDA_IPC_ACROSS", nullptr};
};

TEST_F(CudaIpcSettingsTest, BetweenNodesMpiUnlessNcclIsNamed) {
  absl::StatusOr<TransportKind> across = CrossNodeTransportFromEnv();
  ASSERT_TRUE(across.ok()) << across.status();
  EXPECT_EQ(*across, TransportKind::kMpi);
  {
    ScopedEnv nccl("KCOLL_CUDA_IPC_ACROSS", "NCCL");
    across = CrossNodeTransportFromEnv();
    ASSERT_TRUE(across.ok()) << across.status();
    EXPECT_EQ(*across, TransportKind::kNccl);
  }
  for (const char* refused : {"shm", "cuda_ipc", "tcp"}) {
    ScopedEnv bad("KCOLL_CUDA_IPC_ACROSS", refused);
    EXPECT_THAT(CrossNodeTransportFromEnv(),
                IsInvalidArgument(absl::StrCat("KCOLL_CUDA_IPC_ACROSS: '", refused, "' is not a way between nodes")))
        << refused;
  }
}

TEST_F(CudaIpcSettingsTest, DefaultsAreFourSlotsOfOneMebibyte) {
  absl::StatusOr<cuda_ipc::ChannelShape> shape = ChannelShapeFromEnv();
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->slots, 4);
  EXPECT_EQ(shape->slot_bytes, size_t{1} << 20);
}

TEST_F(CudaIpcSettingsTest, SizesTakeUnits) {
  ScopedEnv slots("KCOLL_CUDA_IPC_SLOTS", "8");
  ScopedEnv bytes("KCOLL_CUDA_IPC_SLOT_BYTES", "256K");
  absl::StatusOr<cuda_ipc::ChannelShape> shape = ChannelShapeFromEnv();
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->slots, 8);
  EXPECT_EQ(shape->slot_bytes, size_t{256} << 10);
}

TEST_F(CudaIpcSettingsTest, RefusalsNameTheSettingAndValue) {
  {
    ScopedEnv slots("KCOLL_CUDA_IPC_SLOTS", "0");
    EXPECT_THAT(ChannelShapeFromEnv(), IsInvalidArgument("KCOLL_CUDA_IPC_SLOTS: '0' is not in [1, 64]"));
  }
  {
    ScopedEnv slots("KCOLL_CUDA_IPC_SLOTS", "65");
    EXPECT_THAT(ChannelShapeFromEnv(), IsInvalidArgument("KCOLL_CUDA_IPC_SLOTS: '65' is not in [1, 64]"));
  }
  {
    ScopedEnv slots("KCOLL_CUDA_IPC_SLOTS", "many");
    EXPECT_THAT(ChannelShapeFromEnv(), IsInvalidArgument("KCOLL_CUDA_IPC_SLOTS: "));
  }
  {
    ScopedEnv bytes("KCOLL_CUDA_IPC_SLOT_BYTES", "2G");
    EXPECT_THAT(ChannelShapeFromEnv(), IsInvalidArgument("KCOLL_CUDA_IPC_SLOT_BYTES: '2G' is not in [1, 1073741824]"));
  }
}

}  // namespace
}  // namespace kcoll
