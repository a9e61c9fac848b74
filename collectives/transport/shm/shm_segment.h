// A POSIX shared-memory segment mapped by every rank of an MPI communicator (the ranks of one node).
//
// Rank 0 creates it under a name no other job uses (pid and a random nonce), the others open and map it, and once
// every rank has mapped it rank 0 unlinks the name: nothing is left in /dev/shm, even if a rank dies later. The
// memory is freed when the last rank unmaps it.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_SHM_SHM_SEGMENT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_SHM_SHM_SEGMENT_H_

#include <mpi.h>

#include <cstddef>
#include <memory>

#include "absl/status/statusor.h"

namespace kcoll {
namespace shm {

class Segment {
 public:
  // Collective over `comm`, whose ranks must share a host. Zero-filled. Fails on every rank if it fails on one.
  static absl::StatusOr<std::unique_ptr<Segment>> Create(MPI_Comm comm, size_t bytes);
  ~Segment();
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  unsigned char* data() const { return data_; }
  size_t size() const { return bytes_; }

 private:
  Segment(unsigned char* data, size_t bytes) : data_(data), bytes_(bytes) {}
  unsigned char* data_;
  size_t bytes_;
};

}  // namespace shm
}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_SHM_SHM_SEGMENT_H_
