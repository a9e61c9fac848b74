// Requests of a stream-ordered transport (NCCL): a nonblocking call enqueues its transfers and kernels on the
// device stream and returns; its request completes once the stream has run past a mark recorded after them. Test
// asks the transport whether the stream got there; Wait synchronises the stream (the transport's timeout and
// asynchronous-error checks apply there), which also completes every request issued before it.
#ifndef KCOLL_COLLECTIVES_PROGRESS_STREAM_REQUEST_H_
#define KCOLL_COLLECTIVES_PROGRESS_STREAM_REQUEST_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "collectives/request.h"

namespace kcoll {

// What the requests of one communicator call back into; the communicator clears it at Finalize, after which every
// request answers with what the last synchronisation returned.
struct StreamCalls {
  std::function<absl::Status()> synchronize;              // waits for the stream; breaks the communicator on failure
  std::function<absl::StatusOr<bool>(uint64_t)> reached;  // whether the stream ran past a mark
  absl::Status final_result;                              // the synchronisation at Finalize
  uint64_t last_mark = 0;                                 // the mark of the latest call issued
  uint64_t synchronized_through = 0;                      // every mark up to this one is complete
  bool open() const { return static_cast<bool>(synchronize); }
};

class StreamRequest final : public RequestState {
 public:
  StreamRequest(std::shared_ptr<StreamCalls> calls, uint64_t mark) : calls_(std::move(calls)), mark_(mark) {}
  absl::Status Wait() override;
  absl::StatusOr<bool> Test() override;

 private:
  std::shared_ptr<StreamCalls> calls_;
  uint64_t mark_;
  std::optional<absl::Status> result_;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_PROGRESS_STREAM_REQUEST_H_
