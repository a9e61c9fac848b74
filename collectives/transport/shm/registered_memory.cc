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

// Host memory: one segment of the node holds every rank's part, one after the other.
class SegmentParts final : public MappedParts {
 public:
  SegmentParts(std::unique_ptr<shm::Segment> segment, std::vector<size_t> offsets)
      : segment_(std::move(segment)), offsets_(std::move(offsets)) {}
  unsigned char* part(int local_rank) const override { return segment_->data() + offsets_[local_rank]; }

 private:
  std::unique_ptr<shm::Segment> segment_;
  std::vector<size_t> offsets_;
};

absl::StatusOr<std::unique_ptr<MappedParts>> MakeSegmentParts(MPI_Comm comm, const std::vector<uint64_t>& sizes) {
  std::vector<size_t> offsets;
  size_t total = 0;
  for (uint64_t bytes : sizes) {
    offsets.push_back(total);
    total += RoundUp(bytes);
  }
  absl::StatusOr<std::unique_ptr<shm::Segment>> segment = shm::Segment::Create(comm, total);
  if (!segment.ok()) {
    return absl::Status(segment.status().code(), absl::StrCat(total, " bytes of shared memory for the node's ",
                                                              sizes.size(), " ranks: ", segment.status().message()));
  }
  return std::unique_ptr<MappedParts>(new SegmentParts(*std::move(segment), std::move(offsets)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<RegisteredMemory>> RegisteredMemory::Create(MPI_Comm comm, std::vector<int> rank_names,
                                                                           int spin_polls, MemoryKind memory,
                                                                           PartsMaker make_parts) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  absl::StatusOr<std::unique_ptr<shm::NodeLines>> lines = shm::NodeLines::Create(
      comm, sizeof(RankLines) * static_cast<size_t>(size), std::move(rank_names), spin_polls, "RegisteredMemory");
  if (!lines.ok()) return lines.status();
  if (make_parts == nullptr) make_parts = MakeSegmentParts;
  return std::unique_ptr<RegisteredMemory>(new RegisteredMemory(*std::move(lines), memory, std::move(make_parts)));
}

RegisteredMemory::~RegisteredMemory() {
  allocations_.clear();
  lines_.reset();
}

void RegisteredMemory::set_timeout(absl::Duration timeout, std::string source) {
  lines_->set_timeout(timeout, std::move(source));
}

absl::StatusOr<void*> RegisteredMemory::Allocate(uint32_t id, size_t bytes) {
  // Every rank's size, so that each knows where every part begins.
  const uint64_t mine = bytes;
  std::vector<uint64_t> sizes(size());
  MPI_Allgather(&mine, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, lines_->comm());
  Allocation a;
  a.id = id;
  a.sizes.assign(sizes.begin(), sizes.end());
  absl::StatusOr<std::unique_ptr<MappedParts>> parts = make_parts_(lines_->comm(), sizes);
  if (!parts.ok()) {
    return absl::Status(parts.status().code(), absl::StrCat("Allocate(", bytes, "): ", parts.status().message()));
  }
  a.parts = *std::move(parts);
  void* data = a.parts->part(rank());
  allocations_.push_back(std::move(a));
  return data;
}

uint32_t RegisteredMemory::AllocationAt(const void* data) const {
  for (const Allocation& a : allocations_) {
    if (a.parts->part(rank()) == data) return a.id;
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
    const unsigned char* begin = a.parts->part(rank());
    if (p >= begin && p + bytes <= begin + a.sizes[rank()]) return Location{a.id, static_cast<uint64_t>(p - begin)};
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
  return lines_->WaitUntilNoneBehind(
      behind, call_, absl::StrCat("at step ", step_, " of the registered-buffer schedule"), waiting_for);
}

absl::Status RegisteredMemory::Arrive() {
  ++step_;
  lines(rank()).arrived.store(++arrived_, std::memory_order_release);
  return WaitUntilNoneBehind([this](int r) { return lines(r).arrived.load(std::memory_order_acquire) < arrived_; },
                             "waiting at a barrier");
}

void RegisteredMemory::Publish(uint32_t step) {
  lines(rank()).progress.store(calls_ << 32 | step, std::memory_order_release);
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
  Descriptor& mine = lines(rank()).calls[slot];
  mine.signature = call.signature;
  // A buffer of no bytes needs no memory: it counts as registered.
  mine.send_allocation = send_bytes > 0 ? s.allocation : UINT32_MAX;
  mine.recv_allocation = recv_bytes > 0 ? r.allocation : UINT32_MAX;
  mine.send_offset = s.offset;
  mine.recv_offset = r.offset;
  if (absl::Status arrived = Arrive(); !arrived.ok()) return arrived;
  for (int p = 0; p < size(); ++p) {
    const Descriptor& d = lines(p).calls[slot];
    if (d.signature != call.signature) {
      return absl::InvalidArgumentError(absl::StrCat(
          call.collective, " on rank ", Name(rank()), ": rank ", Name(p),
          " called with different arguments (collective, count, type, op, root or algorithm; KCOLL_CHECK_ARGS=1 "
          "names the field)"));
    }
  }
  bool registered = true;
  for (int p = 0; p < size(); ++p) {
    const Descriptor& d = lines(p).calls[slot];
    if (d.send_allocation == 0 || d.recv_allocation == 0) registered = false;
  }
  if (!registered) return false;
  peers->send.assign(size(), nullptr);
  peers->recv.assign(size(), nullptr);
  for (int p = 0; p < size(); ++p) {
    const Descriptor& d = lines(p).calls[slot];
    const Allocation* sa = d.send_allocation == UINT32_MAX ? nullptr : FindAllocation(d.send_allocation);
    const Allocation* ra = d.recv_allocation == UINT32_MAX ? nullptr : FindAllocation(d.recv_allocation);
    // Allocations are collective: every id a peer names is one this rank maps.
    if (sa != nullptr) peers->send[p] = sa->parts->part(p) + d.send_offset;
    if (ra != nullptr) peers->recv[p] = ra->parts->part(p) + d.recv_offset;
  }
  return true;
}

absl::Status RegisteredMemory::Barrier() { return Arrive(); }

}  // namespace kcoll
