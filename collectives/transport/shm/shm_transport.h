// Transport between the ranks of one node through shared memory, with no MPI call on the path of a transfer.
//
// Every ordered pair of ranks has a channel in a segment all of them map (shm_layout.h): a ring of slots the sender
// fills and the receiver drains, synchronised by sequence numbers in cache lines (acquire/release atomics, one
// writer per line). A message of up to 32 bytes travels in its slot's header line; a larger one in slot-sized
// chunks, pipelined through the ring; optionally (ShmOptions::single_copy_bytes, where the kernel lets ranks read
// each other's memory: process_vm_readv) as a descriptor the receiver copies straight from the sender's buffer.
//
// Matching is MPI's: a receive takes the oldest message from its peer with its tag; a message whose receive is not
// posted yet waits in its slot, unless this rank waits for a later message from the same peer, in which case it is
// copied aside (as MPI's unexpected messages are) so that the channel keeps moving. Messages also carry the call's
// signature and sequence number: ranks that disagree on a call's arguments never match each other's messages, and
// time out saying so.
//
// Progress happens inside Wait/WaitAll, which poll every pending transfer: back to back for a while, then yielding
// the core, then sleeping 50 us between polls after 100 ms (ranks may outnumber cores). With a timeout, a wait fails
// with DeadlineExceeded once none of its transfers has moved for the timeout, naming the call, the step and the
// peers, like the MPI transport's.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_SHM_SHM_TRANSPORT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_SHM_SHM_TRANSPORT_H_

#include <mpi.h>

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "collectives/transport/call_tracking.h"
#include "collectives/transport/shm/shm_layout.h"
#include "collectives/transport/shm/shm_segment.h"

namespace kcoll {

struct ShmOptions {
  // The fewest slots of a ring the transport chooses, the most of any ring (chosen or asked), and the bytes a chosen
  // ring aims to hold (RingSlots).
  static constexpr int kMinSlots = 8;
  static constexpr int kMaxSlots = 1024;
  static constexpr size_t kRingBytes = size_t{2} << 20;
  // Per pair; 0: chosen (RingSlots).
  int slots = 0;
  // Per slot; 0: chosen from the number of ranks so that kMinSlots slots per pair stay within `max_segment_bytes`.
  size_t slot_bytes = 0;
  size_t max_segment_bytes = size_t{32} << 20;
  // Messages of at least this size are copied by the receiver straight from the sender's buffer (when the kernel
  // allows it; see single_copy()). 0: never, the default: pipelined through the slots, a message stays in cache and
  // measured faster than process_vm_readv at every size (docs/measured/shm_transport_2ranks.txt).
  size_t single_copy_bytes = 0;
  // With a threshold: whether the communicator chooses per call between the slots and single copy (CopyChoice,
  // KCOLL_SHM_SINGLE_COPY=auto) rather than always copying once from the threshold.
  bool choose_per_call = false;
  // Polls without progress before a waiting rank starts yielding its core; 0 picks: many when every rank has a
  // core of its own, one when ranks outnumber cores.
  int spin_polls = 0;
  // How errors name each rank of the communicator (its rank in a larger one: RoutedTransport); empty: as is.
  std::vector<int> rank_names;
};

// Slots per pair when none are asked for: as many as hold ShmOptions::kRingBytes of `slot_bytes` each, as far as the
// segment of `nlocal` ranks stays within `max_segment_bytes`, never fewer than kMinSlots. A sender fills the ring
// while its receiver drains it, and writes a slot again only once the receiver has read it. A ring of 512 KiB
// (8 x 64 KiB) per pair fits the receiving core's 1 MiB L2 (AMD EPYC VM), so a rewritten slot's lines are most
// likely still there and pulled back across cores; with 2 MiB an in-place AllReduce of 256 KiB-4 MiB on 2 ranks there
// ran 1.4-2x faster, 1 MiB gained most of that and 8 MiB less
// (docs/measured/shm_ring_bytes_2ranks_epyc.txt).
int RingSlots(int nlocal, size_t slot_bytes, size_t max_segment_bytes);

class ShmTransport final : public CallTrackingTransport {
 public:
  static constexpr int kMaxTag = 1 << 16;

  // Collective over `comm`, whose ranks must all be on this host. Checks that the ranks can read each other's memory
  // (single copy) and turns it off everywhere if one cannot.
  static absl::StatusOr<std::unique_ptr<ShmTransport>> Create(MPI_Comm comm, const ShmOptions& options = {});
  ~ShmTransport() override;

  absl::string_view name() const override { return "shm"; }
  bool CanReach(MemoryKind memory) const override { return memory == MemoryKind::kHost; }

  absl::StatusOr<Request> Send(int peer, const void* data, size_t bytes, int tag) override;
  absl::StatusOr<Request> Recv(int peer, void* data, size_t bytes, int tag) override;
  bool FusesReduce(int peer) const override { return peer >= 0 && peer < size(); }
  absl::StatusOr<Request> RecvReduce(int peer, void* dst, const void* local, size_t bytes, int tag,
                                     const ChunkReducer& reduce) override;
  absl::Status Wait(Request request) override;
  absl::Status WaitAll() override;
  absl::StatusOr<bool> Progress() override;
  void set_companion(Transport* companion) override { companion_ = companion; }
  void AllowSingleCopy(bool allowed) override { single_copy_allowed_ = allowed; }
  void StreamSlotStores(bool streaming) override { stream_slot_stores_ = streaming; }
  void Abandon() override;
  absl::Status Quiesce(absl::Duration timeout) override;

  const shm::Geometry& geometry() const { return geometry_; }
  bool single_copy() const { return single_copy_bytes_ > 0; }
  size_t single_copy_bytes() const { return single_copy_bytes_; }
  bool chooses_per_call() const { return single_copy() && choose_per_call_; }
  // One line for logs: "shm: 4 ranks, 32 slots x 64K per pair, single copy from 256K".
  // With sources, each setting is followed by where it came from: "..., 32 slots x 64K per pair (default), no single
  // copy (KCOLL_SHM_SINGLE_COPY)".
  std::string Describe(absl::string_view slot_source = "", absl::string_view single_copy_source = "") const;

 private:
  enum class State { kPosted, kActive, kDone };
  struct Op {
    bool send;
    int peer;
    unsigned char* data;
    size_t bytes;
    int tag;
    uint32_t signature;
    uint32_t call;
    State state = State::kPosted;
    size_t moved = 0;       // bytes written into slots (send) or received (recv)
    uint64_t wait_for = 0;  // single-copy send: done once the receiver has consumed this many chunks
    // RecvReduce: each chunk is reduced into `data` with the same range of `local` instead of copied.
    const unsigned char* local = nullptr;
    const ChunkReducer* reduce = nullptr;
  };
  // A message that arrived before its receive was posted, copied aside into `data` (a buffer of at least `bytes`
  // from spare_aside_, returned there once delivered).
  struct Unexpected {
    int tag;
    uint32_t signature;
    uint32_t call;
    size_t bytes;
    std::vector<unsigned char> data;
    size_t received = 0;
    int claimed_by = -1;  // the receive it goes to, once posted
    bool delivered = false;
    bool complete() const { return received == bytes; }
  };
  struct Peer {
    shm::Channel out;              // this rank -> peer
    shm::Channel in;               // peer -> this rank
    uint64_t sent_chunks = 0;      // chunks this rank has published to the peer
    uint64_t seen_consumed = 0;    // the peer's consumed counter when this rank last read it
    uint64_t received_chunks = 0;  // chunks this rank has consumed from the peer
    pid_t pid = 0;
    std::deque<int> sends;               // ops in posting order, not yet fully written
    std::vector<int> recvs;              // ops in posting order, not yet matched
    std::vector<int> single_copy_sends;  // published, waiting for the receiver to have copied them
    int current_recv = -1;               // the op the peer's current message is being received into, or -1
    Unexpected* current_unexpected = nullptr;
    std::deque<Unexpected> unexpected;
  };

  ShmTransport(MPI_Comm comm, int rank, int size) : CallTrackingTransport(rank, size), comm_(comm) {}
  int Post(Op op);
  absl::StatusOr<Request> PostRecv(Op op);
  // Puts `bytes` that arrived for `op` at its current position: copied, or reduced for a RecvReduce.
  absl::Status Deliver(Op& op, const unsigned char* from, size_t bytes);
  int Name(int rank) const { return rank_names_.empty() ? rank : rank_names_[rank]; }
  absl::StatusOr<bool> ProgressSends(Peer& p);
  absl::StatusOr<bool> ProgressRecvs(int peer, Peer& p);
  // Completes the receives whose messages were copied aside and have fully arrived.
  absl::Status DeliverUnexpected(Peer& p);
  // Polls until done() or a timeout.
  template <class Done>
  absl::Status WaitUntil(Done done);
  absl::Status TimedOut() const;

  MPI_Comm comm_;
  std::unique_ptr<shm::Segment> segment_;
  shm::Geometry geometry_;
  std::vector<Peer> peers_;
  size_t single_copy_bytes_ = 0;
  bool choose_per_call_ = false;
  // AllowSingleCopy; where the communicator chooses per call it says before each call (until then, the slots).
  bool single_copy_allowed_ = true;
  // StreamSlotStores: the sender fills the slots with streaming stores (else cached ones). When the path between two
  // cores is slow (on the 2-core AMD EPYC VM a cache line each way sometimes took 0.28-0.36 us against 0.07-0.08), a
  // cached store into a slot line that the receiving core still holds waits on that core: an in-place AllReduce of
  // 64 KiB-64 MiB through the slots ran at 1.7-2.1 GB/s there, 4.5-9.2 with streaming stores. With the fast path the
  // cached stores win by about 2x (the receiver takes the chunk from the writer's cache): the communicator chooses
  // per call (docs/shm.md).
  bool stream_slot_stores_ = false;
  // A single-copy message that is reduced as it arrives is read from the sender in pieces of this size into
  // single_copy_aside_ (kept from call to call: no allocation, no page faults), each reduced while still in cache.
  static constexpr size_t kSingleCopyReducePiece = 256 * 1024;
  std::vector<unsigned char> single_copy_aside_;
  // Buffers of delivered messages that were copied aside, kept for the next ones: a fresh allocation would be
  // zero-filled and, once the heap gave it back, fault in every page again (tens of microseconds a page in a VM).
  static constexpr size_t kSpareAsideBuffers = 32;
  static constexpr size_t kSpareAsideBytes = size_t{64} << 20;
  std::vector<std::vector<unsigned char>> spare_aside_;
  size_t spare_aside_bytes_ = 0;
  std::vector<unsigned char> TakeAsideBuffer(size_t bytes);
  void KeepAsideBuffer(std::vector<unsigned char> buffer);
  int spin_polls_ = 1;
  std::vector<int> rank_names_;
  Transport* companion_ = nullptr;

  std::vector<Op> ops_;  // posted since the last WaitAll; a Request's id is its index
  int pending_ = 0;      // ops_ not yet done
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_SHM_SHM_TRANSPORT_H_
