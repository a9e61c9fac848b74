// Shared pieces of the per-collective tests: the case matrix (counts, roots, types, ops), communicators per
// backend, and an element-wise comparison that names the first differing element.
//
// The matrix: every registered algorithm of the collective; element counts 0, 1, nranks-1 and nranks+1 with every
// type (and every op for reductions), roots first, middle and last, in place and out of place; and one large odd
// count (kLargeCount, 100 003; per-rank counts above 8 ranks: LargeCount) in two cases (int32 out of place, bfloat16
// in place). With KCOLL_EXHAUSTIVE=1 (the `exhaustive`-tagged targets) kLargeCount runs the whole matrix too, and
// everything runs on every host backend.
#ifndef KCOLL_TESTS_COLLECTIVE_TEST_UTIL_H_
#define KCOLL_TESTS_COLLECTIVE_TEST_UTIL_H_

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/algorithms/registry.h"
#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"
#include "gtest/gtest.h"
#include "tests/algorithm_param.h"
#include "tests/exact_values.h"
#include "tests/make_communicator.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {

constexpr size_t kLargeCount = 100003;

inline bool Exhaustive() {
  const char* env = std::getenv("KCOLL_EXHAUSTIVE");
  return env != nullptr && std::string(env) == "1";
}

inline std::vector<size_t> Deduplicated(std::vector<size_t> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

// 0, 1, nranks-1, nranks+1.
inline std::vector<size_t> SmallCounts() {
  const size_t n = static_cast<size_t>(WorldSize());
  return Deduplicated({0, 1, n - 1, n + 1});
}

// First, middle and last rank.
inline std::vector<int> Roots() {
  const int n = WorldSize();
  std::vector<size_t> roots = Deduplicated({0, static_cast<size_t>(n / 2), static_cast<size_t>(n - 1)});
  return std::vector<int>(roots.begin(), roots.end());
}

// The host backends a test runs on: serial, plus every other one with KCOLL_EXHAUSTIVE=1.
inline std::vector<ExecBackend> TestBackends() {
  std::vector<ExecBackend> out = {ExecBackend::kSerial};
  if (Exhaustive() && IsAvailable(ExecBackend::kOpenMP)) out.push_back(ExecBackend::kOpenMP);
  return out;
}

// Success iff the `count` elements at `actual` equal `expected` byte for byte; else names the first difference.
inline ::testing::AssertionResult SameElements(DataType type, const std::vector<char>& expected, const void* actual,
                                               size_t count) {
  const size_t elem = DataTypeSize(type);
  if (expected.size() != count * elem) {
    return ::testing::AssertionFailure() << "expected " << expected.size() / elem << " elements, compared " << count;
  }
  const char* got = static_cast<const char*>(actual);
  for (size_t i = 0; i < count; ++i) {
    if (std::memcmp(expected.data() + i * elem, got + i * elem, elem) != 0) {
      return ::testing::AssertionFailure() << "element " << i << " of " << count << ": expected "
                                           << DecodeAt(type, expected.data(), i) << ", got " << DecodeAt(type, got, i);
    }
  }
  return ::testing::AssertionSuccess();
}

// "int32 sum count=5 in-place root=2" for failure messages.
inline std::string CaseName(DataType type, const ReduceOp* op, size_t count, bool in_place, int root = -1) {
  std::string s = absl::StrCat(DataTypeName(type));
  if (op != nullptr) absl::StrAppend(&s, " ", ReduceOpName(*op));
  absl::StrAppend(&s, " count=", count, in_place ? " in-place" : " out-of-place");
  if (root >= 0) absl::StrAppend(&s, " root=", root);
  return s;
}

// Parameter of the per-collective suites: one registered algorithm. `direct` runs only on registered buffers, which
// these suites do not use: registered_buffers_test.cc runs the matrix on them.
inline std::vector<Algorithm> AlgorithmsUnderTest(Collective collective) { return TransferAlgorithmsFor(collective); }

// One call of the matrix.
struct Case {
  DataType type;
  ReduceOp op;  // kSum where the collective has no op
  size_t count;
  bool in_place;
  int root;  // 0 where the collective has no root
  bool uses_op;
  bool rooted;

  // "int32 sum count=5 in-place root=2", for failure messages.
  std::string Name() const { return CaseName(type, uses_op ? &op : nullptr, count, in_place, rooted ? root : -1); }
};

// Which dimensions of the matrix a collective has.
struct Shape {
  bool uses_op = false;
  bool rooted = false;
  bool count_per_rank = false;  // the buffers hold `count` elements per rank (per peer for alltoall)
};

// The dimensions of `collective`, from its row of facts (base/names.h).
inline Shape ShapeOf(Collective collective) {
  return Shape{Reduces(collective), IsRooted(collective), FactsOf(collective).size_counts_every_rank};
}

// The large count of the matrix: kLargeCount, except where the count is per rank and more than 8 ranks run, where the
// buffers stay at 8 ranks' worth (an odd count, still far above every chunk, slot and eager size): at 16 ranks,
// 100 003 elements per peer make an AllToAll of 6.4 MB per rank on the test machine's two cores.
inline size_t LargeCount(bool count_per_rank) {
  const size_t n = static_cast<size_t>(WorldSize());
  if (!count_per_rank || n <= 8 || Exhaustive()) return kLargeCount;
  return (kLargeCount * 8 / n) | 1;
}
inline size_t LargeCount(Collective collective) { return LargeCount(FactsOf(collective).size_counts_every_rank); }

// Base fixture of the per-collective suites. A test body hands a check of one Case to RunSmallCounts or
// RunLargeCount, which run it over the matrix once per backend in TestBackends().
//
// The ranks stay in step without agreeing after every call: a check runs the kcoll call and then the vendor MPI
// reference (both collective) before it compares anything locally, so a wrong result or an error returned on
// every rank leaves no rank waiting; the ranks agree on failures once per type and stop together.
class CollectiveTest : public ::testing::TestWithParam<Algorithm> {
 protected:
  CallOptions Options() const {
    CallOptions options;
    options.algorithm = GetParam();
    return options;
  }

  // Every type (and op), counts 0, 1, n-1, n+1, roots first / middle / last, in place and out of place.
  template <class Check>
  void RunSmallCounts(Shape shape, Check check) {
    Run(shape, AllDataTypes(), shape.uses_op ? AllReduceOps() : std::vector<ReduceOp>{ReduceOp::kSum}, SmallCounts(),
        Roots(), check);
  }

  // LargeCount in two cases: int32 out of place with the first root, bfloat16 in place with the last root (op sum);
  // with KCOLL_EXHAUSTIVE=1, kLargeCount with every type, op, root and placement.
  template <class Check>
  void RunLargeCount(Shape shape, Check check) {
    const size_t large = LargeCount(shape.count_per_rank);
    if (Exhaustive()) {
      Run(shape, AllDataTypes(), shape.uses_op ? AllReduceOps() : std::vector<ReduceOp>{ReduceOp::kSum}, {kLargeCount},
          Roots(), check);
      return;
    }
    const int last = WorldSize() - 1;
    RunCases(
        {Case{DataType::kInt32, ReduceOp::kSum, large, /*in_place=*/false, /*root=*/0, shape.uses_op, shape.rooted},
         Case{DataType::kBfloat16, ReduceOp::kSum, large, /*in_place=*/true, shape.rooted ? last : 0, shape.uses_op,
              shape.rooted}},
        check);
  }

  // EXPECTs `status` OK; returns whether it is.
  static bool ExpectOk(const absl::Status& status, const Case& c) {
    EXPECT_TRUE(status.ok()) << c.Name() << ": " << status;
    return status.ok();
  }

  // Out of place, the call must leave its input as it was.
  static void ExpectSendKept(const Case& c, const std::vector<char>& send, const std::vector<char>& input) {
    if (!c.in_place) {
      EXPECT_EQ(send, input) << c.Name() << ": the send buffer changed";
    }
  }

  std::unique_ptr<Communicator> comm_;

 private:
  template <class Check>
  void RunCases(const std::vector<Case>& cases, Check check) {
    for (ExecBackend backend : TestBackends()) {
      SCOPED_TRACE(absl::StrCat("backend ", ExecBackendName(backend)));
      comm_ = MakeCommunicator(backend);
      if (!AllRanks(comm_ != nullptr)) return;
      for (const Case& c : cases) check(c);
      if (!AllRanks(!HasFailure())) return;
      comm_.reset();
    }
  }

  template <class Check>
  void Run(Shape shape, const std::vector<DataType>& types, const std::vector<ReduceOp>& ops,
           const std::vector<size_t>& counts, std::vector<int> roots, Check check) {
    if (!shape.rooted) roots = {0};
    for (ExecBackend backend : TestBackends()) {
      SCOPED_TRACE(absl::StrCat("backend ", ExecBackendName(backend)));
      comm_ = MakeCommunicator(backend);
      if (!AllRanks(comm_ != nullptr)) return;
      for (DataType type : types) {
        for (ReduceOp op : ops) {
          for (size_t count : counts) {
            for (int root : roots) {
              for (bool in_place : {false, true})
                check(Case{type, op, count, in_place, root, shape.uses_op, shape.rooted});
            }
          }
        }
        if (!AllRanks(!HasFailure())) return;
      }
      comm_.reset();
    }
  }
};
}  // namespace testing
}  // namespace kcoll

// The suite of one collective: `Fixture` (a CollectiveTest with a `void Check(const Case&)`) over the small counts
// and the large odd count, for every algorithm registered for `collective`.
#define KCOLL_COLLECTIVE_SUITE(Fixture, collective)                                                   \
  TEST_P(Fixture, SmallCountsAreBitExact) {                                                           \
    RunSmallCounts(ShapeOf(collective), [&](const Case& c) { Check(c); });                            \
  }                                                                                                   \
  TEST_P(Fixture, LargeOddCountIsBitExact) {                                                          \
    RunLargeCount(ShapeOf(collective), [&](const Case& c) { Check(c); });                             \
  }                                                                                                   \
  INSTANTIATE_TEST_SUITE_P(Algorithms, Fixture, ::testing::ValuesIn(AlgorithmsUnderTest(collective)), \
                           AlgorithmParamName)

// Defines `Fixture`, a CollectiveTest whose `Check(const Case& c)` is the block that follows the macro, and its suite.
#define KCOLL_COLLECTIVE_TEST(Fixture, collective) \
  class Fixture : public CollectiveTest {          \
   protected:                                      \
    void Check(const Case& c);                     \
  };                                               \
  KCOLL_COLLECTIVE_SUITE(Fixture, collective);     \
  void Fixture::Check(const Case& c)

#endif  // KCOLL_TESTS_COLLECTIVE_TEST_UTIL_H_
