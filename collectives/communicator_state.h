// What a Communicator holds (communicator.h declares it, communicator*.cc use it): kept apart from the public header
// so that applications compile none of kcoll's internals.
#ifndef KCOLL_COLLECTIVES_COMMUNICATOR_STATE_H_
#define KCOLL_COLLECTIVES_COMMUNICATOR_STATE_H_

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/names.h"
#include "base/tick_clock.h"
#include "base/topology.h"
#include "choice/auto_choice.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/collective_call.h"
#include "collectives/counters.h"
#include "collectives/inline_path.h"
#include "collectives/kernels/kernels.h"
#include "collectives/observability/log.h"
#include "collectives/options.h"
#include "collectives/progress/choose_progress.h"
#include "collectives/progress/progress_thread.h"
#include "collectives/progress/stream_request.h"
#include "collectives/transport/shm/copy_choice.h"
#include "collectives/transport/shm/inline_exchange.h"
#include "collectives/transport/shm/registered_memory.h"
#include "collectives/transport/transport.h"

namespace kcoll {

class InlineRequest;

// What the resolve stage made of a call (Communicator::Resolve): the algorithm and its schedule.
struct ResolvedCall {
  Algorithm algorithm = Algorithm::kAuto;
  AlgorithmFn schedule = nullptr;
};

struct CommunicatorState {
  CommunicatorOptions options;  // as Create was given them: Split and Dup create with the same
  ExecBackend backend = ExecBackend::kSerial;
  TransportKind transport_kind = TransportKind::kMpi;
  // Why `auto` took transport_kind, when it measured or decided something (KCOLL_DEBUG=INFO prints it).
  std::string transport_reason;
  std::string execution;
  Topology topology;
  Counters counters;  // filled by the counting transport and kernels, and by Run
  Logger logger;
  std::unique_ptr<Transport> transport;
  std::unique_ptr<Kernels> kernels;
  bool check_args = false;
  Numerics numerics = Numerics::kFast;  // the calls' default (CommunicatorOptions::numerics, KCOLL_NUMERICS)
  TimeoutSettings timeout;
  absl::Status broken;
  // Collective calls begun on this communicator (SendRecv, which involves two ranks only, not counted), and the
  // latest one's name: where this rank is, for the report that follows a timeout (stall_report.h).
  uint64_t calls_begun = 0;
  // The call (a calls_begun value) the transport last began: a call that timed out before reaching the transport (in
  // the argument agreement, or on the inline lane) heard nothing through it, whatever the transport heard before.
  uint64_t transport_call = 0;
  // True while SetInlineLimit times its calls: they are not traced.
  bool measuring_inline_limit = false;
  absl::string_view current_collective = "none";
  uint64_t current_call_start = 0;  // on `clock`
  // Counts a call of `collective_name` as begun at `start` (Communicator::NoteCallBegun looks the name up; the
  // repeated inline call passes the one it keeps).
  void NoteCallBegun(absl::string_view collective_name, uint64_t start) {
    ++calls_begun;
    current_collective = collective_name;
    current_call_start = start;
  }
  MPI_Comm control_comm = MPI_COMM_NULL;  // a duplicate for the argument check and SetProfile's agreement
  // The vendor path's MPI communicator (another duplicate, made by the first call that takes the path), its timeout,
  // and whether a nonblocking call may take it (MPI_THREAD_MULTIPLE: it may run on the progress thread).
  VendorMpi vendor;
  bool vendor_on_any_thread = false;
  // The smallest AllReduce size the profile hands to MPI's collective (auto_choice's vendor_all_reduce_bytes), or
  // SIZE_MAX: one comparison keeps the other calls off the rule. Set with auto_choice.
  size_t vendor_from_bytes = SIZE_MAX;
  std::unique_ptr<AutoChoice> auto_choice;
  bool host_ranks = true;  // not GPU ranks: the schedules that read received sizes on the host may run
  // $KCOLL_ALGO as it was at creation, parsed once per collective (indexed by Collective): the algorithm it names
  // for that collective, none, or the error every call of that collective then returns. Empty without $KCOLL_ALGO.
  std::vector<absl::StatusOr<std::optional<Algorithm>>> algo_override;
  // The algorithm a call names: `requested` unless it is kAuto, else $KCOLL_ALGO's for the collective, else kAuto
  // (the one place that reads algo_override for a call).
  absl::StatusOr<Algorithm> NamedAlgorithm(Collective collective, Algorithm requested) const {
    if (requested != Algorithm::kAuto || static_cast<size_t>(collective) >= algo_override.size()) return requested;
    const absl::StatusOr<std::optional<Algorithm>>& from_env = algo_override[static_cast<size_t>(collective)];
    if (!from_env.ok()) return from_env.status();
    return from_env->value_or(Algorithm::kAuto);
  }
  struct LastChoice {
    Collective collective;
    size_t bytes;
    Algorithm algorithm;
    bool valid = false;
  };
  LastChoice last_choice;  // ResolveAlgorithm's latest auto choice
  TickClock clock;         // times each call for the counters
  // Memory from Allocate, created by the first call; its zero-copy path serves a communicator of one node over shm.
  std::unique_ptr<RegisteredMemory> registered;
  uint32_t allocate_calls = 0;
  // The inline path of small AllReduces when the ranks share one node over shm (inline_path.h), and the largest
  // AllReduce `auto` sends it.
  std::unique_ptr<InlineExchange> inline_exchange;
  size_t inline_max_bytes = 0;
  std::string inline_limit_reason;  // where inline_max_bytes comes from, for Describe
  // Which collectives' `auto` calls may take the inline lane (communicator_inline.cc), a bit per Collective: AllReduce,
  // Scan and ExScan when the communicator has the exchange, KCOLL_ALGO names no algorithm of that collective and
  // arguments are not compared across ranks first.
  uint32_t inline_lanes = 0;
  InlineCallMemo inline_memo;  // the latest inline call's bookkeeping, for the next one with the same arguments
  // KCOLL_SHM_SINGLE_COPY=auto: how each call's large messages travel, the slots or a single copy, from the times of
  // the calls before it (copy_choice.h); null otherwise. Its threshold is the transport's.
  std::unique_ptr<CopyChoice> copy_choice;
  bool copy_choice_reductions = false;  // the collectives that reduce choose too (KCOLL_SHM_SINGLE_COPY=auto)
  int copy_choice_logs = 0;             // changes of way logged so far (at most kCopyChoiceLogs)
  // KCOLL_SHM_STREAM_STORES unset or auto: how each call's sender writes the slots, cached or streaming stores
  // (Communicator::ChooseStoreWay); null otherwise.
  std::unique_ptr<CopyChoice> store_choice;
  int store_choice_logs = 0;  // changes of way logged so far (at most kCopyChoiceLogs)
  // Whether a repeat of the latest inline call may skip the general path (RepeatsInlineAllReduce), as far as it depends
  // on what is fixed at creation (SetInlineLimit): an AllReduce lane, at most 64 ranks, no per-call trace, and the
  // node's ranks a core each. Where they take turns on the cores, the repeats measured slower than the general path
  // (docs/measured/inline_8b_call_path_2ranks_epyc.txt, part 5). False once finalized.
  bool repeat_lane = false;
  // How nonblocking calls progress (choose_progress.h); the thread that runs them, started by the first one; the
  // stream way's link with its requests.
  ProgressChoice progress;
  std::unique_ptr<ProgressThread> progress_thread;
  std::shared_ptr<StreamCalls> stream_calls;
  // The inline lane's nonblocking call published and not yet folded (inline_request.h); at most one.
  std::shared_ptr<InlineRequest> pending_inline;
  // GroupStart/GroupEnd (communicator_group.cc): how deep the open groups nest, and the calls queued until the
  // outermost GroupEnd runs them.
  int group_depth = 0;
  std::vector<CollectiveCall> grouped;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_COMMUNICATOR_STATE_H_
