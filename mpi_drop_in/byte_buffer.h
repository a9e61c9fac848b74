// A buffer of `count` elements of an MPI datatype as the contiguous bytes kcoll moves. A contiguous datatype is used
// in place; any other is packed into scratch here and unpacked after the call, so that ranks passing different
// datatypes of the same signature (which MPI allows) take the same route. A buffer in device memory is first mirrored
// in host memory (host_mirror.h), for the same reason.
#ifndef KCOLL_MPI_DROP_IN_BYTE_BUFFER_H_
#define KCOLL_MPI_DROP_IN_BYTE_BUFFER_H_

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "mpi_drop_in/host_mirror.h"

namespace kcoll::drop_in {

// What MPI says of a datatype's layout.
struct DatatypeLayout {
  int size = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  // The elements' bytes lie end to end from the buffer with no gap (holes inside a type, or lb/extent resized, make it
  // not so).
  bool contiguous() const { return lb == 0 && true_lb == 0 && extent == size && true_extent == size; }
};
// nullopt for MPI_DATATYPE_NULL or a datatype MPI cannot describe.
std::optional<DatatypeLayout> LayoutOf(MPI_Datatype type);

class ByteBuffer {
 public:
  // `buf` may be null when `count` is 0 or the buffer is not read on this rank. A negative `count` makes it invalid.
  ByteBuffer(const void* buf, long long count, MPI_Datatype type);

  size_t bytes() const { return bytes_; }
  // False for a negative count, MPI_DATATYPE_NULL or a datatype MPI cannot describe, or more than INT_MAX elements of
  // a non-contiguous datatype (MPI_Pack's limit): the call must fail, not move nothing.
  bool valid() const { return valid_; }
  // The bytes to send: `buf` itself, or its packed copy.
  const void* ForSend();
  // Where the bytes are received: `buf` itself, or scratch that Finish unpacks into `buf`.
  void* ForReceive();
  // Both (an in-place call): `buf` itself, or scratch holding its packed contents that Finish unpacks into `buf`.
  void* ForUpdate();
  // Not OK when copying a device buffer to or from host memory failed (the For* functions then return null).
  const absl::Status& status() const { return status_; }
  absl::Status Finish();

 private:
  // `buf` as host memory: itself, or its host mirror, made at the first use.
  char* Host(bool read, bool write);

  void* buf_;
  size_t count_;
  MPI_Datatype type_;
  DatatypeLayout layout_;
  size_t bytes_ = 0;
  bool contiguous_ = true;
  bool valid_ = true;
  bool receiving_ = false;
  bool mirror_made_ = false;
  HostMirror mirror_;
  absl::Status status_;
  std::vector<char> scratch_;
};

// The blocks of a v-collective's buffer (counts[j] elements of a datatype at displs[j] extents from `buf`) as byte
// counts and byte displacements kcoll moves: `buf` itself when the datatype is contiguous and no displacement is
// negative, else scratch holding the blocks end to end, packed from and unpacked to `buf` block by block.
class BlockBuffer {
 public:
  // `counts` and `displs` hold `nranks` entries (none are read when they are null: no blocks on this rank).
  BlockBuffer(const void* buf, const int* counts, const int* displs, MPI_Datatype type, int nranks);

  bool valid() const { return valid_; }  // false: a datatype MPI could not describe or a negative count
  const size_t* byte_counts() const { return counts_.empty() ? nullptr : counts_.data(); }
  const size_t* byte_displs() const { return displs_.empty() ? nullptr : displs_.data(); }
  size_t ByteCount(int j) const { return counts_[static_cast<size_t>(j)]; }
  size_t ByteDispl(int j) const { return displs_[static_cast<size_t>(j)]; }
  const void* ForSend();
  void* ForReceive();
  void* ForUpdate();
  const absl::Status& status() const { return status_; }
  absl::Status Finish();

 private:
  // The blocks as host memory: `buf` itself, or the host mirror of their span, made at the first use.
  char* Host(bool write);
  void PackBlocks(char* host);

  char* buf_;
  const int* elem_counts_;
  const int* elem_displs_;
  MPI_Datatype type_;
  DatatypeLayout layout_;
  bool direct_ = true;
  bool valid_ = true;
  bool receiving_ = false;
  bool mirror_made_ = false;
  HostMirror mirror_;
  absl::Status status_;
  std::vector<size_t> counts_, displs_;
  std::vector<char> scratch_;
};

}  // namespace kcoll::drop_in

#endif  // KCOLL_MPI_DROP_IN_BYTE_BUFFER_H_
