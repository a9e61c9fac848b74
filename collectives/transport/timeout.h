// How long a collective may wait for its peers, and what happens when it has waited too long.
//
// One setting for every transport: CommunicatorOptions::timeout, else $KCOLL_TIMEOUT ("30s", "2m", "500ms", a plain
// number of seconds, or "0" for no limit). A collective fails with DeadlineExceeded once `timeout` passes without
// any of its transfers completing; the communicator is then broken and every later call returns FailedPrecondition
// quoting that first error. Unset, the MPI and shm transports wait forever (MPI's own behaviour) and the GPU
// transports (nccl, cuda_ipc) fail after 5 minutes ($KCOLL_NCCL_TIMEOUT, the older name, is read for NCCL when
// KCOLL_TIMEOUT is unset).
//
// CommunicatorOptions::on_timeout, else $KCOLL_ON_TIMEOUT: "return" (the default: the call returns the error) or
// "abort" (the rank prints the error and calls MPI_Abort, ending the job: what a batch job wants).
#ifndef KCOLL_COLLECTIVES_TRANSPORT_TIMEOUT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_TIMEOUT_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/transport_kind.h"
#include "collectives/options.h"

namespace kcoll {

// The exit status MPI_Abort is given when a timeout ends the job (KCOLL_ON_TIMEOUT=abort), as GNU timeout's.
inline constexpr int kTimeoutExitCode = 124;

// The GPU transports' bound when nothing sets one: NCCL's communicator is aborted when it passes.
inline constexpr absl::Duration kDefaultNcclTimeout = absl::Minutes(5);

// A timeout: a plain number of seconds ("30", "2.5") or a duration with its unit ("90s", "2m", "500ms"); "0" (or
// "0s") is no limit, returned as absl::InfiniteDuration(). `source` names the setting in errors.
absl::StatusOr<absl::Duration> ParseTimeout(absl::string_view text, absl::string_view source);

// "return" or "abort".
absl::StatusOr<OnTimeout> ParseOnTimeout(absl::string_view text, absl::string_view source);
absl::string_view OnTimeoutName(OnTimeout on_timeout);

// The settings for a communicator on `transport`: the options if set (a zero or infinite timeout is no limit; a
// negative one is InvalidArgument), else the environment, else the transport's default.
absl::StatusOr<TimeoutSettings> ChooseTimeout(std::optional<absl::Duration> timeout,
                                              std::optional<OnTimeout> on_timeout, TransportKind transport);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_TIMEOUT_H_
