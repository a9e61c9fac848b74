#include "collectives/transport/shm/shm_transport.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/byte_size.h"
#include "collectives/kernels/streaming_stores.h"
#include "collectives/transport/mpi/agreement.h"
#include "collectives/transport/mpi/mpi_wait.h"
#include "collectives/transport/shm/process_memory.h"
#include "collectives/transport/shm/spin_policy.h"

namespace kcoll {
namespace {

using shm::SlotHeader;

// Slot size for `n` ranks: as large as 64 KiB while `slots` of them per pair stay within the budget, never under 4 KiB.
size_t ChooseSlotBytes(int n, int slots, size_t budget) {
  const size_t channels = static_cast<size_t>(n) * n;
  size_t per_slot = budget / channels / static_cast<size_t>(slots);
  per_slot = std::min<size_t>(per_slot, 64 * 1024);
  per_slot = std::max<size_t>(per_slot & ~size_t{4095}, 4096);
  return per_slot;
}

// Writes every page of the slots through which this rank sends a peer its messages (`out`) and reads every page of
// those it receives the peer's through (`in_channel`). A page's first touch by a process is a fault, and on a virtual
// machine it can cost tens of microseconds more below the guest: up to 300 us for a 32 KiB message's first pass
// through a slot, paid in the first `slots` calls of every new message size, on a VM where populating the mapping at
// mmap did not help. Touched here, it is paid once, when the communicator is made.
void TouchChannelData(const shm::Channel& out, const shm::Channel& in_channel, const shm::Geometry& g) {
  const size_t bytes = static_cast<size_t>(g.slots) * g.slot_bytes;
  std::memset(out.data, 0, bytes);
  const volatile unsigned char* in = in_channel.data;
  for (size_t b = 0; b < bytes; b += 4096) static_cast<void>(in[b]);
}

}  // namespace

int RingSlots(int nlocal, size_t slot_bytes, size_t max_segment_bytes) {
  const size_t channels = static_cast<size_t>(std::max(nlocal, 1)) * static_cast<size_t>(std::max(nlocal, 1));
  const size_t slot = std::max<size_t>(slot_bytes, 1);
  const size_t wanted = ShmOptions::kRingBytes / slot;
  const size_t room = max_segment_bytes / channels / slot;
  return static_cast<int>(std::clamp<size_t>(std::min(wanted, room), ShmOptions::kMinSlots, ShmOptions::kMaxSlots));
}

absl::StatusOr<std::unique_ptr<ShmTransport>> ShmTransport::Create(MPI_Comm comm, const ShmOptions& options) {
  if (options.slots != 0 && (options.slots < 2 || options.slots > ShmOptions::kMaxSlots)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ShmOptions::slots: ", options.slots, " is outside [2, ", ShmOptions::kMaxSlots, "] (0: chosen)"));
  }
  if (options.slot_bytes != 0 && (options.slot_bytes < 64 || options.slot_bytes % 64 != 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ShmOptions::slot_bytes: ", options.slot_bytes, " is not a positive multiple of 64"));
  }
  MPI_Comm dup = MPI_COMM_NULL;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS) return absl::InternalError("shm: MPI_Comm_dup failed");
  int rank = 0, size = 1;
  MPI_Comm_rank(dup, &rank);
  MPI_Comm_size(dup, &size);
  std::unique_ptr<ShmTransport> t(new ShmTransport(dup, rank, size));
  t->geometry_.nlocal = size;
  t->geometry_.slot_bytes = options.slot_bytes != 0
                                ? options.slot_bytes
                                : ChooseSlotBytes(size, options.slots != 0 ? options.slots : ShmOptions::kMinSlots,
                                                  options.max_segment_bytes);
  t->geometry_.slots =
      options.slots != 0 ? options.slots : RingSlots(size, t->geometry_.slot_bytes, options.max_segment_bytes);
  auto segment = shm::Segment::Create(dup, t->geometry_.total_bytes());
  if (!segment.ok()) return segment.status();
  t->segment_ = *std::move(segment);

  t->peers_.resize(size);
  for (int p = 0; p < size; ++p) {
    t->peers_[p].out = shm::ChannelAt(t->segment_->data(), t->geometry_, rank, p);
    t->peers_[p].in = shm::ChannelAt(t->segment_->data(), t->geometry_, p, rank);
    if (p != rank) TouchChannelData(t->peers_[p].out, t->peers_[p].in, t->geometry_);
  }
  // Also the point after which peers may send: every rank has touched its channels (no read races a peer's write).
  std::vector<pid_t> pids(size);
  const pid_t me = getpid();
  static_assert(sizeof(pid_t) == sizeof(int), "pid_t travels as MPI_INT");
  MPI_Allgather(&me, 1, MPI_INT, pids.data(), 1, MPI_INT, dup);
  for (int p = 0; p < size; ++p) t->peers_[p].pid = pids[p];
  if (options.single_copy_bytes > 0 && CanReadEveryRanksMemory(dup, pids)) {
    t->single_copy_bytes_ = options.single_copy_bytes;
    t->choose_per_call_ = options.choose_per_call;
    t->single_copy_allowed_ = !options.choose_per_call;
  }
  if (!options.rank_names.empty() && static_cast<int>(options.rank_names.size()) != size) {
    return absl::InvalidArgumentError(
        absl::StrCat("ShmOptions::rank_names: ", options.rank_names.size(), " names for ", size, " ranks"));
  }
  t->rank_names_ = options.rank_names;
  t->spin_polls_ = shm::ChooseSpinPolls(dup, options.spin_polls);
  return t;
}

ShmTransport::~ShmTransport() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::string ShmTransport::Describe(absl::string_view slot_source, absl::string_view single_copy_source) const {
  auto from = [](absl::string_view source) { return source.empty() ? "" : absl::StrCat(" (", source, ")"); };
  return absl::StrCat("shm: ", size(), " ranks, ", geometry_.slots, " slots x ", FormatByteSize(geometry_.slot_bytes),
                      " per pair", from(slot_source), ", ",
                      !single_copy() ? std::string("no single copy")
                      : chooses_per_call()
                          ? absl::StrCat("single copy or the slots from ", FormatByteSize(single_copy_bytes_),
                                         ", chosen per call by their measured times")
                          : absl::StrCat("single copy from ", FormatByteSize(single_copy_bytes_)),
                      from(single_copy_source));
}

int ShmTransport::Post(Op op) {
  op.signature = call().signature;
  op.call = call_sequence();
  ops_.push_back(op);
  ++pending_;
  return static_cast<int>(ops_.size()) - 1;
}

absl::StatusOr<Transport::Request> ShmTransport::Send(int peer, const void* data, size_t bytes, int tag) {
  if (absl::Status s = CheckTransfer("Send", peer, data, bytes, tag, kMaxTag); !s.ok()) return s;
  const int id = Post(Op{/*send=*/true, peer, static_cast<unsigned char*>(const_cast<void*>(data)), bytes, tag});
  Peer& p = peers_[peer];
  p.sends.push_back(id);
  // Publish what fits right away: the receiver may already be waiting for it.
  absl::StatusOr<bool> moved = ProgressSends(p);
  if (!moved.ok()) return moved.status();
  return Request{id};
}

absl::StatusOr<Transport::Request> ShmTransport::Recv(int peer, void* data, size_t bytes, int tag) {
  if (absl::Status s = CheckTransfer("Recv", peer, data, bytes, tag, kMaxTag); !s.ok()) return s;
  return PostRecv(Op{/*send=*/false, peer, static_cast<unsigned char*>(data), bytes, tag});
}

absl::StatusOr<Transport::Request> ShmTransport::RecvReduce(int peer, void* dst, const void* local, size_t bytes,
                                                            int tag, const ChunkReducer& reduce) {
  if (absl::Status s = CheckTransfer("RecvReduce", peer, dst, bytes, tag, kMaxTag); !s.ok()) return s;
  if (bytes > 0 && local == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("RecvReduce: local is null for ", bytes, " B from rank ", peer));
  }
  Op op{/*send=*/false, peer, static_cast<unsigned char*>(dst), bytes, tag};
  op.local = static_cast<const unsigned char*>(local);
  op.reduce = &reduce;
  return PostRecv(op);
}

absl::Status ShmTransport::Deliver(Op& op, const unsigned char* from, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  if (op.reduce != nullptr) {
    absl::Status s = (*op.reduce)(op.data + op.moved, op.local + op.moved, from, bytes);
    if (!s.ok()) return s;
  } else {
    std::memcpy(op.data + op.moved, from, bytes);
  }
  op.moved += bytes;
  return absl::OkStatus();
}

absl::StatusOr<Transport::Request> ShmTransport::PostRecv(Op op) {
  const int peer = op.peer;
  const size_t bytes = op.bytes;
  const int tag = op.tag;
  const int id = Post(op);
  Peer& p = peers_[peer];
  // A message copied aside earlier is older than anything still in the channel.
  for (Unexpected& u : p.unexpected) {
    if (u.claimed_by < 0 && u.tag == tag && u.signature == ops_[id].signature && u.call == ops_[id].call) {
      if (u.bytes != bytes) {
        return absl::InternalError(absl::StrCat(call().collective, ": a message of ", u.bytes, " B from rank ", peer,
                                                " for a receive of ", bytes, " B (tag ", tag, ")"));
      }
      u.claimed_by = id;
      ops_[id].state = State::kActive;
      if (absl::Status s = DeliverUnexpected(p); !s.ok()) return s;
      return Request{id};
    }
  }
  p.recvs.push_back(id);
  return Request{id};
}

absl::StatusOr<bool> ShmTransport::ProgressSends(Peer& p) {
  bool moved = false;
  const shm::Geometry& g = geometry_;
  while (!p.sends.empty()) {
    Op& op = ops_[p.sends.front()];
    bool finished = false;
    while (!finished) {
      const uint64_t k = p.sent_chunks;
      // The receiver's counter lives in a line it writes after every chunk: read it only when the value last seen
      // says the ring is full, so that a send does not pull that line across cores every time.
      if (k - p.seen_consumed >= static_cast<uint64_t>(g.slots)) {
        p.seen_consumed = p.out.consumed->value.load(std::memory_order_acquire);
        if (k - p.seen_consumed >= static_cast<uint64_t>(g.slots)) return moved;  // the receiver has not caught up
      }
      const size_t slot = k % g.slots;
      SlotHeader& h = p.out.headers[slot];
      const bool first = op.state == State::kPosted;
      uint8_t flags = first ? shm::kFirstChunk : 0;
      size_t n = std::min(g.slot_bytes, op.bytes - op.moved);
      if (first && single_copy_bytes_ > 0 && op.bytes >= single_copy_bytes_ && single_copy_allowed_) {
        flags |= shm::kSingleCopy;
        h.source_address = reinterpret_cast<uint64_t>(op.data);
        n = op.bytes;
        op.wait_for = k + 1;
      } else if (first && op.bytes <= shm::kInlineBytes) {
        flags |= shm::kInline;
        if (n > 0) std::memcpy(h.inline_data, op.data, n);
      } else {
        if (stream_slot_stores_) {
          StreamingCopy(p.out.data + slot * g.slot_bytes, op.data + op.moved, n);
          StreamingStoreFence();  // the chunk's bytes before its seq below
        } else {
          std::memcpy(p.out.data + slot * g.slot_bytes, op.data + op.moved, n);
        }
      }
      h.message_bytes = op.bytes;
      h.chunk_bytes = static_cast<uint32_t>(flags & shm::kSingleCopy ? 0 : n);
      h.signature = op.signature;
      h.call = op.call;
      h.tag = static_cast<uint16_t>(op.tag);
      h.flags = flags;
      h.seq.store(k + 1, std::memory_order_release);
      p.sent_chunks = k + 1;
      op.state = State::kActive;
      op.moved += n;
      moved = true;
      finished = op.moved == op.bytes;
    }
    p.sends.pop_front();
    if (op.wait_for == 0) {
      op.state = State::kDone;  // every byte is in the ring: the caller's buffer is free again
      --pending_;
    } else {
      p.single_copy_sends.push_back(static_cast<int>(&op - ops_.data()));
    }
  }
  return moved;
}

std::vector<unsigned char> ShmTransport::TakeAsideBuffer(size_t bytes) {
  // The smallest spare that holds the message; else a new one.
  auto best = spare_aside_.end();
  for (auto it = spare_aside_.begin(); it != spare_aside_.end(); ++it) {
    if (it->size() >= bytes && (best == spare_aside_.end() || it->size() < best->size())) best = it;
  }
  if (best == spare_aside_.end()) return std::vector<unsigned char>(bytes);
  std::vector<unsigned char> buffer = std::move(*best);
  spare_aside_.erase(best);
  spare_aside_bytes_ -= buffer.size();
  return buffer;
}

void ShmTransport::KeepAsideBuffer(std::vector<unsigned char> buffer) {
  if (buffer.empty() || spare_aside_.size() >= kSpareAsideBuffers ||
      spare_aside_bytes_ + buffer.size() > kSpareAsideBytes) {
    return;
  }
  spare_aside_bytes_ += buffer.size();
  spare_aside_.push_back(std::move(buffer));
}

absl::Status ShmTransport::DeliverUnexpected(Peer& p) {
  for (Unexpected& u : p.unexpected) {
    if (u.claimed_by < 0 || !u.complete() || u.delivered) continue;
    Op& op = ops_[u.claimed_by];
    if (absl::Status s = Deliver(op, u.data.data(), u.bytes); !s.ok()) return s;
    op.state = State::kDone;
    --pending_;
    u.delivered = true;
  }
  while (!p.unexpected.empty() && p.unexpected.front().delivered) {
    KeepAsideBuffer(std::move(p.unexpected.front().data));
    p.unexpected.pop_front();
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> ShmTransport::ProgressRecvs(int peer, Peer& p) {
  bool moved = false;
  const shm::Geometry& g = geometry_;
  while (true) {
    const uint64_t k = p.received_chunks;
    const size_t slot = k % g.slots;
    const SlotHeader& h = p.in.headers[slot];
    if (h.seq.load(std::memory_order_acquire) != k + 1) return moved;
    unsigned char* into = nullptr;
    if (p.current_recv < 0 && p.current_unexpected == nullptr) {
      // The first chunk of the peer's next message: match it to the oldest receive posted for it.
      auto match = std::find_if(p.recvs.begin(), p.recvs.end(), [&](int id) {
        const Op& op = ops_[id];
        return op.tag == h.tag && op.signature == h.signature && op.call == h.call;
      });
      if (match != p.recvs.end()) {
        Op& op = ops_[*match];
        if (op.bytes != h.message_bytes) {
          return absl::InternalError(absl::StrCat(call().collective, ": a message of ", h.message_bytes,
                                                  " B from rank ", Name(peer), " for a receive of ", op.bytes,
                                                  " B (tag ", op.tag, ")"));
        }
        p.current_recv = *match;
        p.recvs.erase(match);
        op.state = State::kActive;
      } else if (!p.recvs.empty()) {
        // This rank waits for a later message from the peer: copy this one aside so that the channel moves.
        p.unexpected.push_back(
            Unexpected{h.tag, h.signature, h.call, h.message_bytes, TakeAsideBuffer(h.message_bytes)});
        p.current_unexpected = &p.unexpected.back();
      } else {
        return moved;  // its receive is not posted yet: it waits in the slot
      }
    }
    size_t* progress;
    size_t total;
    Op* reducing = nullptr;  // a RecvReduce takes the chunk straight from the slot
    if (p.current_recv >= 0) {
      Op& op = ops_[p.current_recv];
      into = op.data + op.moved;
      progress = &op.moved;
      total = op.bytes;
      if (op.reduce != nullptr) reducing = &op;
    } else {
      Unexpected& u = *p.current_unexpected;
      into = u.data.data() + u.received;
      progress = &u.received;
      total = u.bytes;
    }
    if (h.flags & shm::kSingleCopy) {
      // A reduction needs the peer's bytes in this process first: read them into a cache-sized buffer a piece at
      // a time and reduce each piece while it is still in cache, so that the peer's data is read from memory once.
      const size_t piece = reducing != nullptr ? std::min(total, kSingleCopyReducePiece) : total;
      if (reducing != nullptr && single_copy_aside_.size() < piece) single_copy_aside_.resize(piece);
      for (size_t done = 0; done < total; done += piece) {
        const size_t n = std::min(piece, total - done);
        unsigned char* read_into = reducing != nullptr ? single_copy_aside_.data() : into;
        if (!ReadFromProcess(p.pid, h.source_address + done, read_into, n)) {
          return absl::InternalError(absl::StrCat(call().collective, ": reading ", total, " B from rank ", Name(peer),
                                                  "'s memory failed: ", std::strerror(errno)));
        }
        if (reducing != nullptr) {
          if (absl::Status s = Deliver(*reducing, single_copy_aside_.data(), n); !s.ok()) return s;
        }
      }
      *progress = total;
    } else {
      const unsigned char* from = h.flags & shm::kInline ? h.inline_data : p.in.data + slot * g.slot_bytes;
      if (reducing != nullptr) {
        if (absl::Status s = Deliver(*reducing, from, h.chunk_bytes); !s.ok()) return s;
      } else {
        if (h.chunk_bytes > 0) std::memcpy(into, from, h.chunk_bytes);
        *progress += h.chunk_bytes;
      }
    }
    p.in.consumed->value.store(k + 1, std::memory_order_release);
    p.received_chunks = k + 1;
    moved = true;
    NoteReceived(Name(peer));
    if (*progress == total) {
      if (p.current_recv >= 0) {
        ops_[p.current_recv].state = State::kDone;
        --pending_;
        p.current_recv = -1;
      } else {
        p.current_unexpected = nullptr;
        if (absl::Status s = DeliverUnexpected(p); !s.ok()) return s;
      }
    }
  }
}

absl::StatusOr<bool> ShmTransport::Progress() {
  bool moved = false;
  for (int peer = 0; peer < size(); ++peer) {
    Peer& p = peers_[peer];
    if (!p.sends.empty()) {
      absl::StatusOr<bool> m = ProgressSends(p);
      if (!m.ok()) return m.status();
      moved |= *m;
    }
    for (auto it = p.single_copy_sends.begin(); it != p.single_copy_sends.end();) {
      Op& op = ops_[*it];
      if (p.out.consumed->value.load(std::memory_order_acquire) >= op.wait_for) {
        op.state = State::kDone;
        --pending_;
        moved = true;
        it = p.single_copy_sends.erase(it);
      } else {
        ++it;
      }
    }
    if (!p.recvs.empty() || p.current_recv >= 0 || p.current_unexpected != nullptr) {
      absl::StatusOr<bool> m = ProgressRecvs(peer, p);
      if (!m.ok()) return m.status();
      moved |= *m;
    }
  }
  return moved;
}

template <class Done>
absl::Status ShmTransport::WaitUntil(Done done) {
  NextStep();
  shm::IdlePacer pacer(spin_polls_, timeout());
  while (!done()) {
    absl::StatusOr<bool> moved = Progress();
    if (!moved.ok()) return moved.status();
    if (companion_ != nullptr) {
      absl::StatusOr<bool> other = companion_->Progress();
      if (!other.ok()) return other.status();
      *moved = *moved || *other;
    }
    if (*moved) {
      pacer.Moved();
    } else if (!pacer.Idle()) {
      return TimedOut();
    }
  }
  return absl::OkStatus();
}

absl::Status ShmTransport::Wait(Request request) {
  if (request.id < 0 || request.id >= static_cast<int>(ops_.size())) {
    return absl::InvalidArgumentError(absl::StrCat("Wait: request ", request.id, " is not pending"));
  }
  const Op& op = ops_[request.id];
  return WaitUntil([&op] { return op.state == State::kDone; });
}

absl::Status ShmTransport::WaitAll() {
  absl::Status s = WaitUntil([this] { return pending_ == 0; });
  if (!s.ok()) return s;  // the pending transfers stay for Abandon
  ops_.clear();
  return absl::OkStatus();
}

absl::Status ShmTransport::TimedOut() const {
  std::vector<Pending> pending;
  std::set<int> receiving_from;
  for (const Op& op : ops_) {
    if (op.state == State::kDone) continue;
    pending.push_back({op.send, Name(op.peer), op.bytes});
    if (!op.send) receiving_from.insert(op.peer);
  }
  std::string diagnosis;
  for (int peer : receiving_from) {
    // A message of this call (same sequence number) with another signature: the ranks' arguments differ.
    const Peer& p = peers_[peer];
    bool other_arguments = false, other_call = false;
    auto classify = [&](uint32_t message_signature, uint32_t message_call) {
      if (message_call == call_sequence() && message_signature != call().signature) other_arguments = true;
      if (message_call != call_sequence()) other_call = true;
    };
    for (const Unexpected& u : p.unexpected) classify(u.signature, u.call);
    const SlotHeader& h = p.in.headers[p.received_chunks % geometry_.slots];
    if (p.current_recv < 0 && p.current_unexpected == nullptr &&
        h.seq.load(std::memory_order_acquire) == p.received_chunks + 1) {
      classify(h.signature, h.call);
    }
    if (other_arguments) {
      absl::StrAppend(&diagnosis, "; rank ", Name(peer),
                      " sent a message of this call with different arguments (count, type, op, root or algorithm: "
                      "KCOLL_CHECK_ARGS=1 names the field)");
    } else if (other_call) {
      absl::StrAppend(&diagnosis, "; rank ", Name(peer),
                      " sent a message of another call (the ranks called different collectives)");
    }
  }
  return CallTrackingTransport::TimedOut(Name(rank()), pending, diagnosis);
}

void ShmTransport::Abandon() {
  // Nothing can write into this rank's buffers after this returns: peers only ever read them (single copy), and
  // the data a receive was waiting for stays in shared memory. The channels are left mid-message, which is why a
  // communicator that abandoned transfers is never used again.
  ops_.clear();
  pending_ = 0;
  for (Peer& p : peers_) {
    p.sends.clear();
    p.recvs.clear();
    p.single_copy_sends.clear();
    p.current_recv = -1;
  }
}

absl::Status ShmTransport::Quiesce(absl::Duration timeout) {
  std::vector<int> scratch;
  if (absl::Status s = FinalizeBarrier(comm_, timeout, &scratch); !s.ok()) return s;
  for (int peer = 0; peer < size(); ++peer) {
    const Peer& p = peers_[peer];
    const SlotHeader& h = p.in.headers[p.received_chunks % geometry_.slots];
    if (!p.unexpected.empty() || h.seq.load(std::memory_order_acquire) == p.received_chunks + 1) {
      return absl::FailedPreconditionError(
          absl::StrCat("a message from rank ", Name(peer), " was left unreceived (a call whose arguments differed)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace kcoll
