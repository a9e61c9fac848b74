#include "collectives/transport/shm/shm_execution.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/byte_size.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "collectives/kernels/streaming_stores.h"
#include "collectives/transport/mpi/agreement.h"
#include "collectives/transport/mpi/host_ranks.h"
#include "collectives/transport/routed_transport.h"
#include "collectives/transport/shm/shm_transport.h"
#include "collectives/transport/shm/spin_policy.h"

namespace kcoll {
namespace {

absl::StatusOr<size_t> SizeFromEnv(const char* name, size_t fallback) {
  const char* env = GetEnv(name);
  if (env == nullptr) return fallback;
  absl::StatusOr<size_t> parsed = ParseByteSize(env);
  if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat(name, ": ", parsed.status().message()));
  return *parsed;
}

// Where KCOLL_SHM_SINGLE_COPY=auto starts choosing per call: below it a message always goes through the slots (one
// slot's worth, where a single copy's system call and page pinning cost more than the copy saves).
constexpr size_t kChoiceFromBytes = size_t{64} << 10;

// Where the slot size and the single-copy threshold in effect came from; whether the threshold is the default per-call
// choice, and whether the collectives that reduce choose their way per call too.
struct SettingSources {
  std::string slot_bytes = "default";
  std::string single_copy = "default";
  bool default_choice = false;
  bool reductions_choose = false;
};

// What the execution line says of the default choice.
constexpr char kDefaultChoice[] = "default; the collectives that reduce keep the slots";

// `measured` (when set), unless `env` is set and the measured one is not pinned: then the variable's.
absl::Status ApplySetting(const char* env, const std::optional<size_t>& measured,
                          const ExecutionRequest::ShmSettings& settings, size_t* value, std::string* source) {
  if (measured.has_value()) {
    *value = *measured;
    *source = settings.source;
  }
  if (GetEnv(env) == nullptr || (measured.has_value() && settings.pinned)) return absl::OkStatus();
  KCOLL_ASSIGN_OR_RETURN(*value, SizeFromEnv(env, 0));
  *source = env;
  return absl::OkStatus();
}

// The segment's shape, the single-copy threshold and the spinning of waits: defaults, or the measured ones, or
// KCOLL_SHM_SLOTS, KCOLL_SHM_SLOT_BYTES, KCOLL_SHM_SINGLE_COPY (0: never; auto: chosen per call) and KCOLL_SHM_SPIN
// (polls before yielding; 0: chosen); a pinned measured setting wins over its variable.
absl::StatusOr<ShmOptions> OptionsFrom(const ExecutionRequest::ShmSettings& measured, SettingSources* sources) {
  ShmOptions options;
  KCOLL_ASSIGN_OR_RETURN(size_t slots, SizeFromEnv("KCOLL_SHM_SLOTS", static_cast<size_t>(options.slots)));
  if (slots == 1 || slots > static_cast<size_t>(ShmOptions::kMaxSlots)) {
    return absl::InvalidArgumentError(
        absl::StrCat("KCOLL_SHM_SLOTS: ", slots, " is outside [2, ", ShmOptions::kMaxSlots, "] (0 or unset: chosen)"));
  }
  options.slots = static_cast<int>(slots);
  KCOLL_RETURN_IF_ERROR(
      ApplySetting("KCOLL_SHM_SLOT_BYTES", measured.slot_bytes, measured, &options.slot_bytes, &sources->slot_bytes));
  // KCOLL_SHM_SINGLE_COPY=auto: from kChoiceFromBytes, the slots or single copy as each call's group measured faster.
  // Unset and nothing measured, the default: the same for the collectives that only move data (on the 2-core VM the
  // slots took 0.6x a single copy's time in one memory state and up to 3x in another, and an AllGather through them
  // fell to 0.67x MPI's speed), the slots for those that reduce, which reduce each piece while it is in cache and
  // were level with the choice in every state measured (docs/measured/shm_copy_choice_2ranks.txt).
  const char* single_copy = GetEnv("KCOLL_SHM_SINGLE_COPY");
  const bool asked_auto = single_copy != nullptr && absl::string_view(single_copy) == "auto" &&
                          !(measured.single_copy_bytes.has_value() && measured.pinned);
  if (asked_auto || (single_copy == nullptr && !measured.single_copy_bytes.has_value())) {
    options.single_copy_bytes = kChoiceFromBytes;
    options.choose_per_call = true;
    sources->single_copy = asked_auto ? "KCOLL_SHM_SINGLE_COPY=auto" : kDefaultChoice;
    sources->default_choice = !asked_auto;
    sources->reductions_choose = asked_auto;
  } else {
    KCOLL_RETURN_IF_ERROR(ApplySetting("KCOLL_SHM_SINGLE_COPY", measured.single_copy_bytes, measured,
                                       &options.single_copy_bytes, &sources->single_copy));
  }
  KCOLL_ASSIGN_OR_RETURN(options.spin_polls, SpinPollsFromEnv());
  return options;
}

// KCOLL_SHM_STREAM_STORES: how a sender writes the slots (collectives/kernels/streaming_stores.h). Unset or `auto`:
// chosen per call from kChoiceFromBytes by the calls' measured times (cached stores where the other way is not
// measurably faster).
enum class SlotStores { kCached, kStreaming, kChosen };
struct SlotStoresSetting {
  SlotStores stores = SlotStores::kChosen;
  bool asked = false;  // the variable is set
};

absl::StatusOr<SlotStoresSetting> SlotStoresFromEnv() {
  const char* env = GetEnv("KCOLL_SHM_STREAM_STORES");
  if (env == nullptr) return SlotStoresSetting{};
  const absl::string_view value(env);
  if (value == "auto") return SlotStoresSetting{SlotStores::kChosen, true};
  if (value == "0") return SlotStoresSetting{SlotStores::kCached, true};
  if (value == "1") return SlotStoresSetting{SlotStores::kStreaming, true};
  return absl::InvalidArgumentError(
      absl::StrCat("KCOLL_SHM_STREAM_STORES: '", env, "' is not 0 (cached stores), 1 (streaming) or auto (chosen)"));
}

// What the execution line says of the slots' stores.
std::string DescribeSlotStores(const SlotStoresSetting& setting, bool chosen) {
  if (setting.stores == SlotStores::kStreaming) return "streaming stores into the slots (KCOLL_SHM_STREAM_STORES=1)";
  if (chosen) {
    return absl::StrCat("cached or streaming stores into the slots from ", FormatByteSize(kChoiceFromBytes),
                        ", chosen per call (", setting.asked ? "KCOLL_SHM_STREAM_STORES=auto" : "default", ")");
  }
  if (setting.stores == SlotStores::kCached) return "cached stores into the slots (KCOLL_SHM_STREAM_STORES=0)";
  if (!StreamingStoresAvailable()) return "cached stores into the slots (no streaming stores on this build)";
  return "cached stores into the slots (default; the ranks take turns on the cores)";
}

}  // namespace

absl::StatusOr<int> SpinPollsFromEnv() {
  KCOLL_ASSIGN_OR_RETURN(size_t spin, SizeFromEnv("KCOLL_SHM_SPIN", 0));
  if (spin > (size_t{1} << 30)) {
    return absl::InvalidArgumentError(absl::StrCat("KCOLL_SHM_SPIN: ", spin, " is over 2^30"));
  }
  return static_cast<int>(spin);
}

absl::StatusOr<Execution> MakeShmExecution(ExecutionRequest request) {
  MPI_Comm comm = request.mpi->comm();
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> node_of = request.node_of.empty() ? std::vector<int>(size, 0) : request.node_of;
  // This rank's node: its segment is shared with these ranks only (emulated nodes too), the rest go over MPI.
  std::vector<int> node_ranks, local_index(size, -1);
  for (int r = 0; r < size; ++r) {
    if (node_of[r] != node_of[rank]) continue;
    local_index[r] = static_cast<int>(node_ranks.size());
    node_ranks.push_back(r);
  }
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split(comm, node_of[rank], rank, &node);
  KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(
      comm, CheckNodeOnOneHost(node, "shm", "emulate nodes of at most one host each, or use KCOLL_TRANSPORT=mpi"),
      "checking that each node's ranks share a host"));
  SettingSources sources;
  KCOLL_ASSIGN_OR_RETURN(ShmOptions options, OptionsFrom(request.shm, &sources));
  KCOLL_ASSIGN_OR_RETURN(const SlotStoresSetting stores, SlotStoresFromEnv());
  options.rank_names = node_ranks;
  // (Collective: every rank learns whether the host's ranks have a core each, whatever KCOLL_SHM_SPIN says.)
  const int chosen_polls = shm::ChooseHostSpinPolls(comm, 0);
  if (options.spin_polls <= 0) options.spin_polls = chosen_polls;
  if (sources.default_choice && chosen_polls <= 1) {
    // Ranks taking turns on the cores time the scheduler more than the ways: 4 ranks on 2 cores ran AllGather at
    // 0.92-1.27x MPI with the choice against 1.07-2.04x through the slots. They keep the slots by default.
    options.single_copy_bytes = 0;
    options.choose_per_call = false;
    sources.single_copy = "default; the ranks take turns on the cores";
    sources.default_choice = false;
  }
  absl::StatusOr<std::unique_ptr<ShmTransport>> shm = ShmTransport::Create(node, options);
  MPI_Comm_free(&node);  // the transport keeps a duplicate
  KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(comm, shm.status(), "setting up shared memory on every node"));
  (*shm)->set_timeout(request.timeout.timeout, request.timeout.source);
  Execution out;
  KCOLL_ASSIGN_OR_RETURN(out.kernels, MakeKernels(request.backend, /*synchronous=*/true));
  out.shm_single_copy_bytes = (*shm)->single_copy_bytes();
  out.shm_slot_bytes = (*shm)->geometry().slot_bytes;
  out.shm_copy_choice = (*shm)->chooses_per_call();
  out.shm_copy_choice_reductions = sources.reductions_choose;
  // Ranks taking turns on the cores keep cached stores unless asked to choose: their calls' times are the scheduler's.
  out.shm_store_choice =
      stores.stores == SlotStores::kChosen && StreamingStoresAvailable() && (stores.asked || chosen_polls > 1);
  out.shm_store_choice_from_bytes = kChoiceFromBytes;
  if (stores.stores == SlotStores::kStreaming) (*shm)->StreamSlotStores(true);
  constexpr char kRefused[] = "the kernel does not let these ranks read each other's memory";
  std::string single_copy_source = sources.single_copy;
  if (options.single_copy_bytes > 0 && !(*shm)->single_copy()) {
    single_copy_source = sources.default_choice
                             ? absl::StrCat("default: ", kRefused)
                             : absl::StrCat(sources.single_copy, " asked from ",
                                            FormatByteSize(options.single_copy_bytes), "; ", kRefused);
  }
  const std::string shm_description = absl::StrCat((*shm)->Describe(sources.slot_bytes, single_copy_source), ", ",
                                                   DescribeSlotStores(stores, out.shm_store_choice));
  if (static_cast<int>(node_ranks.size()) == size) {
    out.description = absl::StrCat(shm_description, ", ", out.kernels->name(), " kernels on host buffers");
    out.transport = *std::move(shm);
    return out;
  }
  // Several nodes: shared memory within this one, MPI to the others.
  request.mpi->set_timeout(request.timeout.timeout, request.timeout.source);
  out.description = absl::StrCat(shm_description, " on this node; mpi between nodes; ", out.kernels->name(),
                                 " kernels on host buffers");
  out.transport = std::make_unique<RoutedTransport>(*std::move(shm), std::move(local_index), std::move(request.mpi));
  return out;
}

}  // namespace kcoll
