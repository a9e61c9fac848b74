// Transport over MPI point-to-point (MPI_Isend/MPI_Irecv on MPI_BYTE), on a duplicate of the application's
// communicator so that kcoll's messages never match the application's. Buffers must be host memory unless the MPI
// is CUDA-aware. Messages larger than MPI's int count are split into pieces transparently.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_MPI_TRANSPORT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_MPI_TRANSPORT_H_

#include <mpi.h>

#include <memory>
#include <vector>

#include "collectives/transport/transport.h"

namespace kcoll {

class MpiTransport final : public Transport {
 public:
  // Duplicates `comm` (collective over `comm`). The application keeps ownership of `comm`.
  static absl::StatusOr<std::unique_ptr<MpiTransport>> Create(MPI_Comm comm);
  ~MpiTransport() override;

  absl::string_view name() const override { return "mpi"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool CanReach(MemoryKind memory) const override;

  absl::StatusOr<Request> Send(int peer, const void* data, size_t bytes, int tag) override;
  absl::StatusOr<Request> Recv(int peer, void* data, size_t bytes, int tag) override;
  absl::Status Wait(Request request) override;
  absl::Status WaitAll() override;

  // The duplicated communicator kcoll talks on (for the collectives kcoll delegates to MPI, e.g. barriers in tests).
  MPI_Comm comm() const { return comm_; }

  // Whether device buffers may be handed to MPI directly (a CUDA-aware MPI; see mpi_cuda_support.h). Off by default.
  void set_device_memory(bool enabled) { device_memory_ = enabled; }

  // Largest piece one MPI call carries; larger transfers become several requests. Settable for tests.
  void set_max_piece_bytes(size_t bytes) { max_piece_bytes_ = bytes; }

 private:
  MpiTransport(MPI_Comm comm, int rank, int size) : comm_(comm), rank_(rank), size_(size) {}
  absl::Status CheckPeer(int peer, absl::string_view what) const;
  absl::StatusOr<Request> Post(bool send, int peer, void* data, size_t bytes, int tag);

  MPI_Comm comm_;
  int rank_;
  int size_;
  size_t max_piece_bytes_ = size_t{1} << 30;
  bool device_memory_ = false;
  // Every MPI request posted since the last WaitAll; a Request names a contiguous range of them.
  std::vector<MPI_Request> requests_;
  std::vector<std::pair<int, int>> ranges_;  // Request id -> [first, first + count) in requests_
};

// The message of an MPI error code, e.g. "MPI_ERR_RANK: invalid rank".
std::string MpiErrorString(int code);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_MPI_TRANSPORT_H_
