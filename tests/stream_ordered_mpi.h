// A transport with NCCL's ordering on top of MPI, for testing schedules on CPU ranks as they would run over NCCL:
// every wait completes every transfer posted so far (what a stream that runs each batch of transfers as a unit
// amounts to), and tags are dropped, so that as in NCCL the n-th send from one rank to another meets the n-th
// receive posted for it.
#ifndef KCOLL_TESTS_STREAM_ORDERED_MPI_H_
#define KCOLL_TESTS_STREAM_ORDERED_MPI_H_

#include <memory>

#include "collectives/transport/transport.h"

namespace kcoll {
namespace testing {

// MPI with a stream's completion rule (a wait finishes the whole batch posted so far) and NCCL's matching (no tags).
class StreamOrderedMpi final : public Transport {
 public:
  explicit StreamOrderedMpi(std::unique_ptr<Transport> inner) : inner_(std::move(inner)) {}
  absl::string_view name() const override { return "stream-ordered mpi"; }
  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  bool CanReach(MemoryKind memory) const override { return inner_->CanReach(memory); }
  absl::StatusOr<Request> Send(int peer, const void* data, size_t bytes, int /*tag*/) override {
    return inner_->Send(peer, data, bytes, 0);
  }
  absl::StatusOr<Request> Recv(int peer, void* data, size_t bytes, int /*tag*/) override {
    return inner_->Recv(peer, data, bytes, 0);
  }
  absl::Status Wait(Request) override { return inner_->WaitAll(); }
  absl::Status WaitAll() override { return inner_->WaitAll(); }
  bool StreamOrdered() const override { return true; }

 private:
  std::unique_ptr<Transport> inner_;
};

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_STREAM_ORDERED_MPI_H_
