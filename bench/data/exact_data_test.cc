// The -c check: simulate each collective on host buffers filled with every rank's inputs, and require the checker
// to accept the simulated result and to count exactly the elements that were corrupted.
#include "bench/data/exact_data.h"

#include <cstring>
#include <vector>

#include "collectives/kernels/element_ops.h"
#include "collectives/kernels/reference_values.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace bench {
namespace {

CheckSpec Spec(Collective c, DataType type, std::optional<ReduceOp> op, int rank, int nranks, size_t bytes,
               int root = 0) {
  return CheckSpec{c, type, op, root, rank, nranks, MakeLayout(c, bytes, DataTypeSize(type), nranks)};
}

std::vector<char> InputOf(CheckSpec spec, int rank) {
  spec.rank = rank;
  std::vector<char> buf(spec.layout.send_count * DataTypeSize(spec.type));
  FillInput(spec, buf.data(), 0, spec.layout.send_count);
  return buf;
}

// Element-wise reduction of the input block [first, first + n) of ranks [0, ranks), in the element type.
struct ReduceBlocks {
  const CheckSpec& spec;
  size_t first, n;
  std::vector<char>* out;
  int ranks;
  template <class T>
  void operator()() const {
    out->assign(n * sizeof(T), 0);
    T* acc = reinterpret_cast<T*>(out->data());
    for (int r = 0; r < ranks; ++r) {
      std::vector<char> in = InputOf(spec, r);
      const T* x = reinterpret_cast<const T*>(in.data()) + first;
      for (size_t i = 0; i < n; ++i) {
        if (r == 0) {
          acc[i] = x[i];
          continue;
        }
        switch (*spec.op) {
          case ReduceOp::kSum:
          case ReduceOp::kAvg:
            acc[i] = Combine<T, ReduceOp::kSum>(acc[i], x[i]);
            break;
          case ReduceOp::kProd:
            acc[i] = Combine<T, ReduceOp::kProd>(acc[i], x[i]);
            break;
          case ReduceOp::kMin:
            acc[i] = Combine<T, ReduceOp::kMin>(acc[i], x[i]);
            break;
          case ReduceOp::kMax:
            acc[i] = Combine<T, ReduceOp::kMax>(acc[i], x[i]);
            break;
        }
      }
    }
    if (*spec.op == ReduceOp::kAvg) {
      for (size_t i = 0; i < n; ++i) acc[i] = ElementOps<T>::Divide(acc[i], ranks);
    }
  }
};

// What `spec.rank` should hold after the collective, built from the inputs by moving and reducing blocks.
std::vector<char> Simulate(const CheckSpec& spec) {
  const size_t elem = DataTypeSize(spec.type);
  const size_t count = spec.layout.count;
  const int n = spec.nranks, rank = spec.rank;
  std::vector<char> out;
  switch (spec.collective) {
    case Collective::kAllReduce:
    case Collective::kReduce:
      DispatchDataType(spec.type, ReduceBlocks{spec, 0, count, &out, n});
      break;
    case Collective::kReduceScatter:
    case Collective::kReduceScatterV:
      DispatchDataType(spec.type, ReduceBlocks{spec, static_cast<size_t>(rank) * count, count, &out, n});
      break;
    case Collective::kScan:
      DispatchDataType(spec.type, ReduceBlocks{spec, 0, count, &out, rank + 1});
      break;
    case Collective::kExScan:
      if (rank > 0) DispatchDataType(spec.type, ReduceBlocks{spec, 0, count, &out, rank});
      break;
    case Collective::kAllGather:
    case Collective::kAllGatherV:
    case Collective::kGather:
    case Collective::kGatherV:
      for (int r = 0; r < n; ++r) {
        std::vector<char> in = InputOf(spec, r);
        out.insert(out.end(), in.begin(), in.begin() + count * elem);
      }
      break;
    case Collective::kBroadcast:
      out = InputOf(spec, spec.root);
      break;
    case Collective::kAllToAll:
    case Collective::kAllToAllV:
      for (int r = 0; r < n; ++r) {
        std::vector<char> in = InputOf(spec, r);
        out.insert(out.end(), in.begin() + rank * count * elem, in.begin() + (rank + 1) * count * elem);
      }
      break;
    case Collective::kScatter:
    case Collective::kScatterV: {
      std::vector<char> in = InputOf(spec, spec.root);
      out.assign(in.begin() + rank * count * elem, in.begin() + (rank + 1) * count * elem);
      break;
    }
    case Collective::kSendRecv:
      out = InputOf(spec, (rank + n - 1) % n);
      break;
    case Collective::kBarrier:
      break;
  }
  return out;
}

TEST(ExactDataTest, SimulatedResultsAreRightAndCorruptionIsCounted) {
  const Collective collectives[] = {
      Collective::kAllReduce, Collective::kReduceScatter,  Collective::kAllGather, Collective::kBroadcast,
      Collective::kReduce,    Collective::kAllToAll,       Collective::kGather,    Collective::kScatter,
      Collective::kSendRecv,  Collective::kScan,           Collective::kExScan,    Collective::kAllGatherV,
      Collective::kAllToAllV, Collective::kReduceScatterV, Collective::kGatherV,   Collective::kScatterV};
  for (Collective c : collectives) {
    for (DataType type : AllDataTypes()) {
      std::vector<std::optional<ReduceOp>> ops{std::nullopt};
      if (Reduces(c)) ops.assign(AllReduceOps().begin(), AllReduceOps().end());
      for (const auto& op : ops) {
        for (int nranks : {1, 2, 3, 5, 9}) {
          for (int rank : {0, nranks - 1}) {
            const int root = nranks / 2;
            CheckSpec spec = Spec(c, type, op, rank, nranks, 8 * 9 * 5 * 7, root);
            SCOPED_TRACE(testing::Message()
                         << CollectiveName(c) << " " << DataTypeName(type) << " " << (op ? ReduceOpName(*op) : "none")
                         << " n=" << nranks << " rank=" << rank);
            std::vector<char> result = Simulate(spec);
            if (!HasResult(spec)) {
              EXPECT_EQ(CountWrong(spec, result.data()), 0);
              continue;
            }
            ASSERT_GT(result.size(), 0u);
            EXPECT_EQ(CountWrong(spec, result.data()), 0);
            EXPECT_FALSE(FirstWrong(spec, result.data()).has_value());
            // Flip one bit in two elements: the first of them is the one FirstWrong names.
            const size_t elem = DataTypeSize(type);
            const size_t elems = result.size() / elem;
            const size_t flipped = elems / 3, last = elems - 1;
            const double before = reference::DecodeAt(type, result.data(), flipped);
            result[flipped * elem] ^= 0x01;
            if (last > flipped) result[last * elem] ^= 0x01;
            EXPECT_EQ(CountWrong(spec, result.data()), last > flipped ? 2 : 1);
            const std::optional<WrongElement> first = FirstWrong(spec, result.data());
            ASSERT_TRUE(first.has_value());
            EXPECT_EQ(first->index, flipped);
            EXPECT_EQ(std::memcmp(&first->expected, &before, sizeof(double)), 0);
            const double after = reference::DecodeAt(type, result.data(), flipped);
            EXPECT_EQ(std::memcmp(&first->got, &after, sizeof(double)), 0);
            // Unwritten results (poison) are wrong everywhere.
            FillPoison(result.data(), result.size());
            EXPECT_EQ(CountWrong(spec, result.data()), static_cast<int64_t>(elems));
          }
        }
      }
    }
  }
}

TEST(ExactDataTest, InputsDifferBetweenRanksAndPositions) {
  CheckSpec spec = Spec(Collective::kAllGather, DataType::kInt8, std::nullopt, 0, 4, 400);
  EXPECT_NE(InputValue(spec, 0, 0), InputValue(spec, 1, 0));
  EXPECT_NE(InputValue(spec, 0, 0), InputValue(spec, 0, 1));
}

TEST(ExactDataTest, InputsRepeatWithTheirPeriod) {
  // Filling and checking rely on it (a table of one period is repeated).
  for (DataType type : AllDataTypes()) {
    std::vector<std::optional<ReduceOp>> ops{std::nullopt};
    ops.insert(ops.end(), AllReduceOps().begin(), AllReduceOps().end());
    for (const auto& op : ops) {
      CheckSpec spec = Spec(Collective::kAllReduce, type, op, 0, 4, 64);
      const size_t period = op.has_value() ? kReductionPeriod : kMovementPeriod;
      for (int r = 0; r < 12; ++r) {
        for (size_t i = 0; i < 2 * period; ++i) {
          ASSERT_EQ(InputValue(spec, r, i), InputValue(spec, r, i + period)) << DataTypeName(type) << " " << r;
        }
      }
    }
  }
}

TEST(ExactDataTest, EveryOpsInputsVaryWithTheElement) {
  for (ReduceOp op : AllReduceOps()) {
    for (DataType type : {DataType::kInt32, DataType::kUint32}) {
      CheckSpec spec = Spec(Collective::kAllReduce, type, op, 0, 2, 64);
      bool varies = false;
      for (size_t i = 1; i < 16; ++i) varies = varies || InputValue(spec, 0, i) != InputValue(spec, 0, 0);
      EXPECT_TRUE(varies) << ReduceOpName(op) << " " << DataTypeName(type);
    }
  }
}

TEST(ExactDataTest, ReductionsOfInputsStayExactAtManyRanks) {
  // Products stay in {-2, -1, 1, 2} and sums within the rank count, so int8 cannot overflow up to 127 ranks.
  for (int nranks : {16, 127}) {
    CheckSpec prod = Spec(Collective::kAllReduce, DataType::kInt8, ReduceOp::kProd, 0, nranks, 64);
    CheckSpec sum = Spec(Collective::kAllReduce, DataType::kInt8, ReduceOp::kSum, 0, nranks, 64);
    for (size_t i = 0; i < 64; ++i) {
      double p = 1, s = 0;
      for (int r = 0; r < nranks; ++r) {
        p *= InputValue(prod, r, i);
        s += InputValue(sum, r, i);
      }
      EXPECT_LE(std::abs(p), 2.0);
      EXPECT_LE(std::abs(s), 127.0);
    }
  }
}

}  // namespace
}  // namespace bench
}  // namespace kcoll
