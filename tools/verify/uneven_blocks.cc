#include "tools/verify/uneven_blocks.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/data/exact_data.h"
#include "collectives/collective_call.h"
#include "collectives/kernels/reference_values.h"
#include "collectives/transport/mpi/mpi_datatypes.h"

namespace kcoll {
namespace verify {
namespace {

// Rank j's block: count/2, count or no elements as j % 3 is 0, 1 or 2.
size_t BlockOf(int j, size_t count) { return count * static_cast<size_t>((j + 1) % 3) / 2; }

// Blocks of count_of(k) elements for k = 0..n-1, each followed by one element of gap (or none: end to end).
struct Blocks {
  std::vector<size_t> counts, displs;
  size_t span = 0;  // elements the blocks (and gaps) take
  Blocks(int n, const std::function<size_t(int)>& count_of, size_t gap) {
    for (int k = 0; k < n; ++k) {
      counts.push_back(count_of(k));
      displs.push_back(span);
      span += counts.back() + gap;
    }
  }
  std::vector<int> IntCounts() const { return std::vector<int>(counts.begin(), counts.end()); }
  std::vector<int> IntDispls() const { return std::vector<int>(displs.begin(), displs.end()); }
};

// A buffer of `elements` elements (at least one byte, so that it has an address) filled with the poison pattern.
std::vector<char> Poisoned(size_t elements, size_t elem) {
  std::vector<char> buffer(std::max<size_t>(elements * elem, 1));
  bench::FillPoison(buffer.data(), buffer.size());
  return buffer;
}

class UnevenCheck {
 public:
  UnevenCheck(Communicator& comm, MPI_Comm mpi, const UnevenCall& call)
      : comm_(comm), mpi_(mpi), call_(call), n_(comm.size()), rank_(comm.rank()), elem_(DataTypeSize(call.type)) {
    spec_.collective = call.collective;
    spec_.type = call.type;
    spec_.op = call.op;
    spec_.nranks = n_;
  }

  absl::StatusOr<std::string> Run() {
    switch (call_.collective) {
      case Collective::kAllGatherV:
      case Collective::kGatherV:
        return Gathers();
      case Collective::kScatterV:
        return Scatters();
      case Collective::kAllToAllV:
        return Exchanges();
      case Collective::kReduceScatterV:
        return ReduceScatters();
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("uneven blocks: ", CollectiveName(call_.collective), " is not a v-collective"));
    }
  }

 private:
  double In(int rank, size_t i) const { return bench::InputValue(spec_, rank, i); }
  void Put(std::vector<char>& buffer, size_t i, double v) const {
    reference::EncodeAt(call_.type, buffer.data(), i, v);
  }
  void Fill(std::vector<char>& buffer, size_t first, size_t count, int rank, size_t input_first) const {
    for (size_t i = 0; i < count; ++i) Put(buffer, first + i, In(rank, input_first + i));
  }
  MPI_Datatype Mpi() const { return MpiDatatypeOf(call_.type); }

  // "" when `got` equals `want` over elements [first, first + count), else the first differing element.
  std::string Compare(const std::vector<char>& want, const std::vector<char>& got, size_t first, size_t count,
                      const char* whose) const {
    for (size_t i = first; i < first + count; ++i) {
      if (std::memcmp(want.data() + i * elem_, got.data() + i * elem_, elem_) != 0) {
        return absl::StrCat(whose, "index ", i, " expected ", reference::DecodeAt(call_.type, want.data(), i), " got ",
                            reference::DecodeAt(call_.type, got.data(), i));
      }
    }
    return "";
  }
  std::string CompareAll(const std::vector<char>& want, const std::vector<char>& got, const char* whose) const {
    return Compare(want, got, 0, want.size() / elem_, whose);
  }

  // AllGatherV, and GatherV at the root: block j of the result, at its displacement, is rank j's input.
  absl::StatusOr<std::string> Gathers() {
    const bool all = call_.collective == Collective::kAllGatherV;
    const bool receives = all || rank_ == call_.root;
    const bool in_place = call_.in_place && receives;
    const Blocks b(
        n_, [&](int j) { return BlockOf(j, call_.count); }, 1);
    const size_t mine = b.counts[rank_];
    std::vector<char> recv = Poisoned(b.span, elem_), send = Poisoned(mine, elem_);
    Fill(send, 0, mine, rank_, 0);
    if (in_place) Fill(recv, b.displs[rank_], mine, rank_, 0);
    std::vector<char> want = recv, vendor = recv;
    for (int j = 0; j < n_; ++j) Fill(want, b.displs[j], b.counts[j], j, 0);
    const std::vector<int> counts = b.IntCounts(), displs = b.IntDispls();
    if (all) {
      MPI_Allgatherv(send.data(), static_cast<int>(mine), Mpi(), vendor.data(), counts.data(), displs.data(), Mpi(),
                     mpi_);
    } else {
      MPI_Gatherv(send.data(), static_cast<int>(mine), Mpi(), vendor.data(), counts.data(), displs.data(), Mpi(),
                  call_.root, mpi_);
    }
    const void* from = in_place ? recv.data() + b.displs[rank_] * elem_ : send.data();
    void* into = receives ? recv.data() : nullptr;
    const CollectiveCall c =
        all ? CollectiveCall::AllGatherV(from, mine, into, b.counts.data(), b.displs.data(), call_.type, call_.options)
            : CollectiveCall::GatherV(from, mine, into, b.counts.data(), b.displs.data(), call_.type, call_.root,
                                      call_.options);
    if (absl::Status s = comm_.Call(c); !s.ok()) return s;
    if (!receives) return std::string();
    if (std::string wrong = CompareAll(want, recv, ""); !wrong.empty()) return wrong;
    return CompareAll(vendor, recv, "the vendor MPI's result differs: ");
  }

  // ScatterV: rank r receives the root's elements at displacement r; the root's buffer has a gap after each block.
  absl::StatusOr<std::string> Scatters() {
    const Blocks b(
        n_, [&](int j) { return BlockOf(j, call_.count); }, 1);
    const bool root = rank_ == call_.root, in_place = call_.in_place && root;
    const size_t mine = b.counts[rank_];
    std::vector<char> send = Poisoned(b.span, elem_), recv = Poisoned(mine + 1, elem_);
    if (root) Fill(send, 0, b.span, rank_, 0);
    std::vector<char> want = recv, vendor = recv, sent = send;
    Fill(want, 0, mine, call_.root, b.displs[rank_]);
    const std::vector<int> counts = b.IntCounts(), displs = b.IntDispls();
    MPI_Scatterv(sent.data(), counts.data(), displs.data(), Mpi(), vendor.data(), static_cast<int>(mine), Mpi(),
                 call_.root, mpi_);
    void* into = in_place ? send.data() + b.displs[rank_] * elem_ : recv.data();
    const CollectiveCall c = CollectiveCall::ScatterV(root ? send.data() : nullptr, b.counts.data(), b.displs.data(),
                                                      into, mine, call_.type, call_.root, call_.options);
    if (absl::Status s = comm_.Call(c); !s.ok()) return s;
    // In place the root's block stays where it is, and so does the rest of its buffer.
    if (in_place) return CompareAll(sent, send, "the root's buffer in place: ");
    if (std::string wrong = CompareAll(want, recv, ""); !wrong.empty()) return wrong;
    return CompareAll(vendor, recv, "the vendor MPI's result differs: ");
  }

  // AllToAllV: ranks i and j exchange rank (i + j) % n's block count each way; block j of rank r's result is rank
  // j's block for r. No in-place form.
  absl::StatusOr<std::string> Exchanges() {
    if (call_.in_place) return std::string();
    auto blocks_of = [&](int r) {
      return Blocks(
          n_, [&, r](int k) { return BlockOf((r + k) % n_, call_.count); }, 1);
    };
    const Blocks mine = blocks_of(rank_);
    std::vector<char> send = Poisoned(mine.span, elem_), recv = Poisoned(mine.span, elem_);
    Fill(send, 0, mine.span, rank_, 0);
    std::vector<char> want = recv, vendor = recv;
    for (int j = 0; j < n_; ++j) Fill(want, mine.displs[j], mine.counts[j], j, blocks_of(j).displs[rank_]);
    const std::vector<int> counts = mine.IntCounts(), displs = mine.IntDispls();
    MPI_Alltoallv(send.data(), counts.data(), displs.data(), Mpi(), vendor.data(), counts.data(), displs.data(), Mpi(),
                  mpi_);
    const CollectiveCall c =
        CollectiveCall::AllToAllV(send.data(), mine.counts.data(), mine.displs.data(), recv.data(), mine.counts.data(),
                                  mine.displs.data(), call_.type, call_.options);
    if (absl::Status s = comm_.Call(c); !s.ok()) return s;
    if (std::string wrong = CompareAll(want, recv, ""); !wrong.empty()) return wrong;
    return CompareAll(vendor, recv, "the vendor MPI's result differs: ");
  }

  // ReduceScatterV: the input's blocks lie end to end; rank r's result is the reduction over ranks of its block.
  absl::StatusOr<std::string> ReduceScatters() {
    const Blocks b(
        n_, [&](int j) { return BlockOf(j, call_.count); }, 0);
    const size_t mine = b.counts[rank_], at = b.displs[rank_];
    std::vector<char> send = Poisoned(b.span, elem_), recv = Poisoned(mine + 1, elem_);
    Fill(send, 0, b.span, rank_, 0);
    const std::vector<char> input = send;
    std::vector<char> want = call_.in_place ? send : recv, vendor = recv;
    const size_t result_at = call_.in_place ? at : 0;
    for (size_t i = 0; i < mine; ++i) {
      Put(want, result_at + i,
          reference::ReduceOverRanks(call_.type, *call_.op, n_, [&](int q) { return In(q, at + i); }));
    }
    // MPI's result (out of place, where MPI has the reduction: the same on every rank).
    const std::optional<MPI_Op> op = MpiOpOf(*call_.op);
    const bool vendor_has_it = !call_.in_place && op.has_value() && !IsHalfPrecision(call_.type);
    const std::vector<int> counts = b.IntCounts();
    if (vendor_has_it) MPI_Reduce_scatter(input.data(), vendor.data(), counts.data(), Mpi(), *op, mpi_);
    void* into = call_.in_place ? send.data() + at * elem_ : recv.data();
    const CollectiveCall c =
        CollectiveCall::ReduceScatterV(send.data(), into, b.counts.data(), call_.type, *call_.op, call_.options);
    if (absl::Status s = comm_.Call(c); !s.ok()) return s;
    const std::vector<char>& got = call_.in_place ? send : recv;
    // In place only the rank's own block is the result (the rest of the buffer is the schedule's to use).
    if (std::string wrong = Compare(want, got, result_at, call_.in_place ? mine : mine + 1, ""); !wrong.empty()) {
      return wrong;
    }
    return vendor_has_it ? Compare(vendor, got, 0, mine, "the vendor MPI's result differs: ") : std::string();
  }

  Communicator& comm_;
  MPI_Comm mpi_;
  const UnevenCall& call_;
  const int n_, rank_;
  const size_t elem_;
  bench::CheckSpec spec_;
};

}  // namespace

absl::StatusOr<std::string> CheckUnevenBlocks(Communicator& comm, MPI_Comm mpi, const UnevenCall& call) {
  return UnevenCheck(comm, mpi, call).Run();
}

}  // namespace verify
}  // namespace kcoll
