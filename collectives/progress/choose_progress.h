// Which way a communicator's nonblocking calls progress (options.h's Progress, and the stream-ordered way of a
// transport that runs its work on a device stream), chosen once at creation.
#ifndef KCOLL_COLLECTIVES_PROGRESS_CHOOSE_PROGRESS_H_
#define KCOLL_COLLECTIVES_PROGRESS_CHOOSE_PROGRESS_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "collectives/options.h"

namespace kcoll {

enum class ProgressWay {
  kThread,  // the communicator's progress thread runs the calls (progress_thread.h)
  kEager,   // each call runs to completion when issued
  kStream,  // the call enqueues its work on the transport's stream; the request completes when the stream ran it
};

struct ProgressSituation {
  ExecBackend backend = ExecBackend::kSerial;
  bool stream_ordered = false;  // the transport runs its transfers on a device stream (NCCL)
  // Whether a transfer of this communicator may call MPI (every transport but shared memory on one node, and the
  // cross-rank argument check): a progress thread then needs MPI_THREAD_MULTIPLE.
  bool calls_mpi = true;
  int mpi_thread_level = 0;  // what MPI_Query_thread reports
};

struct ProgressChoice {
  ProgressWay way = ProgressWay::kEager;
  std::string reason;  // for the KCOLL_DEBUG=INFO block: why this way
};

// `asked` if set, else $KCOLL_PROGRESS, else a thread where `situation` allows one, else eager. InvalidArgument for
// a thread asked for where it cannot run, naming what is missing, and for a $KCOLL_PROGRESS that names no mode.
absl::StatusOr<ProgressChoice> ChooseProgress(std::optional<Progress> asked, const ProgressSituation& situation);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_PROGRESS_CHOOSE_PROGRESS_H_
