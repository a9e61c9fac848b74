// A nonblocking AllReduce on the inline lane (communicator_inline.cc), run in two halves: the I-call publishes this
// rank's buffer in the node's inline exchange and returns; Test folds once every rank has published (without waiting
// otherwise), Wait folds after waiting for them. While the application computes after issuing, the other ranks
// publish theirs: a Wait after enough computation only reads their lines. No thread is involved, whatever the
// communicator's progress. The next call of the communicator folds it first (or, on the progress thread, queues
// the fold ahead of itself).
#ifndef KCOLL_COLLECTIVES_INLINE_REQUEST_H_
#define KCOLL_COLLECTIVES_INLINE_REQUEST_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/communicator.h"
#include "collectives/request.h"

namespace kcoll {

class InlineRequest final : public RequestState {
 public:
  InlineRequest(Communicator* comm, const CollectiveArgs& args, uint64_t start)
      : comm_(comm), args_(args), start_(start) {}
  absl::Status Wait() override;
  absl::StatusOr<bool> Test() override;

  const CollectiveArgs& args() const { return args_; }
  uint64_t start() const { return start_; }
  bool done() const { return done_.load(std::memory_order_acquire); }
  const absl::Status& result() const { return result_; }
  void Complete(absl::Status result) {
    result_ = std::move(result);
    done_.store(true, std::memory_order_release);
  }
  // The fold queued on the progress thread by a later call; from then on only that thread folds.
  void set_finisher(std::shared_ptr<RequestState> finisher) { finisher_ = std::move(finisher); }

 private:
  Communicator* comm_;
  CollectiveArgs args_;
  uint64_t start_;
  std::atomic<bool> done_{false};
  absl::Status result_;
  std::shared_ptr<RequestState> finisher_;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_INLINE_REQUEST_H_
