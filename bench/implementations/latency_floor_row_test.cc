// The latency floor's row: an AllReduce sum of up to one line's payload, in and out of place, exact for small
// integers and, for floats of mixed magnitudes, the bits of the sum taken in rank order, the same on every rank; every
// call it cannot run is Unimplemented, naming why.
#include "bench/implementations/latency_floor_row.h"

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace bench {
namespace {

using ::kcoll::testing::WorldRank;
using ::kcoll::testing::WorldSize;

Call AllReduce(DataType type, size_t count, const void* send, void* recv) {
  Call c;
  c.collective = Collective::kAllReduce;
  c.type = type;
  c.op = ReduceOp::kSum;
  c.layout.count = c.layout.send_count = c.layout.recv_count = count;
  c.layout.bytes = count * DataTypeSize(type);
  c.send = send;
  c.recv = recv;
  c.in_place = send == recv;
  return c;
}

// Whether every rank holds the same `bytes` at `data`.
bool SameOnEveryRank(const void* data, size_t bytes) {
  std::vector<unsigned char> first(bytes);
  std::memcpy(first.data(), data, bytes);
  MPI_Bcast(first.data(), static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD);
  int differs = std::memcmp(first.data(), data, bytes) != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &differs, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return differs == 0;
}

template <typename T>
void ExpectSmallIntegerSums(Implementation& row, DataType type) {
  for (size_t count = 1; count * sizeof(T) <= kLatencyFloorRowMaxBytes; ++count) {
    for (bool in_place : {false, true}) {
      std::vector<T> send(count), recv(count, T(0)), expected(count, T(0));
      for (size_t i = 0; i < count; ++i) {
        send[i] = static_cast<T>(WorldRank() + 1 + i);
        for (int r = 0; r < WorldSize(); ++r) expected[i] = static_cast<T>(expected[i] + static_cast<T>(r + 1 + i));
      }
      void* out = in_place ? static_cast<void*>(send.data()) : recv.data();
      ASSERT_TRUE(row.Run(AllReduce(type, count, send.data(), out)).ok()) << DataTypeName(type) << " x" << count;
      EXPECT_EQ(std::memcmp(out, expected.data(), count * sizeof(T)), 0)
          << DataTypeName(type) << " x" << count << (in_place ? " in place" : " out of place");
    }
  }
}

TEST(LatencyFloorRowTest, SumsSmallIntegersExactlyInAndOutOfPlace) {
  absl::StatusOr<std::unique_ptr<Implementation>> row = MakeLatencyFloorRow(MPI_COMM_WORLD);
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ((*row)->name(), "latency_floor");
  EXPECT_TRUE((*row)->is_peer());
  ExpectSmallIntegerSums<int8_t>(**row, DataType::kInt8);
  ExpectSmallIntegerSums<uint8_t>(**row, DataType::kUint8);
  ExpectSmallIntegerSums<int32_t>(**row, DataType::kInt32);
  ExpectSmallIntegerSums<uint32_t>(**row, DataType::kUint32);
  ExpectSmallIntegerSums<int64_t>(**row, DataType::kInt64);
  ExpectSmallIntegerSums<uint64_t>(**row, DataType::kUint64);
  ExpectSmallIntegerSums<float>(**row, DataType::kFloat32);
  ExpectSmallIntegerSums<double>(**row, DataType::kFloat64);
}

// Values of wide exponents and both signs, seeded per rank: the row's result is the sum in rank order, bit for bit,
// and the same bits on every rank.
TEST(LatencyFloorRowTest, FloatSumsAreTheRankOrderSumOnEveryRank) {
  absl::StatusOr<std::unique_ptr<Implementation>> row = MakeLatencyFloorRow(MPI_COMM_WORLD);
  ASSERT_TRUE(row.ok()) << row.status();
  constexpr size_t kCount = kLatencyFloorRowMaxBytes / sizeof(double);
  std::vector<std::vector<double>> all(WorldSize(), std::vector<double>(kCount));
  for (int r = 0; r < WorldSize(); ++r) {
    std::mt19937_64 random(1234 + r);
    std::uniform_real_distribution<double> mantissa(-1, 1);
    std::uniform_int_distribution<int> exponent(-30, 30);
    for (double& v : all[r]) v = std::ldexp(mantissa(random), exponent(random));
  }
  std::vector<double> expected = all[0];
  for (int r = 1; r < WorldSize(); ++r) {
    for (size_t i = 0; i < kCount; ++i) expected[i] += all[r][i];
  }
  std::vector<double> send = all[WorldRank()], recv(kCount);
  ASSERT_TRUE((*row)->Run(AllReduce(DataType::kFloat64, kCount, send.data(), recv.data())).ok());
  EXPECT_EQ(std::memcmp(recv.data(), expected.data(), sizeof(double) * kCount), 0);
  EXPECT_TRUE(SameOnEveryRank(recv.data(), sizeof(double) * kCount));
}

TEST(LatencyFloorRowTest, CallsItCannotRunAreUnimplementedSayingWhy) {
  absl::StatusOr<std::unique_ptr<Implementation>> row = MakeLatencyFloorRow(MPI_COMM_WORLD);
  ASSERT_TRUE(row.ok()) << row.status();
  std::vector<double> send(8), recv(8);
  auto expect = [&](const Call& c, const std::string& why) {
    const absl::Status s = (*row)->Run(c);
    EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(why));
  };
  Call too_big = AllReduce(DataType::kFloat64, 8, send.data(), recv.data());
  expect(too_big, "64 bytes are over its 56");
  Call max = AllReduce(DataType::kFloat64, 1, send.data(), recv.data());
  max.op = ReduceOp::kMax;
  expect(max, "op max is not sum");
  Call broadcast = AllReduce(DataType::kFloat64, 1, send.data(), recv.data());
  broadcast.collective = Collective::kBroadcast;
  broadcast.op.reset();
  expect(broadcast, "not broadcast");
  expect(AllReduce(DataType::kFloat16, 2, send.data(), recv.data()), "not float16");
  // The row is still in step on every rank after the refusals (none of them published).
  ASSERT_TRUE((*row)->Run(AllReduce(DataType::kFloat64, 1, send.data(), recv.data())).ok());
}

}  // namespace
}  // namespace bench
}  // namespace kcoll
