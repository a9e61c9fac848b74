#include "collectives/transport/shm/registered_memory.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "collectives/transport/shm/spin_policy.h"

namespace kcoll {
namespace {

constexpr size_t kAlignment = shm::kCacheLine;

size_t RoundUp(size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

absl::StatusOr<std::unique_ptr<RegisteredMemory>> RegisteredMemory::Create(MPI_Comm comm, std::vector<int> rank_names,
                                                                           int spin_polls) {
  MPI_Comm dup = MPI_COMM_NULL;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) return absl::InternalError("registered memory: MPI_Comm_dup failed");
  int rank = 0, size = 1;
  MPI_Comm_rank(dup, &rank);
  MPI_Comm_size(dup, &size);
  std::unique_ptr<RegisteredMemory> m(new RegisteredMemory(dup, rank, size));
  if (!rank_names.empty() && static_cast<int>(rank_names.size()) != size) {
    return absl::InvalidArgumentError(
        absl::StrCat("RegisteredMemory: ", rank_names.size(), " rank names for ", size, " ranks"));
  }
  m->rank_names_ = std::move(rank_names);
  auto lines = shm::Segment::Create(dup, sizeof(RankLines) * static_cast<size_t>(size));
  if (!lines.ok()) return lines.status();
  m->lines_ = *std::move(lines);
  m->spin_polls_ = shm::ChooseSpinPolls(dup, spin_polls);
  return m;
}

RegisteredMemory::~RegisteredMemory() {
  allocations_.clear();
  lines_.reset();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void RegisteredMemory::set_timeout(absl::Duration timeout, std::string source) {
  timeout_ = timeout;
  timeout_source_ = std::move(source);
}

absl::StatusOr<void*> RegisteredMemory::Allocate(uint32_t id, size_t bytes) {
  // Every rank's size, so that each knows where every part begins.
  const uint64_t mine = bytes;
  std::vector<uint64_t> sizes(size_);
  MPI_Allgather(&mine, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, comm_);
  Allocation a;
  a.id = id;
  size_t total = 0;
  for (int r = 0; r < size_; ++r) {
    a.offsets.push_back(total);
    a.sizes.push_back(sizes[r]);
    total += RoundUp(sizes[r]);
  }
  auto segment = shm::Segment::Create(comm_, total);
  if (!segment.ok()) {
    return absl::Status(segment.status().code(),
                        absl::StrCat("Allocate(", bytes, "): ", total, " bytes of shared memory for the node's ", size_,
                                     " ranks: ", segment.status().message()));
  }
  a.segment = *std::move(segment);
  void* data = a.segment->data() + a.offsets[rank_];
  allocations_.push_back(std::move(a));
  return data;
}

uint32_t RegisteredMemory::AllocationAt(const void* data) const {
  for (const Allocation& a : allocations_) {
    if (a.segment->data() + a.offsets[rank_] == data) return a.id;
  }
  return 0;
}

void RegisteredMemory::Release(uint32_t id) {
  allocations_.erase(
      std::remove_if(allocations_.begin(), allocations_.end(), [id](const Allocation& a) { return a.id == id; }),
      allocations_.end());
}

RegisteredMemory::Location RegisteredMemory::Find(const void* data, size_t bytes) const {
  const auto* p = static_cast<const unsigned char*>(data);
  for (const Allocation& a : allocations_) {
    const unsigned char* begin = a.segment->data() + a.offsets[rank_];
    if (p >= begin && p + bytes <= begin + a.sizes[rank_]) return Location{a.id, static_cast<uint64_t>(p - begin)};
  }
  return Location{};
}

bool RegisteredMemory::Contains(const void* data, size_t bytes) const { return Find(data, bytes).allocation != 0; }

const RegisteredMemory::Allocation* RegisteredMemory::FindAllocation(uint32_t id) const {
  for (const Allocation& a : allocations_) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

template <class Behind>
absl::Status RegisteredMemory::WaitUntilNoneBehind(Behind behind, absl::string_view waiting_for) {
  shm::IdlePacer pacer(spin_polls_, timeout_);
  int was_behind = size_;
  while (true) {
    int count = 0;
    for (int r = 0; r < size_; ++r) count += behind(r) ? 1 : 0;
    if (count == 0) return absl::OkStatus();
    if (count < was_behind) {  // someone caught up: the timeout counts from here
      was_behind = count;
      pacer.Moved();
    } else if (!pacer.Idle()) {
      break;
    }
  }
  std::vector<int> missing;
  for (int r = 0; r < size_; ++r) {
    if (behind(r)) missing.push_back(Name(r));
  }
  return absl::DeadlineExceededError(absl::StrCat(
      call_.collective, " (", call_.algorithm, ") on rank ", Name(rank_), ": no rank arrived for ",
      absl::FormatDuration(timeout_), " (", timeout_source_.empty() ? "timeout" : timeout_source_, ") at step ", step_,
      " of the registered-buffer schedule, ", absl::StrFormat("%.3f", call_.SecondsSinceStart()),
      " s after the call began; ranks that did not arrive: ", absl::StrJoin(missing, ", "), " (", waiting_for,
      "; a peer stopped, died, or called another collective)"));
}

absl::Status RegisteredMemory::Arrive() {
  ++step_;
  lines(rank_).arrived.store(++arrived_, std::memory_order_release);
  return WaitUntilNoneBehind([this](int r) { return lines(r).arrived.load(std::memory_order_acquire) < arrived_; },
                             "waiting at a barrier");
}

void RegisteredMemory::Publish(uint32_t step) {
  lines(rank_).progress.store(calls_ << 32 | step, std::memory_order_release);
}

absl::Status RegisteredMemory::WaitFor(int peer, uint32_t step) {
  const uint64_t target = calls_ << 32 | step;
  if (lines(peer).progress.load(std::memory_order_acquire) >= target) return absl::OkStatus();
  ++step_;
  return WaitUntilNoneBehind(
      [this, peer, target](int r) { return r == peer && lines(r).progress.load(std::memory_order_acquire) < target; },
      "waiting for a peer's part of the result");
}

absl::StatusOr<bool> RegisteredMemory::Exchange(const Transport::CallInfo& call, const void* send, size_t send_bytes,
                                                const void* recv, size_t recv_bytes, Buffers* peers) {
  call_ = call;
  step_ = 0;
  const int slot = static_cast<int>(calls_++ % 2);
  const Location s = send_bytes > 0 ? Find(send, send_bytes) : Location{};
  const Location r = recv_bytes > 0 ? Find(recv, recv_bytes) : Location{};
  Descriptor& mine = lines(rank_).calls[slot];
  mine.signature = call.signature;
  // A buffer of no bytes needs no memory: it counts as registered.
  mine.send_allocation = send_bytes > 0 ? s.allocation : UINT32_MAX;
  mine.recv_allocation = recv_bytes > 0 ? r.allocation : UINT32_MAX;
  mine.send_offset = s.offset;
  mine.recv_offset = r.offset;
  if (absl::Status arrived = Arrive(); !arrived.ok()) return arrived;
  for (int p = 0; p < size_; ++p) {
    const Descriptor& d = lines(p).calls[slot];
    if (d.signature != call.signature) {
      return absl::InvalidArgumentError(absl::StrCat(
          call.collective, " on rank ", Name(rank_), ": rank ", Name(p),
          " called with different arguments (collective, count, type, op, root or algorithm; KCOLL_CHECK_ARGS=1 "
          "names the field)"));
    }
  }
  bool registered = true;
  for (int p = 0; p < size_; ++p) {
    const Descriptor& d = lines(p).calls[slot];
    if (d.send_allocation == 0 || d.recv_allocation == 0) registered = false;
  }
  if (!registered) return false;
  peers->send.assign(size_, nullptr);
  peers->recv.assign(size_, nullptr);
  for (int p = 0; p < size_; ++p) {
    const Descriptor& d = lines(p).calls[slot];
    const Allocation* sa = d.send_allocation == UINT32_MAX ? nullptr : FindAllocation(d.send_allocation);
    const Allocation* ra = d.recv_allocation == UINT32_MAX ? nullptr : FindAllocation(d.recv_allocation);
    // Allocations are collective: every id a peer names is one this rank maps.
    if (sa != nullptr) peers->send[p] = sa->segment->data() + sa->offsets[p] + d.send_offset;
    if (ra != nullptr) peers->recv[p] = ra->segment->data() + ra->offsets[p] + d.recv_offset;
  }
  return true;
}

absl::Status RegisteredMemory::Barrier() { return Arrive(); }

}  // namespace kcoll
