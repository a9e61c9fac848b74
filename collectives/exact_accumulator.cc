#include "collectives/exact_accumulator.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "base/half.h"
#include "base/status_macros.h"
#include "collectives/kernels/exact_sum.h"

namespace kcoll {
namespace {

bool IsFiniteNonzero(uint8_t code) { return code > kExactCodePosZero && code < kExactCodeInf; }

// Moves one element's limbs from the window `from` names to the (higher or equal) window `to` names. The bins are
// fixed positions, so moving up drops whole bottom bins, as converting each term in the new window would.
void Rewindow(int64_t* limbs, int k, uint8_t from, uint8_t to) {
  if (from == to) return;
  if (to >= kExactCodeInf) {  // an infinity or NaN: finite terms no longer count; infinities are counted afresh
    if (from != kExactCodeInf) std::fill(limbs, limbs + k, 0);
    return;
  }
  if (!IsFiniteNonzero(from)) return;  // zeros: nothing held
  const int up = to - from;            // bins the window moves up
  for (int j = k - 1; j >= 0; --j) limbs[j] = j - up >= 0 ? limbs[j - up] : 0;
}

template <class T>
void AddTerms(const T* terms, size_t count, int k, uint8_t* codes, int64_t* sums) {
  for (size_t i = 0; i < count; ++i) {
    const uint8_t code = ExactCode(terms[i]);
    if (code > codes[i]) {
      Rewindow(sums + i * k, k, codes[i], code);
      codes[i] = code;
    }
    ExactAddTermToBins(terms[i], codes[i], sums + i * k);
  }
}

template <class T>
void Round(const int64_t* sums, const uint8_t* codes, size_t count, int k, void* result) {
  T* out = static_cast<T*>(result);
  for (size_t i = 0; i < count; ++i) out[i] = ExactResultFromBins<T>(sums + i * k, codes[i]);
}

}  // namespace

ExactAccumulator::ExactAccumulator(DataType type, size_t count, int limbs)
    : type_(type), count_(count), limbs_(limbs), codes_(count, kExactCodeNegZero), sums_(count * limbs, 0) {}

absl::StatusOr<ExactAccumulator> ExactAccumulator::Create(DataType type, size_t count) {
  const int limbs = ExactBinCount(type);
  if (limbs == 0) {
    return absl::InvalidArgumentError(absl::StrCat("ExactAccumulator: type ", DataTypeName(type),
                                                   " is not a floating-point type (float64, float32, float16, "
                                                   "bfloat16)"));
  }
  return ExactAccumulator(type, count, limbs);
}

absl::Status ExactAccumulator::Add(const void* terms) {
  if (terms == nullptr && count_ > 0) return absl::InvalidArgumentError("ExactAccumulator::Add: terms is null");
  if (terms_ + 1 > kExactMaxTerms) {
    return absl::OutOfRangeError(absl::StrCat("ExactAccumulator::Add: an element holds at most ", kExactMaxTerms,
                                              " terms; this one has ", terms_));
  }
  switch (type_) {
    case DataType::kFloat64:
      AddTerms(static_cast<const double*>(terms), count_, limbs_, codes_.data(), sums_.data());
      break;
    case DataType::kFloat32:
      AddTerms(static_cast<const float*>(terms), count_, limbs_, codes_.data(), sums_.data());
      break;
    case DataType::kFloat16:
      AddTerms(static_cast<const Float16*>(terms), count_, limbs_, codes_.data(), sums_.data());
      break;
    default:
      AddTerms(static_cast<const Bfloat16*>(terms), count_, limbs_, codes_.data(), sums_.data());
      break;
  }
  ++terms_;
  return absl::OkStatus();
}

absl::Status ExactAccumulator::AllReduce(Communicator& comm, void* result) const {
  if (result == nullptr && count_ > 0) return absl::InvalidArgumentError("ExactAccumulator::AllReduce: result is null");
  CallOptions fast;
  fast.numerics = Numerics::kFast;  // integers and a max: exact in any order
  // The window of each element over every rank's terms.
  std::vector<uint8_t> codes(codes_);
  KCOLL_RETURN_IF_ERROR(comm.AllReduce(codes.data(), codes.data(), count_, DataType::kUint8, ReduceOp::kMax, fast));
  // This rank's limbs moved to it, and the term count in the last place: the sum over the ranks is checked.
  const size_t k = static_cast<size_t>(limbs_);
  std::vector<int64_t> sums(sums_.size() + 1);
  for (size_t i = 0; i < count_; ++i) {
    std::copy(sums_.begin() + i * k, sums_.begin() + (i + 1) * k, sums.begin() + i * k);
    Rewindow(sums.data() + i * k, limbs_, codes_[i], codes[i]);
  }
  sums.back() = terms_;
  KCOLL_RETURN_IF_ERROR(comm.AllReduce(sums.data(), sums.data(), sums.size(), DataType::kInt64, ReduceOp::kSum, fast));
  if (sums.back() > kExactMaxTerms) {
    return absl::OutOfRangeError(absl::StrCat("ExactAccumulator::AllReduce: the ranks hold ", sums.back(),
                                              " terms per element; an exact sum takes at most ", kExactMaxTerms));
  }
  if (sums.back() == 0) {  // no terms anywhere: the empty sum, +0
    std::memset(result, 0, count_ * DataTypeSize(type_));
    return absl::OkStatus();
  }
  switch (type_) {
    case DataType::kFloat64:
      Round<double>(sums.data(), codes.data(), count_, limbs_, result);
      break;
    case DataType::kFloat32:
      Round<float>(sums.data(), codes.data(), count_, limbs_, result);
      break;
    case DataType::kFloat16:
      Round<Float16>(sums.data(), codes.data(), count_, limbs_, result);
      break;
    default:
      Round<Bfloat16>(sums.data(), codes.data(), count_, limbs_, result);
      break;
  }
  return absl::OkStatus();
}

void ExactAccumulator::Clear() {
  std::fill(codes_.begin(), codes_.end(), kExactCodeNegZero);
  std::fill(sums_.begin(), sums_.end(), 0);
  terms_ = 0;
}

}  // namespace kcoll
