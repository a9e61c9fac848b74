// NCCL host code that needs no GPU, run wherever NCCL is installed: error translation, the bootstrap message that
// carries the ncclUniqueId, device discovery, the NCCL peer's type and op mappings, and argument errors.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "bench/implementations/nccl_collectives.h"
#include "collectives/transport/cuda/cuda_errors.h"
#include "collectives/transport/nccl/nccl_bootstrap.h"
#include "collectives/transport/nccl/nccl_errors.h"
#include "collectives/transport/nccl/nccl_transport.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace {

TEST(NcclStatus, SuccessIsOk) { EXPECT_TRUE(NcclStatus(ncclSuccess, "ncclSend").ok()); }

TEST(NcclStatus, NamesTheCallTheResultAndItsDescription) {
  struct Case {
    ncclResult_t result;
    absl::StatusCode code;
    const char* name;
  };
  const Case cases[] = {
      {ncclUnhandledCudaError, absl::StatusCode::kInternal, "ncclUnhandledCudaError"},
      {ncclSystemError, absl::StatusCode::kUnavailable, "ncclSystemError"},
      {ncclInternalError, absl::StatusCode::kInternal, "ncclInternalError"},
      {ncclInvalidArgument, absl::StatusCode::kInvalidArgument, "ncclInvalidArgument"},
      {ncclInvalidUsage, absl::StatusCode::kFailedPrecondition, "ncclInvalidUsage"},
      {ncclRemoteError, absl::StatusCode::kUnavailable, "ncclRemoteError"},
      {ncclInProgress, absl::StatusCode::kUnavailable, "ncclInProgress"},
  };
  for (const Case& c : cases) {
    const absl::Status s = NcclStatus(c.result, "ncclAllReduce");
    EXPECT_EQ(s.code(), c.code) << c.name;
    EXPECT_THAT(std::string(s.message()), StartsWith(absl::StrCat("ncclAllReduce failed: ", c.name, ": ")));
    // NCCL's own description of the result follows the name.
    EXPECT_THAT(s.message(), HasSubstr(ncclGetErrorString(c.result)));
  }
}

TEST(NcclStatus, UnknownResultsAreInternal) {
  const absl::Status s = NcclStatus(static_cast<ncclResult_t>(99), "ncclGroupEnd");
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("ncclGroupEnd failed: ncclResult(unknown)"));
}

TEST(CudaStatus, NamesTheCallTheErrorAndItsDescription) {
  EXPECT_TRUE(CudaStatus(cudaSuccess, "cudaMemcpy").ok());
  const absl::Status invalid = CudaStatus(cudaErrorInvalidValue, "cudaMemcpyAsync(D2H)");
  EXPECT_EQ(invalid.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(invalid.message()), StartsWith("cudaMemcpyAsync(D2H) failed: cudaErrorInvalidValue: "));
  EXPECT_THAT(invalid.message(), HasSubstr(cudaGetErrorString(cudaErrorInvalidValue)));
  EXPECT_EQ(CudaStatus(cudaErrorMemoryAllocation, "cudaHostAlloc").code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(CudaStatus(cudaErrorNoDevice, "cudaSetDevice").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CudaStatus(cudaErrorInsufficientDriver, "cudaSetDevice").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CudaStatus(cudaErrorLaunchFailure, "cudaStreamSynchronize").code(), absl::StatusCode::kInternal);
}

TEST(CudaDeviceCount, CountsDevicesOrSaysWhyThereAreNone) {
  absl::StatusOr<int> count = CudaDeviceCount();
  if (count.ok()) {
    EXPECT_GT(*count, 0);
  } else {
    EXPECT_EQ(count.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(std::string(count.status().message()), StartsWith("no CUDA device: "));
    std::printf("[ INFO ] %s\n", std::string(count.status().message()).c_str());
  }
}

ncclUniqueId RealUniqueId() {
  ncclUniqueId id;
  std::memset(&id, 0, sizeof(id));
  // Creating an id needs no GPU (it names rank 0's bootstrap socket).
  EXPECT_EQ(ncclGetUniqueId(&id), ncclSuccess);
  return id;
}

int LocalVersion() {
  int version = 0;
  EXPECT_EQ(ncclGetVersion(&version), ncclSuccess);
  return version;
}

TEST(BootstrapMessage, RoundTripsTheUniqueId) {
  const ncclUniqueId id = RealUniqueId();
  const std::string message = EncodeBootstrapMessage(LocalVersion(), ncclSuccess, id);
  ASSERT_EQ(message.size(), kBootstrapMessageBytes);
  absl::StatusOr<ncclUniqueId> decoded = DecodeBootstrapMessage(message, LocalVersion());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(std::memcmp(decoded->internal, id.internal, sizeof(id.internal)), 0);
}

TEST(BootstrapMessage, LayoutIsLittleEndianHeaderThenId) {
  ncclUniqueId id;
  for (size_t i = 0; i < sizeof(id.internal); ++i) id.internal[i] = static_cast<char>(i * 7 + 1);
  const std::string m = EncodeBootstrapMessage(0x01020304, ncclSuccess, id);
  EXPECT_EQ(std::string(m.data(), 4), std::string("INCK", 4));  // magic 0x4b434e49, low byte first
  EXPECT_EQ(m[4], 0x04);
  EXPECT_EQ(m[7], 0x01);
  EXPECT_EQ(m[8], 0);
  EXPECT_EQ(std::memcmp(m.data() + 12, id.internal, sizeof(id.internal)), 0);
}

TEST(BootstrapMessage, RejectsWrongSizeAndMagic) {
  const std::string message = EncodeBootstrapMessage(LocalVersion(), ncclSuccess, RealUniqueId());
  auto truncated = DecodeBootstrapMessage(message.substr(0, 100), LocalVersion());
  ASSERT_FALSE(truncated.ok());
  EXPECT_THAT(truncated, IsInvalidArgument("has 100 bytes, expected 140"));
  std::string corrupt = message;
  corrupt[0] ^= 0x55;
  auto bad_magic = DecodeBootstrapMessage(corrupt, LocalVersion());
  ASSERT_FALSE(bad_magic.ok());
  EXPECT_THAT(bad_magic.status().message(), HasSubstr("magic"));
}

TEST(BootstrapMessage, ReportsRankZerosFailure) {
  const std::string message = EncodeBootstrapMessage(LocalVersion(), ncclSystemError, ncclUniqueId{});
  auto decoded = DecodeBootstrapMessage(message, LocalVersion());
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(decoded.status().message(), HasSubstr("rank 0 could not create the NCCL unique id"));
  EXPECT_THAT(decoded.status().message(), HasSubstr("ncclSystemError"));
}

TEST(BootstrapMessage, ReportsDifferentNcclLibraries) {
  const std::string message = EncodeBootstrapMessage(22809, ncclSuccess, RealUniqueId());
  auto decoded = DecodeBootstrapMessage(message, 21805);
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(decoded.status().message(), HasSubstr("rank 0 runs NCCL 2.28.9 but this rank runs NCCL 2.18.5"));
}

TEST(NcclTransport, AdoptRejectsANullCommunicator) {
  auto transport = NcclTransport::Adopt(nullptr, NcclTransportOptions{});
  ASSERT_FALSE(transport.ok());
  EXPECT_THAT(transport, IsInvalidArgument("null NCCL communicator"));
}

TEST(NcclPeer, EveryDataTypeMapsToNcclsTypeOfTheSameLayout) {
  const std::pair<DataType, ncclDataType_t> want[] = {
      {DataType::kInt8, ncclInt8},       {DataType::kUint8, ncclUint8},       {DataType::kInt32, ncclInt32},
      {DataType::kUint32, ncclUint32},   {DataType::kInt64, ncclInt64},       {DataType::kUint64, ncclUint64},
      {DataType::kFloat16, ncclFloat16}, {DataType::kBfloat16, ncclBfloat16}, {DataType::kFloat32, ncclFloat32},
      {DataType::kFloat64, ncclFloat64},
  };
  ASSERT_EQ(AllDataTypes().size(), sizeof(want) / sizeof(want[0]));
  for (const auto& [type, nccl] : want) {
    auto mapped = ToNcclDataType(type);
    ASSERT_TRUE(mapped.ok()) << DataTypeName(type);
    EXPECT_EQ(*mapped, nccl) << DataTypeName(type);
  }
  auto bad = ToNcclDataType(static_cast<DataType>(42));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad, IsInvalidArgument("type 42 is not a kcoll DataType"));
}

TEST(NcclPeer, EveryReduceOpMapsToNcclsOp) {
  const std::pair<ReduceOp, ncclRedOp_t> want[] = {
      {ReduceOp::kSum, ncclSum}, {ReduceOp::kProd, ncclProd}, {ReduceOp::kMin, ncclMin},
      {ReduceOp::kMax, ncclMax}, {ReduceOp::kAvg, ncclAvg},
  };
  ASSERT_EQ(AllReduceOps().size(), sizeof(want) / sizeof(want[0]));
  for (const auto& [op, nccl] : want) {
    auto mapped = ToNcclRedOp(op);
    ASSERT_TRUE(mapped.ok()) << ReduceOpName(op);
    EXPECT_EQ(*mapped, nccl) << ReduceOpName(op);
  }
  auto bad = ToNcclRedOp(static_cast<ReduceOp>(-1));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("op -1 is not a kcoll ReduceOp"));
}

TEST(NcclPeer, RejectsANullCommunicator) {
  const absl::Status s = RunNcclCollective(Collective::kAllReduce, nullptr, nullptr, 0, DataType::kFloat32,
                                           ReduceOp::kSum, 0, nullptr, nullptr);
  EXPECT_THAT(s, IsInvalidArgument("null NCCL communicator"));
  auto timed = TimeNcclCollective(Collective::kAllReduce, nullptr, nullptr, 0, DataType::kFloat32, ReduceOp::kSum, 0,
                                  nullptr, nullptr, 0);
  ASSERT_FALSE(timed.ok());
  EXPECT_THAT(timed.status().message(), HasSubstr("iterations: 0 is not positive"));
}

}  // namespace
}  // namespace kcoll
