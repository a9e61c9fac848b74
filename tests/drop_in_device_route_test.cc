// The drop-in library's device route agreement (mpi_drop_in/device_route.h, comm_registry.h): the ranks take the
// device route together or not at all. Its communicator is made by every rank or used by none, made once per MPI
// communicator, and a call where one rank's buffers do not qualify stays on the host route everywhere. What the device
// communicator runs needs a GPU (tools/gpu_node_checks.sh); here the factory is the test's.
#include <mpi.h>

#include <memory>

#include "absl/status/statusor.h"
#include "collectives/communicator.h"
#include "gtest/gtest.h"
#include "mpi_drop_in/comm_registry.h"
#include "mpi_drop_in/device_route.h"
#include "mpi_drop_in/reentry.h"

namespace kcoll::drop_in {
namespace {

// A communicator of its own for each test, with the library's kcoll communicator made (as a first blocking call does).
class DeviceRouteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    PMPI_Comm_rank(comm_, &rank_);
    PMPI_Comm_size(comm_, &size_);
    if (size_ < 2) GTEST_SKIP() << "one rank: the library makes no kcoll communicator";
    host_ = RouteOf(comm_).kcoll;
    ASSERT_NE(host_, nullptr) << "the library made no kcoll communicator";
  }
  void TearDown() override { PMPI_Comm_free(&comm_); }  // releases the kcoll communicators (the attribute's callback)

  MPI_Comm comm_ = MPI_COMM_NULL;
  Communicator* host_ = nullptr;
  int rank_ = 0, size_ = 1;
};

using Made = absl::StatusOr<std::unique_ptr<Communicator>>;

TEST_F(DeviceRouteTest, MadeOnEveryRankIsUsedOnEveryRankAndMadeOnce) {
  EnterKcoll inside;
  int made = 0;
  auto make = [&]() -> Made {
    ++made;
    return Communicator::Create(comm_);  // a host communicator stands in for the device one
  };
  Communicator* device = DeviceCommunicatorOf(comm_, make);
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(DeviceCommunicatorOf(comm_, make), device);
  EXPECT_EQ(made, 1);
  // It works as a communicator of the same ranks.
  int mine = rank_ + 1, sum = 0;
  ASSERT_TRUE(device->AllReduce(&mine, &sum, 1, DataType::kInt32, ReduceOp::kSum).ok());
  EXPECT_EQ(sum, size_ * (size_ + 1) / 2);
}

TEST_F(DeviceRouteTest, NotMadeOnOneRankIsUsedOnNone) {
  EnterKcoll inside;
  int made = 0;
  // The last rank's communicator fails after the others' succeeded (a communicator's creation is collective: it is
  // made everywhere, then refused there), and is finalised after the agreement, as the others finalise theirs.
  std::unique_ptr<Communicator> refused;
  auto make = [&]() -> Made {
    ++made;
    Made c = Communicator::Create(comm_);
    if (rank_ != size_ - 1 || !c.ok()) return c;
    refused = *std::move(c);
    return absl::UnavailableError("this rank has no device (the test says so)");
  };
  EXPECT_EQ(DeviceCommunicatorOf(comm_, make), nullptr);
  if (refused != nullptr) {
    ASSERT_TRUE(refused->Finalize().ok());
  }
  EXPECT_EQ(DeviceCommunicatorOf(comm_, make), nullptr);  // not tried again
  EXPECT_EQ(made, 1);
  // The host communicator is unharmed.
  int mine = 1, sum = 0;
  ASSERT_TRUE(host_->AllReduce(&mine, &sum, 1, DataType::kInt32, ReduceOp::kSum).ok());
  EXPECT_EQ(sum, size_);
}

TEST_F(DeviceRouteTest, OneRankWhoseBuffersDoNotQualifyKeepsEveryRankOnTheHostRoute) {
  EnterKcoll inside;
  for (int odd_one = 0; odd_one < size_; ++odd_one) {
    EXPECT_EQ(AgreeOnDeviceRoute(comm_, host_, /*mine=*/rank_ != odd_one), nullptr) << "odd one out: rank " << odd_one;
  }
  EXPECT_EQ(AgreeOnDeviceRoute(comm_, host_, /*mine=*/false), nullptr);
}

TEST_F(DeviceRouteTest, WithoutCudaKernelsEvenAgreedCallsStayOnTheHostRoute) {
  if (DeviceRouteOn()) GTEST_SKIP() << "KCOLL_MPI_DEVICE asks for the device route and this build can take it";
  EnterKcoll inside;
  // Every rank's buffers qualify, but no device communicator can be made: every rank learns it alike.
  EXPECT_EQ(AgreeOnDeviceRoute(comm_, host_, /*mine=*/true), nullptr);
  EXPECT_EQ(AgreeOnDeviceRoute(comm_, host_, /*mine=*/true), nullptr);
}

TEST(ContiguousBytesTest, CountsBytesOfContiguousTypesOnly) {
  EXPECT_EQ(ContiguousBytes(10, MPI_DOUBLE), 80u);
  EXPECT_EQ(ContiguousBytes(0, MPI_INT), 0u);
  EXPECT_EQ(ContiguousBytes(-1, MPI_INT), std::nullopt);
  EXPECT_EQ(ContiguousBytes(1, MPI_DATATYPE_NULL), std::nullopt);
  MPI_Datatype strided, block;
  PMPI_Type_vector(4, 1, 2, MPI_INT, &strided);
  PMPI_Type_commit(&strided);
  EXPECT_EQ(ContiguousBytes(1, strided), std::nullopt);
  PMPI_Type_contiguous(3, MPI_INT, &block);
  PMPI_Type_commit(&block);
  EXPECT_EQ(ContiguousBytes(2, block), 24u);
  PMPI_Type_free(&strided);
  PMPI_Type_free(&block);
}

}  // namespace
}  // namespace kcoll::drop_in
