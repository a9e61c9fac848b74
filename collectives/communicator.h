// kcoll's public face. A Communicator wraps an MPI communicator (duplicated, so kcoll's traffic never mixes with
// the application's), chooses the execution space its Kokkos kernels run on, discovers which ranks share a node,
// and runs collectives with the algorithm asked for (or chosen for the call).
//
//   MPI_Init(&argc, &argv);
//   Kokkos::initialize(argc, argv);
//   auto comm = kcoll::Communicator::Create(MPI_COMM_WORLD).value();
//   absl::Status s = comm->AllReduce(send, recv, count, kcoll::DataType::kFloat32, kcoll::ReduceOp::kSum);
//   comm->Finalize();  // or let it go out of scope, before Kokkos::finalize and MPI_Finalize
//
// Typed Kokkos Views are accepted through collectives/views.h. Every call validates its arguments first and
// returns InvalidArgument, naming the argument and its value, before any traffic.
#ifndef KCOLL_COLLECTIVES_COMMUNICATOR_H_
#define KCOLL_COLLECTIVES_COMMUNICATOR_H_

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/names.h"
#include "base/topology.h"
#include "base/transport_kind.h"
#include "base/types.h"
#include "collectives/collective_call.h"
#include "collectives/counters.h"
#include "collectives/options.h"
#include "collectives/request.h"

namespace kcoll {

class AutoChoice;
class InlineRequest;
class CopyChoice;  // transport/shm/copy_choice.h
class Kernels;
struct CallRecord;  // observability/describe.h
struct CollectiveArgs;
struct CommunicatorState;  // communicator_state.h
struct ResolvedCall;       // communicator_state.h
struct Resources;

class Communicator {
 public:
  // From this collective buffer size (the largest of send and recv), `auto` runs registered buffers zero-copy. Below
  // it the pipelined schedules through the shared-memory slots keep their chunks in cache and measured faster than
  // `direct` out of place (docs/measured/registered_buffers_2ranks.txt, docs/shm.md); `direct` asked for by name
  // runs at any size.
  static constexpr size_t kAutoDirectMinBytes = size_t{8} << 20;
  // From this many bytes in each rank's block, a numerics=deterministic AllReduce of float or double over shared
  // memory runs the `linear` AllReduce, whose owners send each folded piece on while it is in cache; below it the
  // owners' ReduceScatterV and a separate AllGatherV measured faster (docs/numerics.md).
  static constexpr size_t kRankOrderFusedMinBlockBytes = size_t{4} << 20;
  // Above the first and up to the second of these bytes per rank, the same call on 2 or 4 ranks runs
  // `ordered_halving_doubling`: halving-doubling's steps in rank order, which measured faster there than the owners'
  // two rounds of n-1 messages on ranks sharing cores, and slower above it and on 8 ranks (docs/numerics.md).
  static constexpr size_t kRankOrderHalvingAboveBytes = size_t{4} << 10;
  static constexpr size_t kRankOrderHalvingMaxBytes = size_t{256} << 10;
  static constexpr int kRankOrderHalvingMaxRanks = 4;

  // Collective over `comm`. Needs MPI and Kokkos initialised.
  static absl::StatusOr<std::unique_ptr<Communicator>> Create(MPI_Comm comm, const CommunicatorOptions& options = {});

  // A communicator of the ranks that pass the same `color`, ordered by `key` and then by rank in this one (the rule
  // of MPI_Comm_split), created with this communicator's options: its own topology (shared memory among the ranks
  // of a node, MPI between), transport, registered memory, counters and call order. A rank that passes
  // MPI_UNDEFINED joins none and gets a null communicator. Ranks of emulated nodes keep their nodes. Collective over
  // this communicator; a negative color other than MPI_UNDEFINED is InvalidArgument on every rank.
  absl::StatusOr<std::unique_ptr<Communicator>> Split(int color, int key);
  // The same ranks, in a communicator of their own (MPI_Comm_dup's rule): a library embedding kcoll keeps its
  // collectives apart from the application's with it. Collective.
  absl::StatusOr<std::unique_ptr<Communicator>> Dup();
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const;
  int size() const;
  const Topology& topology() const;
  ExecBackend backend() const;
  bool checks_args() const;
  // What floating-point reductions promise about their bits when a call does not say (CommunicatorOptions::numerics).
  Numerics numerics() const;
  // The largest AllReduce, Scan or ExScan `auto` sends the inline lane: KCOLL_INLINE_MAX_BYTES, else measured at
  // creation (inline_path.h); 0 when the communicator has no inline lane (not one node over shared memory).
  size_t inline_limit_bytes() const;
  // The timeout in force (absl::InfiniteDuration(): none) and what a timeout does.
  const TimeoutSettings& timeout() const;
  // OK, or the error that broke the communicator: a collective that failed after its transfers began (a timeout,
  // an MPI error) leaves the ranks' message streams out of step, so every later call returns FailedPrecondition
  // quoting this error. Finalize still works.
  const absl::Status& broken() const;
  TransportKind transport() const;
  // One line saying what runs: transport, kernels, device, how device buffers reach the network.
  const std::string& execution() const;

  // recv[i] = op over ranks of send[i], i < count. send == recv is in place. `memory` says where the buffers are.
  absl::Status AllReduce(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                         const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);

  // NCCL's semantics for counts, roots and in place (send == recv, or for AllGather send == recv + rank*count,
  // for ReduceScatter recv == send + rank*count). Counts are elements.
  // recv (recvcount elements) = block `rank` of op over ranks of send (recvcount * nranks elements).
  absl::Status ReduceScatter(const void* send, void* recv, size_t recvcount, DataType type, ReduceOp op,
                             const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  // recv (sendcount * nranks) = every rank's send (sendcount), in rank order.
  absl::Status AllGather(const void* send, void* recv, size_t sendcount, DataType type, const CallOptions& options = {},
                         MemoryKind memory = MemoryKind::kHost);
  // recv = root's send, on every rank (send is read on the root only).
  absl::Status Broadcast(const void* send, void* recv, size_t count, DataType type, int root,
                         const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  // root's recv = op over ranks of send (recv is written on the root only).
  absl::Status Reduce(const void* send, void* recv, size_t count, DataType type, ReduceOp op, int root,
                      const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  // Block j (count elements) of rank i's send lands as block i of rank j's recv.
  absl::Status AllToAll(const void* send, void* recv, size_t count, DataType type, const CallOptions& options = {},
                        MemoryKind memory = MemoryKind::kHost);
  // root's recv (count * nranks) = every rank's send (count), in rank order.
  absl::Status Gather(const void* send, void* recv, size_t count, DataType type, int root,
                      const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  // Every rank's recv (count) = block `rank` of root's send (count * nranks).
  absl::Status Scatter(const void* send, void* recv, size_t count, DataType type, int root,
                       const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  // nccl-tests' sendrecv: rank r sends `count` elements to r+1 and receives as many from r-1 (ring neighbours).
  absl::Status SendRecv(const void* send, void* recv, size_t count, DataType type, const CallOptions& options = {},
                        MemoryKind memory = MemoryKind::kHost);
  // Returns once every rank has entered it.
  absl::Status Barrier(const CallOptions& options = {});
  // MPI_Scan: recv[i] = op over ranks 0..rank of send[i]. kAvg divides by rank + 1. send == recv is in place.
  absl::Status Scan(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                    const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  // MPI_Exscan: recv[i] = op over ranks 0..rank-1 of send[i]; rank 0's recv is not written (it may be null). kAvg
  // divides by rank. send == recv is in place.
  absl::Status ExScan(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                      const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  // The v-collectives (MPI's semantics): per-rank element counts and displacements, nranks entries each.
  // AllGatherV: rank j's `sendcount` elements land at recvdispls[j] of every rank's recv; recvcounts[j] is rank j's
  // sendcount on every rank. In place: send == recv + recvdispls[rank] (elements).
  absl::Status AllGatherV(const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                          const size_t* recvdispls, DataType type, const CallOptions& options = {},
                          MemoryKind memory = MemoryKind::kHost);
  // AllToAllV: the sendcounts[j] elements at senddispls[j] of rank i's send land at recvdispls[i] of rank j's recv,
  // where recvcounts[i] equals them. Send and receive buffers may not overlap.
  absl::Status AllToAllV(const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv,
                         const size_t* recvcounts, const size_t* recvdispls, DataType type,
                         const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  // ReduceScatterV (MPI_Reduce_scatter): send holds the blocks of every rank end to end (sum of recvcounts elements);
  // block j (recvcounts[j] elements), reduced over ranks, lands in rank j's recv. recvcounts is the same on every rank.
  // In place: recv is the rank's own block of send (send + recvcounts[0] + ... + recvcounts[rank - 1] elements), as
  // ReduceScatter's in place (MPI's MPI_IN_PLACE puts the result at the buffer's start instead).
  absl::Status ReduceScatterV(const void* send, void* recv, const size_t* recvcounts, DataType type, ReduceOp op,
                              const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  // GatherV: every rank's `sendcount` elements land at recvdispls[j] of the root's recv; recvcounts and recvdispls
  // are read on the root only (recvcounts[j] is rank j's sendcount). In place on the root: send == recv +
  // recvdispls[root].
  absl::Status GatherV(const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                       const size_t* recvdispls, DataType type, int root, const CallOptions& options = {},
                       MemoryKind memory = MemoryKind::kHost);
  // ScatterV: the sendcounts[j] elements at senddispls[j] of the root's send land in rank j's recv (`recvcount`
  // elements, which is sendcounts[j]); sendcounts and senddispls are read on the root only. In place on the root:
  // recv == send + senddispls[root].
  absl::Status ScatterV(const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv,
                        size_t recvcount, DataType type, int root, const CallOptions& options = {},
                        MemoryKind memory = MemoryKind::kHost);
  // Any of the above by name, for code that sweeps collectives (benchmarks, tests): the same call as the method of
  // that name; `op` is read by the reductions only, `root` by the rooted collectives only, and Barrier reads neither
  // buffers nor count. The v-collectives run with equal blocks of `count` elements at displacements j * count (their
  // non-v forms' layout); ICall refuses them (it has no arrays to keep), IAllGatherV and IAllToAllV take them.
  // (Defined here: a repeated 8-byte AllReduce, whose own path is a few hundred instructions, passes through no
  // frame of it.)
  absl::Status Call(Collective collective, const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                    int root, const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost) {
    if (collective == Collective::kAllReduce) return AllReduce(send, recv, count, type, op, options, memory);
    return CallOtherThanAllReduce(collective, send, recv, count, type, op, root, options, memory);
  }
  // Runs the call `call` describes (collective_call.h), exactly as its method does: the front door every blocking
  // spelling above enters through but AllReduce, which it hands to the AllReduce method (whose repeats of the
  // latest inline call skip building a descriptor).
  absl::Status Call(const CollectiveCall& call);

  // Nonblocking collectives (request.h): the calls above, returning at once with a request that completes with the
  // blocking call's result. Every rank issues its calls, blocking and nonblocking, in the same order (MPI's rule),
  // and they run in that order; any number may be in flight. The buffers belong to kcoll until the request completed.
  // How the calls move while the application computes: CommunicatorOptions::progress (progress()). Every other
  // method of the communicator first waits for the requests in flight.
  Request IAllReduce(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                     const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  Request IReduceScatter(const void* send, void* recv, size_t recvcount, DataType type, ReduceOp op,
                         const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  Request IAllGather(const void* send, void* recv, size_t sendcount, DataType type, const CallOptions& options = {},
                     MemoryKind memory = MemoryKind::kHost);
  Request IBroadcast(const void* send, void* recv, size_t count, DataType type, int root,
                     const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  Request IReduce(const void* send, void* recv, size_t count, DataType type, ReduceOp op, int root,
                  const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  Request IAllToAll(const void* send, void* recv, size_t count, DataType type, const CallOptions& options = {},
                    MemoryKind memory = MemoryKind::kHost);
  Request IGather(const void* send, void* recv, size_t count, DataType type, int root, const CallOptions& options = {},
                  MemoryKind memory = MemoryKind::kHost);
  Request IScatter(const void* send, void* recv, size_t count, DataType type, int root, const CallOptions& options = {},
                   MemoryKind memory = MemoryKind::kHost);
  Request ISendRecv(const void* send, void* recv, size_t count, DataType type, const CallOptions& options = {},
                    MemoryKind memory = MemoryKind::kHost);
  Request IBarrier(const CallOptions& options = {});
  // The arrays of the v-collectives, like their buffers, belong to kcoll until the request completed.
  Request IAllGatherV(const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                      const size_t* recvdispls, DataType type, const CallOptions& options = {},
                      MemoryKind memory = MemoryKind::kHost);
  Request IAllToAllV(const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv,
                     const size_t* recvcounts, const size_t* recvdispls, DataType type, const CallOptions& options = {},
                     MemoryKind memory = MemoryKind::kHost);
  Request IReduceScatterV(const void* send, void* recv, const size_t* recvcounts, DataType type, ReduceOp op,
                          const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  Request IGatherV(const void* send, size_t sendcount, void* recv, const size_t* recvcounts, const size_t* recvdispls,
                   DataType type, int root, const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  Request IScatterV(const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv, size_t recvcount,
                    DataType type, int root, const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  Request IScan(const void* send, void* recv, size_t count, DataType type, ReduceOp op, const CallOptions& options = {},
                MemoryKind memory = MemoryKind::kHost);
  Request IExScan(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                  const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  Request ICall(Collective collective, const void* send, void* recv, size_t count, DataType type, ReduceOp op, int root,
                const CallOptions& options = {}, MemoryKind memory = MemoryKind::kHost);
  // The front door of every nonblocking spelling: starts the call `call` describes, as its I-method does.
  Request ICall(const CollectiveCall& call);
  // A group: between GroupStart() and the matching GroupEnd(), the blocking calls above return at once (with OK, or
  // the error of an argument no rank could accept: a null communicator state) and are queued; the outermost GroupEnd
  // runs them, small AllReduces of the same type, op and memory fused into one (bucket_fusion.h) so that they pay one
  // latency, the others in the order issued, and returns the first error, naming the call. Every rank issues the same
  // calls in the same order; the calls of a group may not depend on each other's results, and their buffers (and the
  // v-collectives' arrays) are kcoll's until GroupEnd returns. Groups nest (only the outermost GroupEnd runs them);
  // nonblocking calls inside a group are refused. GroupEnd without GroupStart is FailedPrecondition.
  absl::Status GroupStart();
  absl::Status GroupEnd();
  // "thread", "eager" or "stream": how this communicator's nonblocking calls progress, and why (KCOLL_DEBUG=INFO).
  const std::string& progress() const;

  // Registered buffers: `bytes` (at least 1) of memory, 64-byte aligned and zero-filled, that the other ranks of
  // this rank's node map too: host memory in a shared segment, or with CUDA kernels device memory on this rank's GPU
  // that the node's other ranks open through CUDA IPC (registered_memory() says which). A collective whose buffers
  // every rank took from here can run zero-copy (the `direct` algorithm: ranks read each other's buffers in place;
  // collectives/algorithms/all_reduce/direct.cc and its siblings), which `auto` chooses for AllReduce, ReduceScatter,
  // AllGather and Broadcast from kAutoDirectMinBytes on a communicator of one node (over shared memory, or any
  // transport with CUDA kernels). Any other buffer still works, through transfers; so do registered buffers elsewhere.
  // Collective over the communicator (the ranks' sizes may differ). views.h wraps it in a Kokkos View.
  absl::StatusOr<void*> Allocate(size_t bytes);
  // Collective: every rank frees its buffer of the same Allocate call. Finalize frees whatever is left (pointers
  // into it are then dangling).
  absl::Status Free(void* data);
  // Whether [data, data + bytes) lies in a buffer from Allocate.
  bool IsRegistered(const void* data, size_t bytes) const;
  // The memory Allocate returns: kDevice with CUDA kernels, else kHost.
  MemoryKind registered_memory() const;
  // Whether registered buffers can run zero-copy here: every rank on one node, over the shm transport (host memory)
  // or with CUDA kernels (device memory, any transport).
  bool CanRunZeroCopy() const;

  // For wrappers that move data before and after a collective (bucket_fusion.h): the kernels this communicator
  // runs, counted in counters(); their Copy and Scratch work in kernels().memory(), on the stream the collectives
  // use. A wrapper takes scratch slots from kWrapperScratchSlot up, which no algorithm uses. Null once finalized.
  static constexpr int kWrapperScratchSlot = 1 << 20;
  Kernels* kernels();

  // For wrappers that reject a call's arguments before reaching the collective (views.h, bucket_fusion.h): takes
  // part in the rooted collectives' agreement (always) and in the cross-rank argument check (when enabled) as a rank
  // that rejected its arguments, so that the other ranks in `collective` fail instead of waiting for this one.
  // Returns `rejection` (or DeadlineExceeded when the other ranks never joined).
  absl::Status RejectCall(Collective collective, absl::Status rejection);

  // The algorithm a call with these arguments would run (resolving kAuto and $KCOLL_ALGO). `bytes` is the call's
  // count times the element size.
  absl::StatusOr<Algorithm> ResolveAlgorithm(Collective collective, size_t bytes, Algorithm requested) const;
  // What resolves kAuto: the cost models, the profile and where it came from (choice/auto_choice.h, for kcoll's own
  // tools and tests). SetProfile replaces it.
  const AutoChoice& auto_choice() const;
  // From now on `auto` chooses with this profile: ChooseProfile(profile_path), a //bench:calibrate file, or with an
  // empty path $KCOLL_PROFILE, else the built-in profile. For a machine whose speed changed since the communicator was
  // created (calibrate again, then switch). Collective: every rank calls it with a profile of the same content, or the
  // ranks would choose different algorithms for the same call. A profile that fails to load on any rank fails the
  // call on every rank with InvalidArgument (naming the path and field on the ranks where it failed), and `auto`
  // keeps the profile it had. The transport's settings a profile may carry (the shared-memory slot size and
  // single-copy threshold) stay those the communicator was created with: they shape its shared segment.
  absl::Status SetProfile(const std::string& profile_path);

  // What this rank has done since creation or the last ResetCounters(): per primitive and per (collective,
  // algorithm) calls and bytes, transfers split into intra- and inter-node bytes. SummarizeTraffic(counters(), ...)
  // gives per-call numbers. Printed at Finalize() under KCOLL_DEBUG=INFO.
  const Counters& counters() const;
  void ResetCounters();

  // The topology block printed at creation under KCOLL_DEBUG=INFO, one line per entry (docs/observability.md).
  std::vector<std::string> Describe() const;
  // The same as JSON text: the fields of TopologyToJson plus "backend", "transport" and "counters".
  std::string DescribeJson() const;

  // Releases the duplicated MPI communicator and kernel scratch; later calls fail with InvalidArgument.
  // Collective. Called by the destructor if not called before. A broken communicator's MPI communicators are not
  // freed (late messages of its peers must not reach a communicator created later).
  absl::Status Finalize();
  bool finalized() const;

 private:
  friend class InlineRequest;
  Communicator();
  // Create, and for Split: `emulated_node`, this rank's node when the parent emulated its nodes.
  static absl::StatusOr<std::unique_ptr<Communicator>> CreateOn(MPI_Comm comm, const CommunicatorOptions& options,
                                                                std::optional<int> emulated_node);
  // Call's way after Settle: the open group's queue, the inline lane, or the stages. The progress thread runs
  // nonblocking calls through it.
  absl::Status Dispatch(const CollectiveCall& call);
  // What the algorithms receive of `call` (algorithm.h).
  CollectiveArgs ArgsOf(const CollectiveCall& call) const;
  // The stages of a call: validate its arguments, resolve the algorithm, agree across ranks where some rank sees an
  // argument alone, execute (registered buffers, the schedule, the counters). `synchronize` false: a stream-ordered
  // transport's call returns once its work is enqueued (a nonblocking call).
  absl::Status RunStages(const CollectiveCall& call, bool synchronize);
  absl::Status Validate(const CollectiveArgs& args, MemoryKind memory) const;
  absl::Status Resolve(const CollectiveArgs& args, Algorithm requested, ResolvedCall* resolved) const;
  absl::Status Agree(const CollectiveArgs& args, Algorithm algorithm, const absl::Status& local);
  absl::Status Execute(const CollectiveArgs& args, const CollectiveCall& call, ResolvedCall resolved, bool synchronize);
  // numerics=deterministic and exact (communicator_numerics.cc): the call's mode, whether it must combine in rank
  // order or sum exactly, and the schedules that do (AllReduce, ReduceScatter(V), Reduce, Scan, ExScan).
  Numerics NumericsOf(const CollectiveCall& call) const;
  bool NeedsRankOrder(const CollectiveCall& call) const;
  bool SumsExactly(const CollectiveCall& call) const;
  // An exact sum that the fast schedules give when their sums are exact sums of two (kernels/exact_pair_kernels.h).
  bool SumsExactlyInPairs(const CollectiveArgs& args) const;
  absl::Status RunInRankOrder(const CollectiveCall& call);
  // ResolveAlgorithm without waiting for the calls in flight (the call being run is one of them, on the thread).
  absl::StatusOr<Algorithm> ChooseAlgorithm(Collective collective, size_t bytes, Algorithm requested) const;
  // Waits for every nonblocking call in flight, so that the caller has the communicator to itself.
  void Settle() const;
  // A stream-ordered request's Wait: synchronises the stream, breaking the communicator on failure.
  absl::Status SynchronizeStream();
  // The agreement on `local` of a call whose arguments some rank sees alone (transport/mpi/agreement.h's
  // AgreeOnAcceptanceOverMpi): the rooted collectives, Split. Breaks the communicator on a timeout.
  absl::Status AgreeOnAcceptance(absl::string_view call_name, absl::string_view algorithm, const absl::Status& local);
  // Whether `auto` hands this AllReduce of `bytes` per rank to MPI's own collective: the profile measured MPI faster
  // at that size (calibration/vendor_sizes.h), and the call is one MPI's collective serves as kcoll would
  // (numerics=fast, host buffers, a thread that may call MPI).
  bool HandsToVendor(const CollectiveCall& call, size_t bytes) const;
  // KCOLL_SHM_SINGLE_COPY=auto: which way this call's large messages travel (CopyChoice), told to the transport before
  // the call posts anything; the ranks of one node agree at the calls that decide (over the inline exchange). The
  // call's time is recorded against that way after it succeeded. Changes of a size class's way are logged at INFO,
  // the first kCopyChoiceLogs of them.
  struct CopyWay {
    bool measured = false;
    bool single_copy = false;
    uint64_t group = 0;
    size_t bytes = 0;
  };
  static constexpr int kCopyChoiceLogs = 20;
  absl::StatusOr<CopyWay> ChooseCopyWay(const CollectiveArgs& args, const CollectiveCall& call, Algorithm algorithm,
                                        const Resources& resources, bool synchronize);
  void LogCopyWay(Collective collective, const CopyWay& way, double slots_seconds, double single_seconds, int ranks);
  // By default, for the calls whose large messages go through the slots and that no copy choice measures: whether
  // the sender writes the slots with cached or streaming stores (KCOLL_SHM_STREAM_STORES; docs/shm.md), chosen
  // by a CopyChoice of its own (its second way: streaming), agreed and recorded as the copy way is.
  struct StoreWay {
    bool measured = false;
    bool streaming = false;
    uint64_t group = 0;
    size_t bytes = 0;
  };
  absl::StatusOr<StoreWay> ChooseStoreWay(const CollectiveArgs& args, const CollectiveCall& call, Algorithm algorithm,
                                          const Resources& resources, bool synchronize, const CopyWay& copy);
  void LogStoreWay(Collective collective, const StoreWay& way, double cached_seconds, double streaming_seconds,
                   int ranks);
  // A call's way from `choice` (its second way: single copy, or streaming stores), by the call's group (collective and
  // size): a nonblocking call takes the group's way and is not measured. At a call that decides, the ranks of the node
  // first agree on each way's least average over the inline exchange (`name` names that exchange in errors);
  // `changed` says the decision changed the way, with the averages it was made on.
  struct ChosenWay {
    bool measured = false;
    bool second = false;
    uint64_t group = 0;
    bool changed = false;
    double first_seconds = 0;
    double second_seconds = 0;
    int voters = 1;
  };
  absl::StatusOr<ChosenWay> ChooseWay(CopyChoice& choice, Collective collective, size_t bytes, bool synchronize,
                                      absl::string_view name);
  // Why a call on `memory` from this thread cannot take the vendor path (empty: it can): what HandsToVendor avoids and
  // PrepareVendor refuses.
  absl::string_view VendorRefusal(MemoryKind memory) const;
  // Gives `resources` the vendor path's MPI communicator, or the reason this call cannot take it.
  void PrepareVendor(MemoryKind memory, Resources* resources);
  absl::Status RunAlgorithm(absl::Status (*schedule)(const CollectiveArgs&, Resources&), const CollectiveArgs& args,
                            Resources& resources, bool synchronize);
  // Whether this call must begin with the registered-buffer exchange (communicator_memory.cc): the same on every rank
  // given the same arguments.
  // `resolved` is what ResolveAlgorithm made of `requested`.
  bool MayRunDirect(const CollectiveArgs& args, Algorithm requested, Algorithm resolved, MemoryKind memory) const;
  // Records `error` as what broke the communicator, withdraws pending transfers, and with on_timeout = kAbort ends
  // the job on a timeout. Returns `error`.
  absl::Status Break(absl::Status error);
  // A timeout's error with the ranks' compared positions appended (stall_report.h): which rank held the call up.
  absl::Status WithStallReport(const absl::Status& error) const;
  // Counts a collective call as begun at `start` (on the state's clock): where this rank is, for that report.
  void NoteCallBegun(Collective collective, uint64_t start);
  absl::Status CheckUsable(absl::string_view what) const;
  // The inline lane of small AllReduces and scans (communicator_inline.cc): whether a call may take it, and the call
  // itself, with only the checks and bookkeeping that apply to it.
  bool TakesInlineLane(const CollectiveCall& call) const;
  absl::Status RunInlineLane(const CollectiveArgs& args);
  // Sets the largest AllReduce `auto` runs inline: `pinned` (KCOLL_INLINE_MAX_BYTES) when given, else measured on the
  // ranks (inline_path.h says how) where the AllReduce lane exists, else the default.
  // Collective at creation; the measuring calls leave no trace in the counters.
  absl::Status SetInlineLimit(std::optional<size_t> pinned);
  // SetInlineLimit's timings, agreement and choice (inline_path.h).
  absl::Status MeasureInlineLimit();
  // Call(Collective, ...) of any collective but AllReduce.
  absl::Status CallOtherThanAllReduce(Collective collective, const void* send, void* recv, size_t count, DataType type,
                                      ReduceOp op, int root, const CallOptions& options, MemoryKind memory);
  // Queues a call of the open group (communicator_group.cc).
  absl::Status Queue(const CollectiveCall& call);
  // A loop's AllReduce that repeats the latest inline call (the arguments its InlineCallMemo keeps, buffers in place
  // or apart) while nothing else is in flight, goes from AllReduce (or Call) straight to the exchange: the general
  // path's layers (building the call's descriptor, settling, dispatch, the lane's checks) cost more than the exchange
  // of 8 bytes. RepeatsInlineAllReduce says whether an AllReduce of these arguments is such a repeat, from the
  // arguments themselves (no descriptor is built first); RunRepeatedInline runs it as RunInlineLane would.
  bool RepeatsInlineAllReduce(const void* send, void* recv, size_t count, DataType type, ReduceOp op,
                              const CallOptions& options, MemoryKind memory) const;
  absl::Status RunRepeatedInline(const void* send, void* recv, size_t count);
  // Adds the repeats RunRepeatedInline left uncounted to the counters (Settle does, and a replaced memo).
  void TallyRepeatedInline() const;
  // What every inline call does around its exchange: BeginInline names the call to the exchange and returns when it
  // began; EndInline counts and records it and breaks the communicator on a timeout.
  uint64_t BeginInline(const CollectiveArgs& args);
  absl::Status EndInline(const CollectiveArgs& args, uint64_t start, absl::Status status);
  // The inline lane's nonblocking form (inline_request.h): StartInline publishes, FinishInline folds.
  Request StartInline(const CollectiveArgs& args);
  absl::Status FinishInline(InlineRequest& request);
  void Record(const CollectiveArgs& args, Algorithm algorithm, const PrimitiveCounts& before, double seconds,
              const absl::Status& status);
  // Adds a finished call to its counters' entry and traces it (KCOLL_DEBUG=TRACE): Record's last step, and the
  // inline lane's whole record (its counts come from InlineCallMemo).
  void Tally(const CallRecord& call, CollectiveCounts& entry, const absl::Status& status);

  // Everything a communicator holds (communicator_state.h): kept out of this header, which applications include.
  std::unique_ptr<CommunicatorState> state_;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_COMMUNICATOR_H_
