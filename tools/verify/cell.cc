#include "tools/verify/cell.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/data/device_memory.h"
#include "bench/data/exact_data.h"
#include "bench/data/layout.h"
#include "bench/data/rounding_data.h"
#include "bench/implementations/mpi_peer.h"
#include "collectives/argument_checks.h"
#include "collectives/kernels/reference_values.h"
#include "collectives/transport/shm/inline_exchange.h"
#include "tools/verify/injected_fault.h"
#include "tools/verify/rounding_check.h"
#include "tools/verify/uneven_blocks.h"

namespace kcoll {
namespace verify {
namespace {

enum class Data { kExact, kRounding };

// How a call is made. The cells rotate through the three, call by call, so that each form meets every collective,
// algorithm and mode of the matrix (and over the calls of a cell, its types, ops, sizes and roots) at the cost of one.
enum class Form { kBlocking, kNonblocking, kGrouped };
constexpr Form kForms[] = {Form::kBlocking, Form::kNonblocking, Form::kGrouped};

// How a failure's description names the form (indexed by Form).
constexpr const char* kFormInWords[] = {"", ", nonblocking", ", in a group"};

// The call made as `form` says: Call; ICall and its Wait; or alone in a group, which GroupEnd runs. A v-collective
// takes equal blocks of `count` (arrays kept here until the call returns).
absl::Status CallAs(Form form, Communicator& comm, Collective collective, const void* send, void* recv, size_t count,
                    DataType type, ReduceOp op, int root, const CallOptions& options, MemoryKind memory) {
  const EqualBlocks blocks(count, comm.size());
  const CollectiveCall call = CollectiveCall::NamedWithBlocks(
      collective, send, recv, count, type, op, root, blocks.counts.data(), blocks.displs.data(), options, memory);
  switch (form) {
    case Form::kNonblocking:
      return comm.ICall(call).Wait();
    case Form::kGrouped: {
      if (absl::Status started = comm.GroupStart(); !started.ok()) return started;
      const absl::Status called = comm.Call(call);
      const absl::Status ended = comm.GroupEnd();
      return called.ok() ? ended : called;
    }
    default:
      return comm.Call(call);
  }
}

bool IsFloatingType(DataType type) { return !reference::IsInteger(type); }

// The layout of a call with `count` elements in NCCL's sense (per rank where the collective counts per rank).
bench::Layout LayoutFor(Collective c, size_t count, size_t elem, int n) {
  const size_t per = FactsOf(c).size_counts_every_rank ? static_cast<size_t>(n) : 1;
  return bench::MakeLayout(c, count * per * elem, elem, n);
}

// Rooted collectives run with the first and the last rank as root: a schedule that assumes one of them shows.
std::vector<int> RootsFor(Collective c, int n) {
  if (!FactsOf(c).rooted || n == 1) return {0};
  return {0, n - 1};
}

std::string Describe(const bench::CheckSpec& spec, Data data, bool in_place, Form form = Form::kBlocking) {
  return absl::StrCat(DataTypeName(spec.type), spec.op ? absl::StrCat(" ", ReduceOpName(*spec.op)) : "", " count ",
                      spec.layout.count, FactsOf(spec.collective).rooted ? absl::StrCat(" root ", spec.root) : "",
                      in_place ? " in place" : "", ", ", data == Data::kExact ? "exact" : "rounding", " data",
                      kFormInWords[static_cast<int>(form)]);
}

// "index I expected E got G": how every mismatch is reported.
std::string Mismatch(size_t index, double expected, double got) {
  return absl::StrCat("index ", index, " expected ", expected, " got ", got);
}

// Why the library must refuse this call (InvalidArgument), or "".
std::string OwedRefusal(const Row& row, Numerics numerics, const bench::CheckSpec& spec, bool in_place) {
  if (in_place && !HasInPlaceForm(row.collective)) return "in place";
  const bool named = row.algorithm != Algorithm::kAuto && row.algorithm != Algorithm::kInline;
  if (named && numerics != Numerics::kFast && Reduces(row.collective) && IsFloatingType(spec.type)) return "order";
  if (row.algorithm == Algorithm::kInline &&
      spec.layout.count * DataTypeSize(spec.type) > InlineExchange::kMaxPayloadBytes) {
    return "size";
  }
  return "";
}

// Where one cell's calls keep their data: host vectors the checks read, and the memory the calls run on (the same
// vectors, registered buffers for `direct` (device memory for cuda), or device buffers for cuda).
class CellMemory {
 public:
  CellMemory(Communicator& comm, bool device, bool registered)
      : comm_(comm), device_(device), registered_(registered) {}
  ~CellMemory() {
    if (device_) {
      bench::DeviceFree(device_send_);
      bench::DeviceFree(device_recv_);
    }
    if (registered_send_ != nullptr) comm_.Free(registered_send_).IgnoreError();
    if (registered_recv_ != nullptr) comm_.Free(registered_recv_).IgnoreError();
  }

  // Collective: room for `bytes` in each buffer.
  absl::Status Reserve(size_t bytes) {
    bytes = std::max<size_t>(bytes, 64);
    host_send.resize(bytes);
    host_recv.resize(bytes);
    if (registered_) {
      auto send = comm_.Allocate(bytes);
      if (!send.ok()) return send.status();
      registered_send_ = *send;
      auto recv = comm_.Allocate(bytes);
      if (!recv.ok()) return recv.status();
      registered_recv_ = *recv;
    } else if (device_) {  // (registered buffers are device memory themselves with cuda kernels)
      auto send = bench::DeviceAlloc(bytes);
      if (!send.ok()) return send.status();
      device_send_ = *send;
      auto recv = bench::DeviceAlloc(bytes);
      if (!recv.ok()) return recv.status();
      device_recv_ = *recv;
    }
    return absl::OkStatus();
  }

  // In place: host_send's first `send_bytes` moved to `send_offset` bytes into host_recv, the one buffer of the call.
  void MergeInPlace(size_t send_bytes, size_t send_offset) {
    std::memcpy(host_recv.data() + send_offset, host_send.data(), send_bytes);
  }

  // Copies the host buffers to where the call runs; returns the call's pointers.
  absl::Status Stage(size_t bytes, const void** send, void** recv) {
    *send = RunSend();
    *recv = RunRecv();
    if (*recv == host_recv.data()) return absl::OkStatus();
    if (absl::Status s = CopyIn(RunSend(), host_send.data(), bytes); !s.ok()) return s;
    return CopyIn(RunRecv(), host_recv.data(), bytes);
  }

  // Copies the result (the whole receive buffer) back into host_recv.
  absl::Status Unstage(size_t bytes) {
    if (RunRecv() == host_recv.data()) return absl::OkStatus();
    if (device_) return bench::CopyToHost(host_recv.data(), RunRecv(), bytes);
    std::memcpy(host_recv.data(), RunRecv(), bytes);
    return absl::OkStatus();
  }

  std::vector<char> host_send, host_recv;

 private:
  Communicator& comm_;
  bool device_, registered_;
  void* registered_send_ = nullptr;
  void* registered_recv_ = nullptr;
  void* device_send_ = nullptr;
  void* device_recv_ = nullptr;

  // Where the calls run: the registered buffers (device memory with cuda kernels), the device buffers, or the host
  // vectors themselves.
  void* RunSend() { return registered_ ? registered_send_ : device_ ? device_send_ : host_send.data(); }
  void* RunRecv() { return registered_ ? registered_recv_ : device_ ? device_recv_ : host_recv.data(); }
  absl::Status CopyIn(void* to, const void* from, size_t bytes) {
    if (device_) return bench::CopyToDevice(to, from, bytes);
    std::memcpy(to, from, bytes);
    return absl::OkStatus();
  }
};

class CellRun {
 public:
  CellRun(Communicator& comm, const VerifyOptions& options, const Row& row, const Setup& setup, Numerics numerics,
          VendorResults& vendor)
      : comm_(comm),
        options_(options),
        row_(row),
        numerics_(numerics),
        vendor_(vendor),
        memory_(comm, setup.exec == ExecBackend::kCuda,
                FactsOf(row.algorithm).needs == AlgorithmNeeds::kRegisteredBuffers),
        memory_kind_(setup.exec == ExecBackend::kCuda ? MemoryKind::kDevice : MemoryKind::kHost) {}

  CellResult Run() {
    const std::vector<DataType>& types = options_.types.empty() ? AllDataTypes() : options_.types;
    std::vector<std::optional<ReduceOp>> ops = {std::nullopt};
    if (Reduces(row_.collective)) ops.assign(AllReduceOps().begin(), AllReduceOps().end());
    if (absl::Status s = memory_.Reserve(LargestBytes()); !s.ok()) Fail(absl::StrCat("buffers: ", s.message()));
    if (row_.collective == Collective::kBarrier) {
      Check(DataType::kInt8, std::nullopt, 0, /*root=*/0, /*in_place=*/false, Data::kExact);
    } else if (failed_ == 0) {
      for (DataType type : types) {
        for (const std::optional<ReduceOp>& op : ops) {
          for (size_t count : options_.counts) {
            for (int root : RootsFor(row_.collective, comm_.size())) {
              for (bool in_place : {false, true}) {
                Check(type, op, count, root, in_place, Data::kExact);
                if (IsVariable(row_.collective)) CheckUneven(type, op, count, root, in_place);
                if (op.has_value() && IsFloatingType(type) && RoundingChecked(*op, numerics_)) {
                  Check(type, op, count, root, in_place, Data::kRounding);
                }
              }
            }
          }
        }
      }
    }
    return Gather();
  }

 private:
  size_t LargestBytes() const {
    size_t largest = 0;
    for (size_t count : options_.counts) {
      const bench::Layout l = LayoutFor(row_.collective, count, 8, comm_.size());
      largest = std::max(largest, std::max(l.send_count, l.recv_count) * 8);
    }
    return largest;
  }

  void Fail(const std::string& what) {
    if (failed_++ == 0) first_failure_ = what;
  }

  // One call on `data`: out of place, or in place (the send and receive blocks at the offsets of bench/data/layout.h
  // within one buffer, which the result is read from).
  void Check(DataType type, std::optional<ReduceOp> op, size_t count, int root, bool in_place, Data data) {
    const int n = comm_.size(), rank = comm_.rank();
    bench::CheckSpec spec{
        row_.collective, type, op, root, rank, n, LayoutFor(row_.collective, count, DataTypeSize(type), n)};
    const size_t elem = DataTypeSize(type);
    const size_t bytes = std::max(spec.layout.send_count, spec.layout.recv_count) * elem;
    if (data == Data::kExact) {
      bench::FillInput(spec, memory_.host_send.data(), 0, spec.layout.send_count);
    } else {
      bench::FillRoundingSensitive(spec, memory_.host_send.data(), spec.layout.send_count);
    }
    bench::FillPoison(memory_.host_recv.data(), bytes);
    const size_t send_offset = in_place ? rank * spec.layout.send_inplace_offset * elem : 0;
    const size_t recv_offset = in_place ? rank * spec.layout.recv_inplace_offset * elem : 0;
    if (in_place) memory_.MergeInPlace(spec.layout.send_count * elem, send_offset);
    // MPI's result first: it is a collective call every rank makes, whatever this rank's checks find below.
    const std::vector<char>* mpi =
        data == Data::kExact && row_.collective != Collective::kBarrier ? vendor_.Get(spec) : nullptr;
    ++calls_;
    const void* send = nullptr;
    void* recv = nullptr;
    absl::Status status = memory_.Stage(bytes, &send, &recv);
    if (in_place) send = static_cast<char*>(recv) + send_offset;
    recv = static_cast<char*>(recv) + recv_offset;
    const Form form = kForms[forms_used_++ % 3];
    if (status.ok()) {
      CallOptions call_options;
      call_options.algorithm = row_.algorithm;
      call_options.numerics = numerics_;
      status = CallAs(form, comm_, row_.collective, send, recv, spec.layout.count, type, op.value_or(ReduceOp::kSum),
                      spec.root, call_options, memory_kind_);
      if (status.ok()) status = memory_.Unstage(bytes);
    }
    const std::string what = Describe(spec, data, in_place, form);
    if (const std::string owed = OwedRefusal(row_, numerics_, spec, in_place); !owed.empty()) {
      if (status.code() == absl::StatusCode::kInvalidArgument) {
        ++refused_;
        if (owed == "order") ++refused_for_order_;
      } else {
        Fail(absl::StrCat(what, ": the library owes InvalidArgument (", owed, "), got ",
                          status.ok() ? "OK" : status.ToString()));
      }
      return;
    }
    if (!status.ok()) return Fail(absl::StrCat(what, ": ", status.ToString()));
    if (row_.collective == Collective::kBarrier) return;
    char* got = memory_.host_recv.data() + recv_offset;
    if (Fault().wrong_row == row_.name && rank == std::min(1, n - 1) && spec.layout.recv_count > 0) {
      got[(spec.layout.recv_count / 2) * elem] ^= 0x01;
    }
    if (data == Data::kRounding) {
      if (const auto wrong = CheckRounding(spec, numerics_, got); wrong.has_value()) {
        return Fail(absl::StrCat(what, ": ", Mismatch(wrong->index, wrong->expected, wrong->got),
                                 wrong->bound > 0 ? absl::StrCat(" (allowed error ", wrong->bound, ")") : ""));
      }
      if (row_.collective == Collective::kAllReduce && type == DataType::kFloat64 && op == ReduceOp::kSum &&
          count == *std::max_element(options_.counts.begin(), options_.counts.end())) {
        fingerprint_ = bench::Fingerprint(got, spec.layout.recv_count * elem);
      }
      return;
    }
    if (const auto wrong = bench::FirstWrong(spec, got); wrong.has_value()) {
      return Fail(absl::StrCat(what, ": ", Mismatch(wrong->index, wrong->expected, wrong->got)));
    }
    if (mpi != nullptr && bench::HasResult(spec)) {
      const size_t result_bytes = spec.layout.recv_count * elem;
      if (mpi->size() < result_bytes || std::memcmp(mpi->data(), got, result_bytes) != 0) {
        Fail(absl::StrCat(what, ": matches the reference but not the vendor MPI's result"));
      }
    }
  }

  // The v-collectives once more on blocks of different sizes (uneven_blocks.h), on host buffers (the device and
  // registered-buffer cells keep to equal blocks); not where the equal-block call is owed a refusal, which Check
  // has seen to.
  void CheckUneven(DataType type, std::optional<ReduceOp> op, size_t count, int root, bool in_place) {
    if (memory_kind_ != MemoryKind::kHost || FactsOf(row_.algorithm).needs == AlgorithmNeeds::kRegisteredBuffers)
      return;
    const int n = comm_.size();
    const bench::CheckSpec spec{
        row_.collective, type, op, root, comm_.rank(), n, LayoutFor(row_.collective, count, DataTypeSize(type), n)};
    if (!OwedRefusal(row_, numerics_, spec, in_place).empty()) return;
    UnevenCall call;
    call.collective = row_.collective;
    call.type = type;
    call.op = op;
    call.count = count;
    call.root = root;
    call.in_place = in_place;
    call.options.algorithm = row_.algorithm;
    call.options.numerics = numerics_;
    ++calls_;
    const absl::StatusOr<std::string> wrong = CheckUnevenBlocks(comm_, MPI_COMM_WORLD, call);
    if (wrong.ok() && wrong->empty()) return;
    Fail(absl::StrCat(Describe(spec, Data::kExact, in_place),
                      ", uneven blocks: ", wrong.ok() ? *wrong : wrong.status().ToString()));
  }

  // Combines every rank's outcome; the first failure reported is the lowest failing rank's.
  CellResult Gather() {
    const int n = comm_.size(), rank = comm_.rank();
    int64_t failed = 0;
    MPI_Allreduce(&failed_, &failed, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int first_rank = failed_ > 0 ? rank : n;
    MPI_Allreduce(MPI_IN_PLACE, &first_rank, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CellResult result;
    result.calls = calls_;
    result.refused = refused_;
    result.fingerprint = fingerprint_;
    MPI_Bcast(&result.fingerprint, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (failed > 0) {
      std::string message = absl::StrCat("rank ", rank, ": ", first_failure_);
      int length = static_cast<int>(message.size());
      MPI_Bcast(&length, 1, MPI_INT, first_rank, MPI_COMM_WORLD);
      message.resize(length);
      MPI_Bcast(message.data(), length, MPI_CHAR, first_rank, MPI_COMM_WORLD);
      result.state = CellResult::State::kFail;
      result.code = "FAIL";
      result.first_failure = message;
      return result;
    }
    // A named algorithm under deterministic or exact runs integer data only: it passes as "(order)".
    if (refused_for_order_ > 0) {
      result.state = CellResult::State::kNotApplicable;
      result.code = "(order)";
      return result;
    }
    result.code = "pass";
    return result;
  }

  Communicator& comm_;
  const VerifyOptions& options_;
  const Row& row_;
  Numerics numerics_;
  VendorResults& vendor_;
  CellMemory memory_;
  MemoryKind memory_kind_;
  int64_t calls_ = 0, refused_ = 0, refused_for_order_ = 0, failed_ = 0;
  uint64_t forms_used_ = 0;  // the calls made so far, which pick each call's Form
  std::string first_failure_;
  uint64_t fingerprint_ = 0;
};

}  // namespace

const std::vector<char>* VendorResults::Get(const bench::CheckSpec& spec) {
  const auto key = std::make_tuple(static_cast<int>(spec.collective), static_cast<int>(spec.type),
                                   spec.op ? static_cast<int>(*spec.op) : -1, spec.layout.count, spec.root);
  if (auto it = results_.find(key); it != results_.end()) return it->second ? &*it->second : nullptr;
  std::optional<std::vector<char>>& kept = results_[key];  // stays empty unless MPI's result agrees
  const size_t elem = DataTypeSize(spec.type);
  const size_t bytes = std::max<size_t>(std::max(spec.layout.send_count, spec.layout.recv_count) * elem, 64);
  std::vector<char> send(bytes), recv(bytes);
  bench::FillInput(spec, send.data(), 0, spec.layout.send_count);
  bench::FillPoison(recv.data(), bytes);
  bench::Call call{spec.collective, send.data(), recv.data(), spec.layout, spec.type, spec.op, spec.root, false};
  std::unique_ptr<bench::Implementation> peer = bench::MakeMpiPeer(spec.collective, comm_);
  const absl::Status status = peer->Run(call);
  if (!status.ok()) return nullptr;  // MPI has no such reduction (16-bit floats, avg): the same on every rank
  const char* result = static_cast<const char*>(peer->Result(call));
  ++calls_[spec.collective];
  std::string& disagreement = disagreements_[spec.collective];
  if (const auto wrong = bench::FirstWrong(spec, result); wrong.has_value() && disagreement.empty()) {
    disagreement = absl::StrCat(Describe(spec, Data::kExact, /*in_place=*/false), ": ",
                                Mismatch(wrong->index, wrong->expected, wrong->got));
  }
  // kcoll is compared with the reference alone where MPI disagrees with it.
  if (!disagreement.empty()) return nullptr;
  kept.emplace(result, result + spec.layout.recv_count * elem);
  return &*kept;
}

CellResult RunCell(Communicator& comm, const VerifyOptions& options, const Row& row, const Setup& setup,
                   Numerics numerics, VendorResults& vendor) {
  return CellRun(comm, options, row, setup, numerics, vendor).Run();
}

}  // namespace verify
}  // namespace kcoll
