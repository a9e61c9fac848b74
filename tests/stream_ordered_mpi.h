// A transport with NCCL's ordering on top of MPI, for testing schedules on CPU ranks as they would run over NCCL:
// every wait completes every transfer posted so far (what a stream that runs each batch of transfers as a unit
// amounts to), and tags are dropped, so that as in NCCL the n-th send from one rank to another meets the n-th
// receive posted for it.
#ifndef KCOLL_TESTS_STREAM_ORDERED_MPI_H_
#define KCOLL_TESTS_STREAM_ORDERED_MPI_H_

#include <mpi.h>

#include <memory>

#include "absl/status/statusor.h"
#include "base/topology.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/mpi/mpi_transport.h"
#include "collectives/transport/transport.h"
#include "tests/mpi_test_env.h"

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

// What the stream-order tests run schedules on: the stream-ordered transport over MPI_COMM_WORLD, Serial kernels,
// and a topology of two ranks per node where they divide (so the hierarchical schedules run two levels) with two
// channel rings.
struct StreamOrderedRig {
  std::unique_ptr<Transport> transport;
  std::unique_ptr<Kernels> kernels;
  Topology topology;
};

inline absl::StatusOr<StreamOrderedRig> MakeStreamOrderedRig() {
  absl::StatusOr<std::unique_ptr<MpiTransport>> mpi = MpiTransport::Create(MPI_COMM_WORLD);
  if (!mpi.ok()) return mpi.status();
  absl::StatusOr<std::unique_ptr<Kernels>> kernels = MakeKernels(ExecBackend::kSerial);
  if (!kernels.ok()) return kernels.status();
  const int n = WorldSize();
  return StreamOrderedRig{std::make_unique<StreamOrderedMpi>(*std::move(mpi)), *std::move(kernels),
                          MakeEmulatedTopology(WorldRank(), n, n % 2 == 0 ? 2 : 1, /*nchannels=*/2)};
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_STREAM_ORDERED_MPI_H_
