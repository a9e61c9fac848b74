// Floating-point reductions on data that rounding changes. Every rank regenerates every rank's terms from a seed:
// wide exponents, mixed signs, and pairs of large terms on two ranks that cancel, so the order of the additions shows
// in the last bits.
// - A negative control: on 3 or more ranks, two fast algorithms give different bytes on this data, so the checks
//   below could see an order that differs.
// - numerics=fast: every algorithm within the error bound of summing n terms in any order, (n-1) u sum|x|, against a
//   reference summed in long double.
// - numerics=deterministic: equal, byte for byte, to the terms folded here in rank order (the order the mode defines),
//   for every type, op, message size (both of the mode's schedules), in place and not, fused in a group and not, on
//   every execution space available; ReduceScatter(V), Reduce, Scan and ExScan likewise against the fold of the
//   ranks each result covers. The test's variants add the MPI transport and nodes of two ranks.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/half.h"
#include "base/names.h"
#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"
#include "collectives/kernels/element_ops.h"
#include "collectives/kernels/host_reduce.h"
#include "gtest/gtest.h"
#include "tests/float_terms.h"
#include "tests/mpi_test_env.h"
#include "tests/scoped_env.h"

namespace kcoll {
namespace testing {
namespace {

// x op y in `A`, the type the fold accumulates in.
template <class A>
A CombineIn(ReduceOp op, A x, A y) {
  switch (op) {
    case ReduceOp::kProd:
      return x * y;
    case ReduceOp::kMin:
      return y < x ? y : x;
    case ReduceOp::kMax:
      return x < y ? y : x;
    default:
      return x + y;
  }
}

// What numerics=deterministic defines, computed here element by element: ranks 0..terms-1's terms for `total`
// elements folded in rank order, 16-bit floats accumulated in float and rounded once (kAvg: the sum, then the
// division by `terms`, in the type).
template <class T>
std::vector<T> FoldOfRanks(ReduceOp op, size_t total, int n, int terms) {
  constexpr bool kHalf = std::is_same_v<T, Float16> || std::is_same_v<T, Bfloat16>;
  using A = std::conditional_t<kHalf, float, T>;
  auto widen = [](T x) -> A {
    if constexpr (kHalf) {
      return ToFloat(x);
    } else {
      return x;
    }
  };
  // Rank by rank (one rank's terms at a time: the large counts below would not fit n at once on every rank).
  std::vector<A> acc(total);
  for (int r = 0; r < terms; ++r) {
    const std::vector<T> contribution = TermsOf<T>(r, total, n);
    for (size_t i = 0; i < total; ++i) {
      acc[i] = r == 0 ? widen(contribution[i]) : CombineIn<A>(op, acc[i], widen(contribution[i]));
    }
  }
  std::vector<T> out(total);
  for (size_t i = 0; i < total; ++i) {
    out[i] = NarrowTo<T>(acc[i]);
    if (op == ReduceOp::kAvg) out[i] = ElementOps<T>::Divide(out[i], terms);
  }
  return out;
}

template <class T>
std::vector<T> InRankOrder(ReduceOp op, size_t count, int n) {
  return FoldOfRanks<T>(op, count, n, n);
}

std::string Where(const std::string& what, size_t i) { return absl::StrCat(what, ", element ", i); }

template <class T>
void ExpectSameBytes(const T* got, const T* want, size_t count, const std::string& what) {
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(T)), 0) << Where(what, i);
}

// One deterministic AllReduce checked against InRankOrder, byte for byte.
template <class T>
void ExpectRankOrder(Communicator& comm, ReduceOp op, size_t count, bool in_place, const std::string& what) {
  const int n = comm.size();
  std::vector<T> send = TermsOf<T>(comm.rank(), count, n), recv(count);
  T* out = in_place ? send.data() : recv.data();
  CallOptions options;
  options.numerics = Numerics::kDeterministic;
  ASSERT_TRUE(comm.AllReduce(send.data(), out, count, FloatTypeOf<T>(), op, options).ok()) << what;
  const std::vector<T> want = InRankOrder<T>(op, count, n);
  for (size_t i = 0; i < count; ++i) {
    ASSERT_EQ(std::memcmp(&out[i], &want[i], sizeof(T)), 0) << Where(what, i);
  }
}

class NumericsTest : public ::testing::TestWithParam<ExecBackend> {
 protected:
  void SetUp() override {
    CommunicatorOptions options;
    options.backend = GetParam();
    auto comm = Communicator::Create(MPI_COMM_WORLD, options);
    ASSERT_TRUE(comm.ok()) << comm.status();
    comm_ = std::move(comm).value();
  }
  std::unique_ptr<Communicator> comm_;
};

TEST_P(NumericsTest, TwoFastAlgorithmsDifferOnThisData) {
  const int n = comm_->size();
  if (n < 3) GTEST_SKIP() << "on " << n << " ranks every order of the terms gives the same sum";
  const size_t count = 4096;
  std::vector<double> send = TermsOf<double>(comm_->rank(), count, n), ring(count), tree(count);
  CallOptions options;
  options.numerics = Numerics::kFast;
  options.algorithm = Algorithm::kRing;
  ASSERT_TRUE(comm_->AllReduce(send.data(), ring.data(), count, DataType::kFloat64, ReduceOp::kSum, options).ok());
  options.algorithm = Algorithm::kTree;
  ASSERT_TRUE(comm_->AllReduce(send.data(), tree.data(), count, DataType::kFloat64, ReduceOp::kSum, options).ok());
  EXPECT_NE(std::memcmp(ring.data(), tree.data(), count * sizeof(double)), 0)
      << "ring and tree summed every element to the same bits: this data cannot show an order";
}

TEST_P(NumericsTest, FastIsWithinTheBoundOfItsOrder) {
  const int n = comm_->size();
  const size_t count = 3001;
  for (Algorithm algorithm : TransferAlgorithmsFor(Collective::kAllReduce)) {
    if (FactsOf(algorithm).needs != AlgorithmNeeds::kNothing) continue;
    CallOptions options;
    options.numerics = Numerics::kFast;
    options.algorithm = algorithm;
    std::vector<double> send = TermsOf<double>(comm_->rank(), count, n), got(count);
    ASSERT_TRUE(comm_->AllReduce(send.data(), got.data(), count, DataType::kFloat64, ReduceOp::kSum, options).ok());
    std::vector<float> send32 = TermsOf<float>(comm_->rank(), count, n), got32(count);
    ASSERT_TRUE(comm_->AllReduce(send32.data(), got32.data(), count, DataType::kFloat32, ReduceOp::kSum, options).ok());
    for (size_t i = 0; i < count; ++i) {
      long double sum = 0, magnitude = 0, sum32 = 0, magnitude32 = 0;
      for (int r = 0; r < n; ++r) {
        const double x = TermOf<double>(r, i, n);
        const float x32 = NarrowTo<float>(TermOf<float>(r, i, n));
        sum += x;
        magnitude += std::fabs(x);
        sum32 += x32;
        magnitude32 += std::fabs(x32);
      }
      // Any order of n terms: |error| <= (n-1) u sum|x| (to first order; 1% for the rest and the reference's own).
      const long double bound = 1.01L * (n - 1) * std::ldexp(1.0L, -53) * magnitude;
      const long double bound32 = 1.01L * (n - 1) * std::ldexp(1.0L, -24) * magnitude32;
      ASSERT_LE(std::fabs(got[i] - sum), bound) << Where(AlgorithmName(algorithm).data(), i);
      ASSERT_LE(std::fabs(got32[i] - sum32), bound32) << Where(AlgorithmName(algorithm).data(), i);
    }
  }
}

TEST_P(NumericsTest, DeterministicIsTheRankOrderAtEverySize) {
  // 1 and 7 elements: the inline lane on one node; 1000 doubles: the all-gather schedule, or on 2 and 4 ranks over
  // shared memory ordered halving-doubling (as 5000 and 20011 floats); 5000 and 20011 doubles: the owners'.
  for (size_t count : {size_t{1}, size_t{7}, size_t{1000}, size_t{5000}, size_t{20011}}) {
    for (bool in_place : {false, true}) {
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax}) {
        const std::string what = absl::StrCat(ReduceOpName(op), " of ", count, in_place ? " in place" : "");
        ExpectRankOrder<double>(*comm_, op, count, in_place, absl::StrCat("float64 ", what));
        ExpectRankOrder<float>(*comm_, op, count, in_place, absl::StrCat("float32 ", what));
      }
      ExpectRankOrder<Float16>(*comm_, ReduceOp::kSum, count, in_place, absl::StrCat("float16 sum of ", count));
      ExpectRankOrder<Bfloat16>(*comm_, ReduceOp::kSum, count, in_place, absl::StrCat("bfloat16 sum of ", count));
    }
  }
}

TEST_P(NumericsTest, DeterministicIsTheRankOrderWhenTheFoldAndAllGatherFuse) {
  // From kRankOrderFusedMinBlockBytes a block, on one node over shared memory, the linear AllReduce runs the owners'
  // folds and the all-gather as one pipeline (all_reduce/linear.cc); a few elements more, so that blocks differ.
  const int n = comm_->size();
  if (n > 5) GTEST_SKIP() << "the 5-rank run covers it; " << n << " ranks of 4 MiB each take too long on 2 cores";
  const size_t count = static_cast<size_t>(n) * (Communicator::kRankOrderFusedMinBlockBytes / sizeof(double)) + 3;
  for (bool in_place : {false, true}) {
    ExpectRankOrder<double>(*comm_, ReduceOp::kSum, count, in_place,
                            absl::StrCat("float64 sum of ", count, in_place ? " in place" : ""));
  }
  ExpectRankOrder<float>(*comm_, ReduceOp::kAvg, 2 * count, false, absl::StrCat("float32 avg of ", 2 * count));
}

TEST_P(NumericsTest, TheRankOrderedAllReducesFoldInRankOrder) {
  // Asked for by name under numerics=fast: every element x0 op x1 op ... in rank order. linear: in pieces and with
  // the input travelling ahead of the folds (blocks of 5 to 19 pieces of 64 KiB on 2-9 ranks); ordered
  // halving-doubling: raw terms carried to the prefix on 2 and 4 ranks (uneven blocks, fewer elements than ranks),
  // the linear schedule on the others. In place and apart.
  const int n = comm_->size();
  for (Algorithm algorithm : {Algorithm::kLinear, Algorithm::kOrderedHalvingDoubling}) {
    CallOptions options;
    options.numerics = Numerics::kFast;
    options.algorithm = algorithm;
    for (size_t count : {size_t{3}, size_t{5003}, size_t{300007}}) {
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMin}) {
        const std::vector<double> want = InRankOrder<double>(op, count, n);
        for (bool in_place : {false, true}) {
          const std::string what = absl::StrCat(AlgorithmName(algorithm), " float64 ", ReduceOpName(op), " of ", count,
                                                in_place ? " in place" : "");
          std::vector<double> send = TermsOf<double>(comm_->rank(), count, n), recv(count);
          double* out = in_place ? send.data() : recv.data();
          ASSERT_TRUE(comm_->AllReduce(send.data(), out, count, DataType::kFloat64, op, options).ok()) << what;
          ExpectSameBytes(out, want.data(), count, what);
        }
      }
      std::vector<float> send = TermsOf<float>(comm_->rank(), count, n), recv(count);
      ASSERT_TRUE(comm_->AllReduce(send.data(), recv.data(), count, DataType::kFloat32, ReduceOp::kSum, options).ok());
      ExpectSameBytes(recv.data(), InRankOrder<float>(ReduceOp::kSum, count, n).data(), count,
                      absl::StrCat(AlgorithmName(algorithm), " float32 sum of ", count));
    }
  }
}

// ReduceScatter, ReduceScatterV, Reduce, Scan and ExScan under numerics=deterministic, each against FoldOfRanks.
template <class T>
void ExpectEveryReductionInRankOrder(Communicator& comm, ReduceOp op, size_t count, bool in_place,
                                     const std::string& what) {
  const int n = comm.size(), me = comm.rank();
  const DataType type = FloatTypeOf<T>();
  CallOptions options;
  options.numerics = Numerics::kDeterministic;
  const size_t all = count * static_cast<size_t>(n);
  {  // ReduceScatter: rank r gets block r; in place its block of the send buffer.
    std::vector<T> send = TermsOf<T>(me, all, n), recv(count);
    T* out = in_place ? send.data() + me * count : recv.data();
    ASSERT_TRUE(comm.ReduceScatter(send.data(), out, count, type, op, options).ok()) << what;
    ExpectSameBytes(out, FoldOfRanks<T>(op, all, n, n).data() + me * count, count, "reduce_scatter " + what);
  }
  {  // ReduceScatterV: blocks of different sizes, one of them empty.
    const UnevenBlocks blocks = UnevenBlocksOf(count, n, me);
    std::vector<T> send = TermsOf<T>(me, blocks.total, n), recv(blocks.counts[me] + 1);
    ASSERT_TRUE(comm.ReduceScatterV(send.data(), recv.data(), blocks.counts.data(), type, op, options).ok()) << what;
    ExpectSameBytes(recv.data(), FoldOfRanks<T>(op, blocks.total, n, n).data() + blocks.start, blocks.counts[me],
                    "reduce_scatterv " + what);
  }
  {  // Reduce to the last rank; the others pass no recv buffer.
    const int root = n - 1;
    std::vector<T> send = TermsOf<T>(me, count, n), recv(count);
    T* out = me != root ? nullptr : in_place ? send.data() : recv.data();
    ASSERT_TRUE(comm.Reduce(send.data(), out, count, type, op, root, options).ok()) << what;
    if (me == root) ExpectSameBytes(out, FoldOfRanks<T>(op, count, n, n).data(), count, "reduce " + what);
  }
  for (bool exclusive : {false, true}) {  // Scan: ranks 0..r; ExScan: ranks 0..r-1, rank 0's recv untouched.
    std::vector<T> send = TermsOf<T>(me, count, n), recv(count, NarrowTo<T>(42.0));
    T* out = in_place ? send.data() : recv.data();
    const absl::Status s = exclusive ? comm.ExScan(send.data(), out, count, type, op, options)
                                     : comm.Scan(send.data(), out, count, type, op, options);
    ASSERT_TRUE(s.ok()) << s << " " << what;
    const int terms = exclusive ? me : me + 1;
    const std::string name = std::string(exclusive ? "exscan " : "scan ") + what;
    if (terms > 0) {
      ExpectSameBytes(out, FoldOfRanks<T>(op, count, n, terms).data(), count, name);
    } else if (!in_place) {
      ExpectSameBytes(out, std::vector<T>(count, NarrowTo<T>(42.0)).data(), count, name);
    }
  }
}

TEST_P(NumericsTest, DeterministicReduceScatterReduceAndScansAreTheRankOrder) {
  // 5 elements per rank: the scans' inline lane; 1000 doubles: the gathering schedules; 5003: the owners'.
  for (size_t count : {size_t{5}, size_t{1000}, size_t{5003}}) {
    for (bool in_place : {false, true}) {
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kMax}) {
        const std::string what = absl::StrCat(ReduceOpName(op), " of ", count, in_place ? " in place" : "");
        ExpectEveryReductionInRankOrder<double>(*comm_, op, count, in_place, absl::StrCat("float64 ", what));
        ExpectEveryReductionInRankOrder<float>(*comm_, op, count, in_place, absl::StrCat("float32 ", what));
      }
      ExpectEveryReductionInRankOrder<Float16>(*comm_, ReduceOp::kSum, count, in_place,
                                               absl::StrCat("float16 sum of ", count));
    }
  }
}

TEST_P(NumericsTest, DeterministicHoldsInAFusedGroupAndAsTheCommunicatorsDefault) {
  CommunicatorOptions options;
  options.backend = GetParam();
  options.numerics = Numerics::kDeterministic;
  auto made = Communicator::Create(MPI_COMM_WORLD, options);
  ASSERT_TRUE(made.ok()) << made.status();
  Communicator& comm = **made;
  EXPECT_EQ(comm.numerics(), Numerics::kDeterministic);
  const int n = comm.size();
  const std::vector<size_t> counts = {3, 100, 517};
  std::vector<std::vector<double>> sends, recvs;
  for (size_t count : counts) {
    sends.push_back(TermsOf<double>(comm.rank(), count, n));
    recvs.emplace_back(count);
  }
  ASSERT_TRUE(comm.GroupStart().ok());
  for (size_t k = 0; k < counts.size(); ++k) {
    ASSERT_TRUE(comm.AllReduce(sends[k].data(), recvs[k].data(), counts[k], DataType::kFloat64, ReduceOp::kSum).ok());
  }
  ASSERT_TRUE(comm.GroupEnd().ok());
  for (size_t k = 0; k < counts.size(); ++k) {
    const std::vector<double> want = InRankOrder<double>(ReduceOp::kSum, counts[k], n);
    ASSERT_EQ(std::memcmp(recvs[k].data(), want.data(), counts[k] * sizeof(double)), 0) << "fused call " << k;
  }
}

TEST_P(NumericsTest, ANamedAlgorithmWithItsOwnOrderIsRefused) {
  std::vector<double> x(64, 1.0), y(64);
  CallOptions options;
  options.numerics = Numerics::kDeterministic;
  options.algorithm = Algorithm::kRing;
  const absl::Status status =
      comm_->AllReduce(x.data(), y.data(), x.size(), DataType::kFloat64, ReduceOp::kSum, options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("ring"), absl::string_view::npos) << status;
  EXPECT_NE(status.message().find("numerics=deterministic"), absl::string_view::npos) << status;
  // Integers are not affected: their sums do not depend on the order.
  std::vector<int32_t> a(64, 2), b(64);
  ASSERT_TRUE(comm_->AllReduce(a.data(), b.data(), a.size(), DataType::kInt32, ReduceOp::kSum, options).ok());
  EXPECT_EQ(b[0], 2 * comm_->size());
}

TEST(NumericsOptionTest, TheEnvironmentSetsTheDefaultAndABadValueIsNamed) {
  {
    ScopedEnv env("KCOLL_NUMERICS", "deterministic");
    auto comm = Communicator::Create(MPI_COMM_WORLD);
    ASSERT_TRUE(comm.ok()) << comm.status();
    EXPECT_EQ((*comm)->numerics(), Numerics::kDeterministic);
  }
  ScopedEnv env("KCOLL_NUMERICS", "exactish");
  auto comm = Communicator::Create(MPI_COMM_WORLD);
  ASSERT_FALSE(comm.ok());
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(comm.status().message().find("KCOLL_NUMERICS"), absl::string_view::npos) << comm.status();
  EXPECT_NE(comm.status().message().find("exactish"), absl::string_view::npos) << comm.status();
}

std::vector<ExecBackend> Backends() {
  std::vector<ExecBackend> out = {ExecBackend::kSerial};
  if (IsAvailable(ExecBackend::kOpenMP)) out.push_back(ExecBackend::kOpenMP);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Backends, NumericsTest, ::testing::ValuesIn(Backends()),
                         [](const ::testing::TestParamInfo<ExecBackend>& info) {
                           return std::string(ExecBackendName(info.param));
                         });

}  // namespace
}  // namespace testing
}  // namespace kcoll
