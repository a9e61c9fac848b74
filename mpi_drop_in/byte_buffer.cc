#include "mpi_drop_in/byte_buffer.h"

#include <climits>

namespace kcoll::drop_in {

ByteBuffer::ByteBuffer(const void* buf, long long count, MPI_Datatype type)
    : buf_(const_cast<void*>(buf)), count_(count < 0 ? 0 : static_cast<size_t>(count)), type_(type) {
  int size = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  if (count < 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS || size < 0) {
    valid_ = false;
    return;
  }
  bytes_ = count_ * static_cast<size_t>(size);
  // Contiguous: the elements' bytes lie end to end from `buf` with no gap (holes inside a type, or lb/extent
  // resized, make it not so).
  contiguous_ = lb == 0 && true_lb == 0 && extent == size && true_extent == size;
  if (count_ > static_cast<size_t>(INT_MAX) && !contiguous_) valid_ = false;  // MPI_Pack takes an int count
}

const void* ByteBuffer::ForSend() {
  if (contiguous_ || bytes_ == 0) return buf_;
  scratch_.resize(bytes_);
  int position = 0;
  PMPI_Pack(buf_, static_cast<int>(count_), type_, scratch_.data(), static_cast<int>(bytes_), &position, MPI_COMM_SELF);
  return scratch_.data();
}

void* ByteBuffer::ForReceive() {
  if (contiguous_ || bytes_ == 0) return buf_;
  receiving_ = true;
  scratch_.resize(bytes_);
  return scratch_.data();
}

void* ByteBuffer::ForUpdate() {
  if (contiguous_ || bytes_ == 0) return buf_;
  void* packed = const_cast<void*>(ForSend());
  receiving_ = true;
  return packed;
}

void ByteBuffer::Finish() {
  if (!receiving_) return;
  int position = 0;
  PMPI_Unpack(scratch_.data(), static_cast<int>(bytes_), &position, buf_, static_cast<int>(count_), type_,
              MPI_COMM_SELF);
  receiving_ = false;
}

BlockBuffer::BlockBuffer(const void* buf, const int* counts, const int* displs, MPI_Datatype type, int nranks)
    : buf_(static_cast<char*>(const_cast<void*>(buf))), elem_counts_(counts), elem_displs_(displs), type_(type) {
  if (counts == nullptr || displs == nullptr) return;
  int size = 0;
  MPI_Aint lb = 0, true_lb = 0, true_extent = 0;
  if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(type, &lb, &extent_) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS || size < 0) {
    valid_ = false;
    return;
  }
  direct_ = lb == 0 && true_lb == 0 && extent_ == size && true_extent == size;
  counts_.resize(static_cast<size_t>(nranks));
  displs_.resize(static_cast<size_t>(nranks));
  size_t packed_end = 0;
  for (int j = 0; j < nranks; ++j) {
    if (counts[j] < 0) {
      valid_ = false;
      return;
    }
    if (displs[j] < 0) direct_ = false;
    counts_[static_cast<size_t>(j)] = static_cast<size_t>(counts[j]) * static_cast<size_t>(size);
  }
  for (int j = 0; j < nranks; ++j) {
    if (direct_) {
      displs_[static_cast<size_t>(j)] = static_cast<size_t>(displs[j]) * static_cast<size_t>(size);
    } else {
      displs_[static_cast<size_t>(j)] = packed_end;
      packed_end += counts_[static_cast<size_t>(j)];
    }
  }
  if (!direct_) scratch_.resize(packed_end);
}

void BlockBuffer::PackBlocks() {
  for (size_t j = 0; j < counts_.size(); ++j) {
    if (counts_[j] == 0) continue;
    int position = 0;
    PMPI_Pack(buf_ + elem_displs_[j] * extent_, elem_counts_[j], type_, scratch_.data() + displs_[j],
              static_cast<int>(counts_[j]), &position, MPI_COMM_SELF);
  }
}

const void* BlockBuffer::ForSend() {
  if (direct_) return buf_;
  PackBlocks();
  return scratch_.data();
}

void* BlockBuffer::ForReceive() {
  if (direct_) return buf_;
  receiving_ = true;
  return scratch_.data();
}

void* BlockBuffer::ForUpdate() {
  if (direct_) return buf_;
  PackBlocks();
  receiving_ = true;
  return scratch_.data();
}

void BlockBuffer::Finish() {
  if (!receiving_) return;
  for (size_t j = 0; j < counts_.size(); ++j) {
    if (counts_[j] == 0) continue;
    int position = 0;
    PMPI_Unpack(scratch_.data() + displs_[j], static_cast<int>(counts_[j]), &position, buf_ + elem_displs_[j] * extent_,
                elem_counts_[j], type_, MPI_COMM_SELF);
  }
  receiving_ = false;
}

}  // namespace kcoll::drop_in
