// A nonblocking collective in flight: what Communicator::IAllReduce and the other I-calls return.
//
//   kcoll::Request r = comm->IAllReduce(dots, sums, 2, kcoll::DataType::kFloat64, kcoll::ReduceOp::kSum);
//   SpMV(...);                       // the application computes while the reduction runs
//   absl::Status s = r.Wait();       // sums are in place once Wait returns OK
//
// The buffers of a call belong to kcoll from the I-call until its request completes (Wait returned, Test said
// true, WaitAll or WaitAny reported it): the application must neither write its send buffer nor read or write its
// receive buffer meanwhile. Once it completed, kcoll never touches them again.
//
// A request's result is the status the blocking call would have returned: an error in its arguments, a timeout, or
// FailedPrecondition when an earlier call broke the communicator. A request that is dropped without being waited for
// still completes (as MPI_Request_free's); Finalize completes every request in flight first.
#ifndef KCOLL_COLLECTIVES_REQUEST_H_
#define KCOLL_COLLECTIVES_REQUEST_H_

#include <cstddef>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace kcoll {

// How a request completes; collectives/progress/ has the implementations.
class RequestState {
 public:
  virtual ~RequestState() = default;
  // Blocks until the call completed; its result.
  virtual absl::Status Wait() = 0;
  // Whether the call completed, without blocking on the other ranks. Not OK only when asking failed (a device
  // error); the call's own result comes from Wait.
  virtual absl::StatusOr<bool> Test() = 0;
};

class Request {
 public:
  // A null request (MPI_REQUEST_NULL's counterpart): complete, with an OK result.
  Request() = default;
  explicit Request(std::shared_ptr<RequestState> state) : state_(std::move(state)) {}

  // Returns once the call completed, with its result; again the same result if called again.
  absl::Status Wait() { return state_ == nullptr ? absl::OkStatus() : state_->Wait(); }
  // True once the call completed (Wait then returns its result at once).
  absl::StatusOr<bool> Test() { return state_ == nullptr ? absl::StatusOr<bool>(true) : state_->Test(); }
  bool null() const { return state_ == nullptr; }

 private:
  std::shared_ptr<RequestState> state_;
};

// A request complete from the start, with `result`: a call refused before it began (views.h's wrappers).
Request CompletedRequest(absl::Status result);

// Waits for every request; the first error in `requests` order (each request keeps its own result for its Wait).
absl::Status WaitAll(absl::Span<Request> requests);
// Waits until one of the non-null requests completed and sets *index to it; that request becomes null and its result
// is returned. With no non-null request, *index = requests.size() and OK (MPI_UNDEFINED's counterpart).
absl::Status WaitAny(absl::Span<Request> requests, size_t* index);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_REQUEST_H_
