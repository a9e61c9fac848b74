// numerics=exact on data that rounding changes (bench/data/rounding_data.h: wide exponents, mixed signs, large terms
// that cancel). Every rank regenerates every term from a seed, and the expected bits are the terms' exact sum computed
// on one rank, with no communication (HostExactSum, itself checked against a big-integer reference in exact_sum_test):
// - The same pool of terms spread over this run's ranks, in an order and grouping that depend on the rank count, and
//   summed through ExactAccumulator: the bytes of the one-rank sum, so runs on 1 to 16 ranks agree with each other.
//   A negative control: the pool's ordinary double sum changes with the order on this data.
// - AllReduce, Reduce, ReduceScatter(V), Scan and ExScan with numerics=exact (one term per rank): every size (the
//   inline lane, the gathering schedule, the limbs' schedule), float64 to bfloat16, sum and avg, in place and not,
//   equal to the exact sum of the ranks' terms, and to the accumulator's bits for the same terms.
// - The errors: a named algorithm with an order of its own, an accumulator of integers, null buffers.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/half.h"
#include "collectives/communicator.h"
#include "collectives/exact_accumulator.h"
#include "collectives/kernels/element_ops.h"
#include "collectives/kernels/host_reduce.h"
#include "gtest/gtest.h"
#include "tests/float_terms.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

constexpr size_t kPool = 48;  // terms per element, spread over the ranks

// Pool term j of `count` elements: the rounding-sensitive data of "rank" j of kPool.
template <class T>
std::vector<T> PoolTerms(size_t j, size_t count) {
  return TermsOf<T>(static_cast<int>(j), count, static_cast<int>(kPool));
}

// The exact sum, element by element, of terms first..first+sum_terms-1 in the window of terms first..first+window-1.
template <class T>
std::vector<T> ExactSumOf(size_t first, int window, int sum_terms, size_t count) {
  std::vector<std::vector<T>> terms;
  std::vector<const unsigned char*> inputs(window);
  for (int j = 0; j < window; ++j) terms.push_back(PoolTerms<T>(first + j, count));
  std::vector<T> out(count);
  for (size_t i = 0; i < count; ++i) {
    for (int j = 0; j < window; ++j) inputs[j] = reinterpret_cast<const unsigned char*>(&terms[j][i]);
    EXPECT_TRUE(HostExactSum(FloatTypeOf<T>(), &out[i], inputs.data(), window, sum_terms, 1));
  }
  return out;
}

template <class T>
void ExpectSameBytes(const T* got, const T* want, size_t count, const std::string& what) {
  for (size_t i = 0; i < count; ++i) {
    ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0) << what << ", element " << i;
  }
}

class ExactTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto comm = Communicator::Create(MPI_COMM_WORLD);
    ASSERT_TRUE(comm.ok()) << comm.status();
    comm_ = std::move(comm).value();
  }
  std::unique_ptr<Communicator> comm_;
};

TEST_F(ExactTest, ThePoolsOrdinarySumDependsOnItsOrder) {
  const size_t count = 300;
  size_t differ = 0;
  for (size_t i = 0; i < count; ++i) {
    double forward = 0, backward = 0;
    for (size_t j = 0; j < kPool; ++j) forward += TermOf<double>(static_cast<int>(j), i, static_cast<int>(kPool));
    for (size_t j = kPool; j-- > 0;) backward += TermOf<double>(static_cast<int>(j), i, static_cast<int>(kPool));
    differ += forward != backward;
  }
  EXPECT_GT(differ, count / 10) << "the data cannot show an order";
}

// Term j goes to rank (j * 7 + n) % n, and each rank adds its terms last to first when n is odd: the grouping and
// the order change with the rank count.
template <class T>
void ExpectAccumulatedPoolIsTheOneRankSum(Communicator& comm, size_t count) {
  const int n = comm.size(), me = comm.rank();
  auto acc = ExactAccumulator::Create(FloatTypeOf<T>(), count);
  ASSERT_TRUE(acc.ok()) << acc.status();
  std::vector<size_t> mine;
  for (size_t j = 0; j < kPool; ++j) {
    if (static_cast<int>((j * 7 + n) % n) == me) mine.push_back(j);
  }
  if (n % 2 == 1) std::reverse(mine.begin(), mine.end());
  for (size_t j : mine) ASSERT_TRUE(acc->Add(PoolTerms<T>(j, count).data()).ok());
  EXPECT_EQ(acc->terms(), static_cast<int64_t>(mine.size()));
  std::vector<T> got(count);
  ASSERT_TRUE(acc->AllReduce(comm, got.data()).ok());
  const std::vector<T> want = ExactSumOf<T>(0, kPool, kPool, count);
  ExpectSameBytes(got.data(), want.data(), count,
                  absl::StrCat(DataTypeName(FloatTypeOf<T>()), " pool on ", n, " ranks"));
}

TEST_F(ExactTest, TheSamePoolOnAnyRankCountGivesTheSameBytes) {
  for (size_t count : {size_t{1}, size_t{7}, size_t{300}}) {
    ExpectAccumulatedPoolIsTheOneRankSum<double>(*comm_, count);
    ExpectAccumulatedPoolIsTheOneRankSum<float>(*comm_, count);
    ExpectAccumulatedPoolIsTheOneRankSum<Float16>(*comm_, count);
    ExpectAccumulatedPoolIsTheOneRankSum<Bfloat16>(*comm_, count);
  }
}

// One term per rank (rank r holds pool term r): every reduction against ExactSumOf, and AllReduce against the
// accumulator holding the same terms.
template <class T>
void ExpectEveryReductionExact(Communicator& comm, ReduceOp op, size_t count, bool in_place) {
  const int n = comm.size(), me = comm.rank();
  const DataType type = FloatTypeOf<T>();
  const std::string what = absl::StrCat(DataTypeName(type), " ", ReduceOpName(op), " of ", count,
                                        in_place ? " in place" : "", " on ", n, " ranks");
  CallOptions options;
  options.numerics = Numerics::kExact;
  auto finish = [&](std::vector<T> v, int terms) {  // kAvg: the exact sum divided once
    if (op == ReduceOp::kAvg) {
      for (T& x : v) x = ElementOps<T>::Divide(x, terms);
    }
    return v;
  };
  const std::vector<T> all = finish(ExactSumOf<T>(0, n, n, count), n);
  {
    std::vector<T> send = PoolTerms<T>(me, count), recv(count);
    T* out = in_place ? send.data() : recv.data();
    ASSERT_TRUE(comm.AllReduce(send.data(), out, count, type, op, options).ok()) << what;
    ExpectSameBytes(out, all.data(), count, "all_reduce " + what);
    if (op == ReduceOp::kSum) {
      auto acc = ExactAccumulator::Create(type, count);
      ASSERT_TRUE(acc.ok());
      const std::vector<T> mine = PoolTerms<T>(me, count);
      ASSERT_TRUE(acc->Add(mine.data()).ok());
      std::vector<T> accumulated(count);
      ASSERT_TRUE(acc->AllReduce(comm, accumulated.data()).ok());
      ExpectSameBytes(accumulated.data(), all.data(), count, "accumulator " + what);
    }
  }
  {  // Reduce to the last rank; the others pass no recv buffer.
    const int root = n - 1;
    std::vector<T> send = PoolTerms<T>(me, count), recv(count);
    T* out = me != root ? nullptr : in_place ? send.data() : recv.data();
    ASSERT_TRUE(comm.Reduce(send.data(), out, count, type, op, root, options).ok()) << what;
    if (me == root) ExpectSameBytes(out, all.data(), count, "reduce " + what);
  }
  {  // ReduceScatterV: blocks of different sizes, one empty (ReduceScatter is the equal-blocks case).
    const UnevenBlocks blocks = UnevenBlocksOf(count, n, me);
    std::vector<T> send = PoolTerms<T>(me, blocks.total), recv(blocks.counts[me] + 1);
    ASSERT_TRUE(comm.ReduceScatterV(send.data(), recv.data(), blocks.counts.data(), type, op, options).ok()) << what;
    ExpectSameBytes(recv.data(), finish(ExactSumOf<T>(0, n, n, blocks.total), n).data() + blocks.start,
                    blocks.counts[me], "reduce_scatterv " + what);
    std::vector<T> block_send = PoolTerms<T>(me, count * n), block(count);
    T* out = in_place ? block_send.data() + me * count : block.data();
    ASSERT_TRUE(comm.ReduceScatter(block_send.data(), out, count, type, op, options).ok()) << what;
    ExpectSameBytes(out, finish(ExactSumOf<T>(0, n, n, count * n), n).data() + me * count, count,
                    "reduce_scatter " + what);
  }
  for (bool exclusive : {false, true}) {  // the prefix of ranks 0..r (0..r-1), in the window of every rank's terms
    std::vector<T> send = PoolTerms<T>(me, count), recv(count, NarrowTo<T>(42.0));
    T* out = in_place ? send.data() : recv.data();
    const absl::Status s = exclusive ? comm.ExScan(send.data(), out, count, type, op, options)
                                     : comm.Scan(send.data(), out, count, type, op, options);
    ASSERT_TRUE(s.ok()) << s << " " << what;
    const int terms = exclusive ? me : me + 1;
    if (terms > 0) {
      ExpectSameBytes(out, finish(ExactSumOf<T>(0, n, terms, count), terms).data(), count,
                      (exclusive ? "exscan " : "scan ") + what);
    }
  }
}

TEST_F(ExactTest, EveryReductionIsTheExactSumAtEverySize) {
  // 1 and 7 elements: the inline lane; 1000 doubles: the gathering schedule; 5003 and 20011: the limbs' schedule.
  for (size_t count : {size_t{1}, size_t{7}, size_t{1000}, size_t{5003}, size_t{20011}}) {
    for (bool in_place : {false, true}) {
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg}) {
        ExpectEveryReductionExact<double>(*comm_, op, count, in_place);
        ExpectEveryReductionExact<float>(*comm_, op, count, in_place);
      }
      ExpectEveryReductionExact<Float16>(*comm_, ReduceOp::kSum, count, in_place);
      ExpectEveryReductionExact<Bfloat16>(*comm_, ReduceOp::kSum, count, in_place);
    }
  }
}

// Terms whose exact sum is not IEEE's x0 + x1: rank i % 2 holds 2^e, the other half an ulp of it plus one bit below
// the window (2^(e-80) for double; 2^(e-47) for float, e placed in its bin so that the bit falls below). IEEE rounds
// the sum up; the exact sum drops that bit and rounds the tie to even, 2^e. Ranks 2 and above hold +0, which chooses
// no window. On two ranks every sum of a fast schedule is x0 + x1, so these elements see whether the sums were exact.
template <class T>
T TieTerm(int rank, size_t i) {
  if (rank > 1) return T{0};
  const int e = 16 * (static_cast<int>(i / 7 % 9) - 4) + 2 * static_cast<int>(i % 7);  // (e + 1088) % 16 <= 12
  const int significand = std::numeric_limits<T>::digits;                              // 53, 24
  const int dropped = significand == 53 ? e - 80 : e - significand - 23;               // below the window
  const T sign = (i / 3) % 2 ? T{-1} : T{1};
  if (rank == static_cast<int>(i % 2)) return sign * std::ldexp(T{1}, e);
  return sign * (std::ldexp(T{1}, e - significand) + std::ldexp(T{1}, dropped));
}

template <class T>
std::vector<T> TieTerms(int rank, size_t count) {
  std::vector<T> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = TieTerm<T>(rank, i);
  return v;
}

template <class T>
void ExpectTiesSummedExactly(Communicator& comm, ReduceOp op, size_t count, bool in_place) {
  const int n = comm.size(), me = comm.rank();
  const DataType type = FloatTypeOf<T>();
  const std::string what = absl::StrCat(DataTypeName(type), " ", ReduceOpName(op), " of ", count,
                                        in_place ? " in place" : "", " on ", n, " ranks");
  std::vector<T> want(count * n);
  std::vector<T> terms(n);
  std::vector<const unsigned char*> inputs(n);
  for (size_t i = 0; i < want.size(); ++i) {
    for (int r = 0; r < n; ++r) {
      terms[r] = TieTerm<T>(r, i);
      inputs[r] = reinterpret_cast<const unsigned char*>(&terms[r]);
    }
    ASSERT_TRUE(HostExactSum(type, &want[i], inputs.data(), n, n, 1));
    // The negative control: IEEE's sum of the two terms is another number.
    ASSERT_NE(terms[0] + terms[1], want[i]) << "element " << i << ": the data cannot tell an exact sum from x0 + x1";
    if (op == ReduceOp::kAvg) want[i] = ElementOps<T>::Divide(want[i], n);
  }
  CallOptions options;
  options.numerics = Numerics::kExact;
  std::vector<T> send = TieTerms<T>(me, count), recv(count);
  T* out = in_place ? send.data() : recv.data();
  ASSERT_TRUE(comm.AllReduce(send.data(), out, count, type, op, options).ok()) << what;
  ExpectSameBytes(out, want.data(), count, "all_reduce " + what);
  send = TieTerms<T>(me, count);
  out = me != n - 1 ? nullptr : in_place ? send.data() : recv.data();
  ASSERT_TRUE(comm.Reduce(send.data(), out, count, type, op, n - 1, options).ok()) << what;
  if (me == n - 1) ExpectSameBytes(out, want.data(), count, "reduce " + what);
  std::vector<T> blocks = TieTerms<T>(me, count * n), block(count);
  out = in_place ? blocks.data() + me * count : block.data();
  ASSERT_TRUE(comm.ReduceScatter(blocks.data(), out, count, type, op, options).ok()) << what;
  ExpectSameBytes(out, want.data() + me * count, count, "reduce_scatter " + what);
}

TEST_F(ExactTest, SumsTermsThatIeeeAdditionRoundsOtherwise) {
  if (comm_->size() < 2) GTEST_SKIP() << "the terms lie on two ranks";
  // 7 elements: the inline lane; 1000 and 20011: the schedules above it (on two ranks, fast's with exact sums).
  for (size_t count : {size_t{7}, size_t{1000}, size_t{20011}}) {
    for (bool in_place : {false, true}) {
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg}) {
        ExpectTiesSummedExactly<double>(*comm_, op, count, in_place);
        ExpectTiesSummedExactly<float>(*comm_, op, count, in_place);
      }
    }
  }
}

TEST_F(ExactTest, OtherOpsCombineInRankOrder) {
  // Max is order-free except for NaNs; exact leaves it to the rank order, as deterministic does.
  const int n = comm_->size();
  std::vector<double> send = PoolTerms<double>(comm_->rank(), 100), got(100);
  CallOptions options;
  options.numerics = Numerics::kExact;
  ASSERT_TRUE(comm_->AllReduce(send.data(), got.data(), 100, DataType::kFloat64, ReduceOp::kMax, options).ok());
  for (size_t i = 0; i < 100; ++i) {
    double want = TermOf<double>(0, i, static_cast<int>(kPool));
    for (int r = 1; r < n; ++r) want = std::max(want, TermOf<double>(r, i, static_cast<int>(kPool)));
    ASSERT_EQ(got[i], want) << "element " << i;
  }
}

TEST_F(ExactTest, ErrorsNameTheArgument) {
  std::vector<double> x(64, 1.0), y(64);
  CallOptions options;
  options.numerics = Numerics::kExact;
  options.algorithm = Algorithm::kRing;
  const absl::Status status = comm_->AllReduce(x.data(), y.data(), 64, DataType::kFloat64, ReduceOp::kSum, options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("numerics=exact"), absl::string_view::npos) << status;
  auto ints = ExactAccumulator::Create(DataType::kInt32, 4);
  ASSERT_FALSE(ints.ok());
  EXPECT_EQ(ints.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ints.status().message().find("int32"), absl::string_view::npos) << ints.status();
  auto acc = ExactAccumulator::Create(DataType::kFloat64, 4);
  ASSERT_TRUE(acc.ok());
  EXPECT_EQ(acc->Add(nullptr).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(acc->terms(), 0);
  EXPECT_EQ(acc->AllReduce(*comm_, nullptr).code(), absl::StatusCode::kInvalidArgument);
  // No terms on any rank: +0, as an empty sum.
  std::vector<double> empty(4, 7.0);
  ASSERT_TRUE(acc->AllReduce(*comm_, empty.data()).ok());
  for (double e : empty) EXPECT_EQ(std::memcmp(&e, "\0\0\0\0\0\0\0\0", 8), 0);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
