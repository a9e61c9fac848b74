// Point-to-point transfers of byte ranges between the ranks of a communicator: the only thing algorithms need from
// a network. The interface is shaped so that one algorithm step reads the same over every implementation:
//
//   auto recv = transport.Recv(left, scratch, bytes, tag);
//   auto send = transport.Send(right, chunk, bytes, tag);
//   transport.WaitAll();          // MPI: wait for completion. NCCL: close the group; the work is on the stream.
//   kernels.Reduce(...);          // MPI: runs after the data arrived. NCCL: ordered after it on the same stream.
//
// Posted transfers may be completed in any order; a buffer passed to Send/Recv must stay untouched until the
// request is waited for. Transfers between the same pair with the same tag are matched in posting order; `tag`
// separates concurrent streams (channels) between the same pair.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_TRANSPORT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_TRANSPORT_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/tick_clock.h"
#include "collectives/kernels/kernels.h"

namespace kcoll {

class Transport {
 public:
  // Identifies a posted transfer until it is waited for (or until WaitAll).
  struct Request {
    int id = -1;
  };

  // The collective call the transfers posted from now on belong to. Transports name it in their errors, and the
  // MPI transport folds `signature` into its message tags, so that ranks that disagree on a call's arguments never
  // match each other's messages (they time out instead of computing a wrong answer).
  // The names are kept, not copied: they must outlive the call (kcoll passes its static names).
  struct CallInfo {
    absl::string_view collective;  // "all_reduce"
    absl::string_view algorithm;   // "ring"
    uint32_t signature = 0;        // the same on every rank for the same call (collectives/argument_comparison.h)
    // When the call began, for "n s after the call began" in errors, on the caller's clock (it reads it anyway);
    // without a clock the transport reads steady_clock itself.
    const TickClock* clock = nullptr;
    uint64_t start = 0;
    double SecondsSinceStart() const { return clock != nullptr ? clock->Seconds(clock->Now() - start) : 0.0; }
  };

  virtual ~Transport() = default;

  virtual absl::string_view name() const = 0;  // "mpi", "shm", "nccl", "cuda_ipc"
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Whether buffers of this kind may be handed to Send/Recv directly.
  virtual bool CanReach(MemoryKind memory) const = 0;

  virtual absl::StatusOr<Request> Send(int peer, const void* data, size_t bytes, int tag = 0) = 0;
  virtual absl::StatusOr<Request> Recv(int peer, void* data, size_t bytes, int tag = 0) = 0;
  // Combines a chunk that arrived with this rank's data: dst[i] = local[i] op incoming[i] over `bytes`, a whole
  // number of elements (dst may equal local). Algorithms make one from their kernels (MakeChunkReducer).
  using ChunkReducer = std::function<absl::Status(void* dst, const void* local, const void* incoming, size_t bytes)>;
  // Whether RecvReduce from `peer` is available: the data is reduced where it arrives (shared memory: straight out
  // of the slots), so the bytes never pass through a scratch buffer. Elsewhere a schedule receives into scratch and
  // reduces after the wait (engines/receive_reduce.h does either).
  virtual bool FusesReduce(int peer) const {
    (void)peer;
    return false;
  }
  // A receive of `bytes` from `peer` reduced into `dst` with `local` by `reduce`, chunk by chunk as it arrives,
  // instead of copied; matched like Recv. `reduce` must stay alive until the request is waited for.
  virtual absl::StatusOr<Request> RecvReduce(int peer, void* dst, const void* local, size_t bytes, int tag,
                                             const ChunkReducer& reduce) {
    (void)dst, (void)local, (void)bytes, (void)tag, (void)reduce;
    return absl::UnimplementedError(absl::StrCat(name(), ": RecvReduce from rank ", peer, " is not fused here"));
  }
  // Completes one posted transfer.
  virtual absl::Status Wait(Request request) = 0;
  // Completes every transfer posted so far.
  virtual absl::Status WaitAll() = 0;
  // Returns once every transfer posted so far, and the kernels ordered with them, has finished: the end of a
  // collective. The same as WaitAll for transports whose WaitAll already completes the data (MPI); a stream-ordered
  // transport (NCCL) waits for its stream here, and only here. Decorators must forward it to the transport they wrap.
  virtual absl::Status Synchronize() { return WaitAll(); }
  // Whether Wait and WaitAll only close a batch of transfers that a device stream then runs in order, between the
  // kernels (NCCL), instead of completing transfers on the host (MPI). A batch then runs as a unit after every earlier
  // batch, so a schedule must not post a receive ahead of the step whose sends it belongs with (the peer's matching
  // send may come after a wait on this rank's later batches, and the streams would wait for each other), and a
  // buffer a send reads is safe from later transfers without waiting for that send.
  virtual bool StreamOrdered() const { return false; }
  // For nonblocking calls on a stream-ordered transport: MarkPosted launches what is posted and returns a mark that
  // the stream reaches once everything posted so far (kernels included) has run; Reached says, without waiting,
  // whether it has. A host transport completes its transfers in WaitAll: every mark is reached.
  virtual absl::StatusOr<uint64_t> MarkPosted() { return uint64_t{0}; }
  virtual absl::StatusOr<bool> Reached(uint64_t mark) {
    (void)mark;
    return true;
  }

  // For transports combined by RoutedTransport (routed_transport.h), which waits on one while the other must keep
  // moving (a peer on this node may wait for data this rank still has to send to another node):
  // Progress moves what it can without waiting and says whether anything moved; set_companion names a transport
  // whose Progress every wait of this one also runs, its progress counting against this one's timeout.
  virtual absl::StatusOr<bool> Progress() { return false; }
  virtual void set_companion(Transport* companion) { (void)companion; }

  // Starts a collective call: the transfers posted until the next BeginCall belong to `call`. Decorators forward it.
  virtual void BeginCall(const CallInfo& call) { (void)call; }
  // For a transport that can move a large message two ways (shm: through the slots or as a single copy, above its
  // threshold): whether sends whose first chunk goes out from now on may travel as a single copy (CopyChoice decides
  // per call, before the call posts anything). Decorators forward it.
  virtual void AllowSingleCopy(bool allowed) { (void)allowed; }
  // For a transport whose sender copies messages into shared slots (shm): whether the chunks sent from now on are
  // written with streaming stores that bypass the caches (collectives/kernels/streaming_stores.h; chosen per call,
  // before the call posts anything). The bytes are the same either way. Decorators forward it.
  virtual void StreamSlotStores(bool streaming) { (void)streaming; }
  // After a failed call: gives up every transfer still pending, so that none of them writes into its buffer after
  // this returns (receives are cancelled; sends are released, and may still be read by their peer). A transport
  // that cannot guarantee this ends the job instead of returning. Decorators forward it.
  virtual void Abandon() {}

  // The ranks this rank completed a receive from (or received part of one from) during the current call, named as in
  // the transport's errors: after a timeout, the ranks that compare their positions (mpi/stall_report.h) tell from it
  // which of the silent ones had entered the call. Decorators forward it.
  virtual std::vector<int> HeardFrom() const { return {}; }
  // Before the transport is destroyed on a healthy communicator: waits, up to `timeout`, for every rank to get
  // here, then checks that no message sent to this rank was left unreceived (a call whose arguments differed across
  // ranks can complete on some ranks and leave one). Not OK when a rank did not come or a message was left; the
  // transport then keeps what such a message could reach later instead of releasing it. Collective.
  virtual absl::Status Quiesce(absl::Duration timeout) {
    (void)timeout;
    return absl::OkStatus();
  }
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_TRANSPORT_H_
