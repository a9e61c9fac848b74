// The Kokkos kernels on every backend this Kokkos has, for every type and op: results compared bit for bit with
// values computed in double from exact small-integer inputs, with guard elements around each range to catch writes
// out of bounds, at n = 0, 1, odd and large, on sub-ranges that start off the allocation's alignment; on host
// backends both with ordinary stores and with streaming stores at every size (threshold 0); FoldInOrder against a chain
// of Reduce calls, and its 16-bit accumulation in float.
#include <stdlib.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/kernels/backend.h"
#include "collectives/kernels/exact_pair_kernels.h"
#include "collectives/kernels/streaming_stores.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/exact_values.h"
#include "tests/matchers.h"

namespace kcoll {
namespace testing {
namespace {

constexpr size_t kGuard = 5;
constexpr double kGuardValue = 1.0;

// Whether the kernels write with streaming stores: `true` sets the threshold to 0 (every size), `false` turns them off.
using Param = std::tuple<ExecBackend, DataType, ReduceOp, bool>;

absl::StatusOr<std::unique_ptr<Kernels>> KernelsFor(ExecBackend backend, bool streaming) {
  return MakeKernels(backend, /*synchronous=*/true, streaming ? 0 : kNoStreamingStores);
}

class ReduceKernelTest : public ::testing::TestWithParam<Param> {};

TEST_P(ReduceKernelTest, MatchesExactReductionOfTwoRanks) {
  const auto [backend, type, op, streaming] = GetParam();
  auto kernels = KernelsFor(backend, streaming);
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  const size_t size = DataTypeSize(type);
  // Streaming: 300007 elements are several of its 256 KiB pieces for every type, with a partial last block.
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{1000}, streaming ? size_t{300007} : size_t{100003}}) {
    for (size_t offset : {size_t{0}, size_t{3}}) {  // offset 3: a sub-range off the buffer's alignment
      const size_t total = offset + n + kGuard;
      std::vector<char> a(total * size), b(total * size), dst(total * size);
      for (size_t i = 0; i < total; ++i) {
        EncodeAt(type, a.data(), i, ExactInput(type, op, 0, i));
        EncodeAt(type, b.data(), i, ExactInput(type, op, 1, i));
        EncodeAt(type, dst.data(), i, kGuardValue);
      }
      char* d = dst.data() + offset * size;
      ASSERT_TRUE((*kernels)->Reduce(op, type, d, a.data() + offset * size, b.data() + offset * size, n).ok());
      if (op == ReduceOp::kAvg) {
        ASSERT_TRUE((*kernels)->Divide(type, d, n, 2).ok());
      }
      std::vector<char> expected(size);
      for (size_t i = 0; i < total; ++i) {
        const bool inside = i >= offset && i < offset + n;
        const double want = inside ? ExactReduction(type, op, 2, i) : kGuardValue;
        EncodeAt(type, expected.data(), 0, want);
        ASSERT_EQ(std::memcmp(expected.data(), dst.data() + i * size, size), 0)
            << "n=" << n << " offset=" << offset << " i=" << i << " want " << want << " got "
            << DecodeAt(type, dst.data(), i);
      }
    }
  }
}

TEST_P(ReduceKernelTest, InPlaceAccumulatesAcrossManyRanks) {
  const auto [backend, type, op, streaming] = GetParam();
  auto kernels = KernelsFor(backend, streaming);
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  constexpr int kRanks = 16;
  constexpr size_t kCount = 257;
  const size_t size = DataTypeSize(type);
  std::vector<char> acc(kCount * size), contribution(kCount * size);
  for (size_t i = 0; i < kCount; ++i) EncodeAt(type, acc.data(), i, ExactInput(type, op, 0, i));
  for (int r = 1; r < kRanks; ++r) {
    for (size_t i = 0; i < kCount; ++i) EncodeAt(type, contribution.data(), i, ExactInput(type, op, r, i));
    ASSERT_TRUE((*kernels)->Reduce(op, type, acc.data(), acc.data(), contribution.data(), kCount).ok());
  }
  if (op == ReduceOp::kAvg) {
    ASSERT_TRUE((*kernels)->Divide(type, acc.data(), kCount, kRanks).ok());
  }
  std::vector<char> expected(size);
  for (size_t i = 0; i < kCount; ++i) {
    EncodeAt(type, expected.data(), 0, ExactReduction(type, op, kRanks, i));
    ASSERT_EQ(std::memcmp(expected.data(), acc.data() + i * size, size), 0) << "i=" << i;
  }
}

std::vector<Param> AllParams() {
  std::vector<Param> out;
  for (ExecBackend b : AvailableBackends()) {
    if (b == ExecBackend::kCuda) continue;  // host buffers only in this test
    for (DataType t : AllDataTypes()) {
      for (ReduceOp op : AllReduceOps()) {
        for (bool streaming : {false, true}) out.emplace_back(b, t, op, streaming);
      }
    }
  }
  return out;
}

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  return absl::StrCat(ExecBackendName(std::get<0>(info.param)), "_", DataTypeName(std::get<1>(info.param)), "_",
                      ReduceOpName(std::get<2>(info.param)), std::get<3>(info.param) ? "_streaming" : "");
}

INSTANTIATE_TEST_SUITE_P(AllBackendsTypesOps, ReduceKernelTest, ::testing::ValuesIn(AllParams()), ParamName);

class CopyKernelTest : public ::testing::TestWithParam<ExecBackend> {};

TEST_P(CopyKernelTest, CopiesExactlyTheRange) {
  for (bool streaming : {false, true}) {
    auto kernels = KernelsFor(GetParam(), streaming);
    ASSERT_TRUE(kernels.ok()) << kernels.status();
    // Odd sizes and offsets: the streaming path's unaligned head, 64- and 16-byte loops, tail and 256 KiB pieces.
    for (size_t bytes : {size_t{0}, size_t{1}, size_t{13}, size_t{79}, size_t{4096}, size_t{1000003}}) {
      for (size_t offset : {size_t{1}, size_t{16}}) {
        std::vector<unsigned char> src(bytes + 2 * offset), dst(bytes + 2 * offset, 0xee);
        for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
        // Streaming stores write parts of larger destinations (a whole copy is memcpy's): say it is one.
        const size_t destination = streaming ? bytes + 1 : bytes;
        ASSERT_TRUE((*kernels)->Copy(dst.data() + offset, src.data() + offset, bytes, destination).ok());
        EXPECT_EQ(dst[offset - 1], 0xee);
        EXPECT_EQ(dst[bytes + offset], 0xee);
        EXPECT_EQ(std::memcmp(dst.data() + offset, src.data() + offset, bytes), 0)
            << bytes << " bytes at offset " << offset << (streaming ? " streaming" : "");
      }
    }
  }
}

TEST_P(CopyKernelTest, APartOfALargeDestinationIsCopiedExactlyWithTheDefaultThreshold) {
  // A small copy into a destination at the default threshold takes the streaming path (where the CPU has it).
  auto kernels = MakeKernels(GetParam(), /*synchronous=*/true, DefaultStreamingStoreMinBytes());
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  std::vector<unsigned char> src(1027), dst(1029, 0xee);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 13 + 5);
  ASSERT_TRUE((*kernels)->Copy(dst.data() + 1, src.data(), src.size(), DefaultStreamingStoreMinBytes()).ok());
  EXPECT_EQ(dst[0], 0xee);
  EXPECT_EQ(dst[1028], 0xee);
  EXPECT_EQ(std::memcmp(dst.data() + 1, src.data(), src.size()), 0);
}

TEST(StreamingStores, ParsesTheSettingAndNamesABadOne) {
  EXPECT_EQ(*ParseStreamingStoreMinBytes("off", "X"), kNoStreamingStores);
  EXPECT_EQ(*ParseStreamingStoreMinBytes("ON", "X"), 0u);
  EXPECT_EQ(*ParseStreamingStoreMinBytes("8M", "X"), size_t{8} << 20);
  EXPECT_EQ(*ParseStreamingStoreMinBytes("65536", "X"), 65536u);
  const absl::StatusOr<size_t> bad = ParseStreamingStoreMinBytes("fast", "KCOLL_STREAMING_STORES");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("KCOLL_STREAMING_STORES 'fast'"));
}

TEST(StreamingStores, MakeKernelsRefusesABadEnvironmentSetting) {
  ASSERT_EQ(setenv("KCOLL_STREAMING_STORES", "-3", 1), 0);
  auto kernels = MakeKernels(ExecBackend::kSerial);
  unsetenv("KCOLL_STREAMING_STORES");
  ASSERT_FALSE(kernels.ok());
  EXPECT_EQ(kernels.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(kernels.status().message(), HasSubstr("KCOLL_STREAMING_STORES '-3'"));
  ASSERT_EQ(setenv("KCOLL_STREAMING_STORES", "off", 1), 0);
  auto off = MakeKernels(ExecBackend::kSerial);
  unsetenv("KCOLL_STREAMING_STORES");
  EXPECT_TRUE(off.ok()) << off.status();
}

TEST_P(CopyKernelTest, ScratchGrowsAndKeepsItsSlot) {
  auto kernels = MakeKernels(GetParam());
  ASSERT_TRUE(kernels.ok());
  auto small = (*kernels)->Scratch(0, 64);
  ASSERT_TRUE(small.ok());
  auto same = (*kernels)->Scratch(0, 32);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*small, *same);  // no reallocation when the buffer is already large enough
  auto other = (*kernels)->Scratch(1, 64);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(*other, *small);
  auto large = (*kernels)->Scratch(0, 1 << 20);
  ASSERT_TRUE(large.ok());
  std::memset(*large, 1, 1 << 20);  // the whole range is writable
}

TEST_P(CopyKernelTest, RejectsInvalidTypeOpAndDivisor) {
  auto kernels = MakeKernels(GetParam());
  ASSERT_TRUE(kernels.ok());
  int x = 1;
  EXPECT_THAT((*kernels)->Reduce(ReduceOp::kSum, static_cast<DataType>(99), &x, &x, &x, 1).message(),
              HasSubstr("type 99"));
  EXPECT_THAT((*kernels)->Reduce(static_cast<ReduceOp>(42), DataType::kInt32, &x, &x, &x, 1).message(),
              HasSubstr("op 42"));
  EXPECT_THAT((*kernels)->Divide(DataType::kInt32, &x, 1, 0).message(), HasSubstr("divisor 0"));
}

TEST_P(CopyKernelTest, FoldInOrderGivesAChainOfReducesBitsAndRoundsHalvesOnce) {
  auto made = MakeKernels(GetParam());
  ASSERT_TRUE(made.ok()) << made.status();
  Kernels& kernels = **made;
  // Terms whose order shows in the last bits: 5 terms of 3 elements, `stride` 4 apart (one element of padding).
  const double d[5][4] = {{1e16, 0.1, -3.5e-9, 0},
                          {1.0, 0.2, 7.25e-9, 0},
                          {-1e16, 0.3, 1e-3, 0},
                          {1.0, -0.6, -1e-3, 0},
                          {3.0, 1e-17, 2.0, 0}};
  std::vector<double> terms(20), fold(3), chain(3);
  std::vector<float> terms32(20), fold32(3), chain32(3);
  for (int k = 0; k < 5; ++k) {
    for (int i = 0; i < 4; ++i) {
      terms[k * 4 + i] = d[k][i];
      terms32[k * 4 + i] = static_cast<float>(d[k][i]);
    }
  }
  ASSERT_TRUE(kernels.FoldInOrder(ReduceOp::kSum, DataType::kFloat64, fold.data(), terms.data(), 4, 3, 5).ok());
  ASSERT_TRUE(kernels.FoldInOrder(ReduceOp::kSum, DataType::kFloat32, fold32.data(), terms32.data(), 4, 3, 5).ok());
  ASSERT_TRUE(kernels.Reduce(ReduceOp::kSum, DataType::kFloat64, chain.data(), &terms[0], &terms[4], 3).ok());
  ASSERT_TRUE(kernels.Reduce(ReduceOp::kSum, DataType::kFloat32, chain32.data(), &terms32[0], &terms32[4], 3).ok());
  for (int k = 2; k < 5; ++k) {
    ASSERT_TRUE(kernels.Reduce(ReduceOp::kSum, DataType::kFloat64, chain.data(), chain.data(), &terms[k * 4], 3).ok());
    ASSERT_TRUE(
        kernels.Reduce(ReduceOp::kSum, DataType::kFloat32, chain32.data(), chain32.data(), &terms32[k * 4], 3).ok());
  }
  EXPECT_EQ(std::memcmp(fold.data(), chain.data(), sizeof(double) * 3), 0);
  EXPECT_EQ(std::memcmp(fold32.data(), chain32.data(), sizeof(float) * 3), 0);
  EXPECT_EQ(fold[0], 4.0);  // 1e16 + 1 rounds to 1e16: the order is the chain's, not the exact sum 5

  // 16-bit floats: 2048 + 1 + 1 + 1 in float16 rounds to 2048 at every step, and once to 2052 when accumulated in
  // float; bfloat16 likewise 256 + 1 + 1 + 1: 256 step by step, 260 rounded once.
  const Float16 h[4] = {ToFloat16(2048.0f), ToFloat16(1.0f), ToFloat16(1.0f), ToFloat16(1.0f)};
  const Bfloat16 b[4] = {ToBfloat16(256.0f), ToBfloat16(1.0f), ToBfloat16(1.0f), ToBfloat16(1.0f)};
  Float16 h_out = h[0];  // in place: dst is the first term
  Bfloat16 b_out;
  ASSERT_TRUE(kernels.FoldInOrder(ReduceOp::kSum, DataType::kFloat16, &h_out, h, 1, 1, 4).ok());
  ASSERT_TRUE(kernels.FoldInOrder(ReduceOp::kSum, DataType::kBfloat16, &b_out, b, 1, 1, 4).ok());
  EXPECT_EQ(ToFloat(h_out), 2052.0f);
  EXPECT_EQ(ToFloat(b_out), 260.0f);
  // One term copies.
  double one = 0;
  ASSERT_TRUE(kernels.FoldInOrder(ReduceOp::kMax, DataType::kFloat64, &one, &terms[1], 4, 1, 1).ok());
  EXPECT_EQ(one, 0.1);

  int x = 1;
  EXPECT_THAT(kernels.FoldInOrder(ReduceOp::kSum, DataType::kInt32, &x, &x, 1, 1, 0), IsInvalidArgument("terms 0"));
  EXPECT_THAT(kernels.FoldInOrder(ReduceOp::kSum, static_cast<DataType>(99), &x, &x, 1, 1, 2),
              IsInvalidArgument("type 99"));
  EXPECT_THAT(kernels.FoldInOrder(static_cast<ReduceOp>(42), DataType::kInt32, &x, &x, 1, 1, 2),
              IsInvalidArgument("op 42"));
}

TEST_P(CopyKernelTest, ExactFoldSumsExactlyAndNamesItsErrors) {
  auto made = MakeKernels(GetParam());
  ASSERT_TRUE(made.ok()) << made.status();
  Kernels& kernels = **made;
  // 3 terms of 2 elements, stride 2: 1e16 + 1 - 1e16 is 1 (a chain gives 0), 1 + 2^-60 - 1 is 2^-60.
  const double terms[6] = {1e16, 1.0, 1.0, std::ldexp(1.0, -60), -1e16, -1.0};
  double out[2];
  ASSERT_TRUE(kernels.ExactFold(DataType::kFloat64, out, terms, 2, 2, 3, 3).ok());
  EXPECT_EQ(out[0], 1.0);
  EXPECT_EQ(out[1], std::ldexp(1.0, -60));
  // The prefix of 2 in the window of all 3: the same as the host's exact sum.
  double prefix = 0;
  ASSERT_TRUE(kernels.ExactFold(DataType::kFloat64, &prefix, terms, 2, 1, 3, 2).ok());
  EXPECT_EQ(prefix, 1e16 + 1.0);
  double x = 1;
  EXPECT_THAT(kernels.ExactFold(DataType::kFloat64, &x, &x, 1, 1, 2, 3), IsInvalidArgument("sum_terms 3"));
  EXPECT_THAT(kernels.ExactFold(DataType::kFloat64, &x, &x, 1, 1, 2, 0), IsInvalidArgument("sum_terms 0"));
  int32_t i = 1;
  EXPECT_THAT(kernels.ExactFold(DataType::kInt32, &i, &i, 1, 1, 1, 1), IsInvalidArgument("not a floating-point type"));
}

TEST_P(CopyKernelTest, ExactSumOfTwoIsTheExactFoldOfTheTwo) {
  auto made = MakeKernels(GetParam());
  ASSERT_TRUE(made.ok()) << made.status();
  Kernels& kernels = **made;
  // 1 and half its ulp plus 2^-80: IEEE rounds up, the exact sum drops 2^-80 and rounds the tie to even (1). 19
  // elements: the vector path's lanes and its tail; a NaN and an infinity among them.
  std::vector<double> a(19), b(19), want(19), got(19);
  std::vector<float> af(19), bf(19), wantf(19), gotf(19);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = std::ldexp(1.0, static_cast<int>(i));
    b[i] = std::ldexp(1.0 + std::ldexp(1.0, -27), static_cast<int>(i) - 53);
    af[i] = static_cast<float>(a[i]);
    bf[i] = std::ldexp(1.0f + std::ldexp(1.0f, -23), static_cast<int>(i) - 24);
  }
  a[5] = std::nan("");
  b[11] = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < a.size(); ++i) {
    const double two[2] = {a[i], b[i]};
    const float twof[2] = {af[i], bf[i]};
    ASSERT_TRUE(kernels.ExactFold(DataType::kFloat64, &want[i], two, 1, 1, 2, 2).ok());
    ASSERT_TRUE(kernels.ExactFold(DataType::kFloat32, &wantf[i], twof, 1, 1, 2, 2).ok());
  }
  EXPECT_EQ(want[3], 8.0);
  EXPECT_NE(a[3] + b[3], want[3]);  // the data tells an exact sum from IEEE's
  ASSERT_TRUE(kernels.ExactSumOfTwo(DataType::kFloat64, got.data(), a.data(), b.data(), a.size()).ok());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), sizeof(double) * got.size()), 0);
  ASSERT_TRUE(kernels.ExactSumOfTwo(DataType::kFloat64, b.data(), b.data(), a.data(), a.size()).ok());  // into b
  EXPECT_EQ(std::memcmp(b.data(), want.data(), sizeof(double) * got.size()), 0);
  ASSERT_TRUE(kernels.ExactSumOfTwo(DataType::kFloat32, gotf.data(), af.data(), bf.data(), af.size()).ok());
  EXPECT_EQ(std::memcmp(gotf.data(), wantf.data(), sizeof(float) * gotf.size()), 0);
  EXPECT_NE(af[3] + bf[3], wantf[3]);
  int32_t i = 1;
  EXPECT_THAT(kernels.ExactSumOfTwo(DataType::kInt32, &i, &i, &i, 1), IsInvalidArgument("not a floating-point type"));
}

TEST_P(CopyKernelTest, ExactPairKernelsMakeOnlyFloatingSumsExact) {
  auto made = MakeKernels(GetParam());
  ASSERT_TRUE(made.ok()) << made.status();
  ExactPairKernels pairs(**made);
  // A sum and an average's sum of doubles: the exact sum of the two (1 plus half its ulp plus 2^-80 rounds to 1).
  const double a[2] = {1.0, 4.0}, b[2] = {std::ldexp(1.0 + std::ldexp(1.0, -27), -53), 3.0};
  double out[2];
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg}) {
    ASSERT_TRUE(pairs.Reduce(op, DataType::kFloat64, out, a, b, 2).ok());
    EXPECT_EQ(out[0], 1.0);
    EXPECT_EQ(out[1], 7.0);
  }
  EXPECT_NE(a[0] + b[0], 1.0);
  // A fold of the two as rows 1 apart; of three, an error rather than a chain of sums.
  const double rows[2] = {a[0], b[0]};
  ASSERT_TRUE(pairs.FoldInOrder(ReduceOp::kSum, DataType::kFloat64, out, rows, 1, 1, 2).ok());
  EXPECT_EQ(out[0], 1.0);
  const absl::Status three = pairs.FoldInOrder(ReduceOp::kSum, DataType::kFloat64, out, rows, 0, 1, 3);
  EXPECT_EQ(three.code(), absl::StatusCode::kInternal) << three;
  EXPECT_THAT(three.message(), HasSubstr("3 terms"));
  // Everything else passes through: max, integer sums.
  ASSERT_TRUE(pairs.Reduce(ReduceOp::kMax, DataType::kFloat64, out, a, b, 2).ok());
  EXPECT_EQ(out[0], 1.0);
  EXPECT_EQ(out[1], 4.0);
  const int32_t ia[2] = {3, -5}, ib[2] = {4, 9};
  int32_t iout[2];
  ASSERT_TRUE(pairs.Reduce(ReduceOp::kSum, DataType::kInt32, iout, ia, ib, 2).ok());
  EXPECT_EQ(iout[0], 7);
  EXPECT_EQ(iout[1], 4);
  EXPECT_EQ(pairs.name(), (*made)->name());
}

// The host backends this Kokkos has: a Serial+CUDA Kokkos has no OpenMP to test.
std::vector<ExecBackend> HostBackendsOfThisKokkos() {
  std::vector<ExecBackend> out;
  for (ExecBackend b : {ExecBackend::kSerial, ExecBackend::kOpenMP}) {
    if (IsAvailable(b)) out.push_back(b);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(HostBackends, CopyKernelTest, ::testing::ValuesIn(HostBackendsOfThisKokkos()),
                         [](const ::testing::TestParamInfo<ExecBackend>& info) {
                           return std::string(ExecBackendName(info.param));
                         });

TEST(Backend, ParsesNamesAndRejectsUnknown) {
  EXPECT_EQ(*ParseExecBackend("OpenMP"), ExecBackend::kOpenMP);
  EXPECT_THAT(ParseExecBackend("sycl").status().message(), HasSubstr("'sycl'"));
}

TEST(Backend, UnavailableBackendIsAClearError) {
  if (IsAvailable(ExecBackend::kCuda)) GTEST_SKIP() << "this Kokkos has CUDA";
  auto kernels = MakeKernels(ExecBackend::kCuda);
  ASSERT_FALSE(kernels.ok());
  EXPECT_THAT(kernels.status().message(), HasSubstr("'cuda' is not enabled"));
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
