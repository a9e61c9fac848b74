#include "collectives/progress/choose_progress.h"

#include <mpi.h>

#include "absl/strings/str_cat.h"
#include "base/env.h"

namespace kcoll {

absl::StatusOr<ProgressChoice> ChooseProgress(std::optional<Progress> asked, const ProgressSituation& situation) {
  std::string source = "CommunicatorOptions::progress";
  if (!asked.has_value()) {
    if (const char* env = GetEnv("KCOLL_PROGRESS")) {
      absl::StatusOr<Progress> parsed = ParseProgress(env);
      if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat("KCOLL_PROGRESS: ", parsed.status().message()));
      asked = *parsed;
      source = "KCOLL_PROGRESS";
    }
  }
  if (situation.stream_ordered) {
    return ProgressChoice{ProgressWay::kStream, "stream-ordered: requests complete when the device stream ran them"};
  }
  if (asked == Progress::kEager) return ProgressChoice{ProgressWay::kEager, absl::StrCat("eager (", source, ")")};
  // Why a thread cannot run here, if it cannot.
  std::string missing;
  if (situation.backend != ExecBackend::kSerial) {
    // OpenMP kernels would start their thread pool from a second thread, and CUDA kernels would need the device
    // made current on it: both run eagerly.
    missing = absl::StrCat("a progress thread runs serial kernels only (the kernels are ",
                           ExecBackendName(situation.backend), ")");
  } else if (situation.calls_mpi && situation.mpi_thread_level < MPI_THREAD_MULTIPLE) {
    missing =
        "a progress thread calls MPI beside the application's thread: initialise MPI with MPI_Init_thread and "
        "MPI_THREAD_MULTIPLE (or run one node over the shm transport, whose transfers make no MPI call)";
  }
  if (missing.empty()) {
    return ProgressChoice{ProgressWay::kThread,
                          asked.has_value() ? absl::StrCat("thread (", source, ")") : "thread (the default)"};
  }
  if (asked == Progress::kThread) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": thread: ", missing));
  }
  return ProgressChoice{ProgressWay::kEager, absl::StrCat("eager: ", missing)};
}

}  // namespace kcoll
