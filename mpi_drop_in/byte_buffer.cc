#include "mpi_drop_in/byte_buffer.h"

#include <algorithm>
#include <climits>

namespace kcoll::drop_in {
namespace {

// The bytes `count` elements of a datatype span from its buffer: from `first` (relative to the buffer), `bytes` long.
struct Span {
  std::ptrdiff_t first = 0;
  size_t bytes = 0;
};
Span SpanOf(MPI_Aint displacement, size_t count, const DatatypeLayout& layout) {
  const MPI_Aint last = static_cast<MPI_Aint>(count - 1) * layout.extent;
  const MPI_Aint lo = displacement + std::min<MPI_Aint>(0, last) + layout.true_lb;
  const MPI_Aint hi = displacement + std::max<MPI_Aint>(0, last) + layout.true_lb + layout.true_extent;
  return Span{lo, static_cast<size_t>(hi - lo)};
}

}  // namespace

std::optional<DatatypeLayout> LayoutOf(MPI_Datatype type) {
  DatatypeLayout l;
  if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &l.size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(type, &l.lb, &l.extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(type, &l.true_lb, &l.true_extent) != MPI_SUCCESS || l.size < 0) {
    return std::nullopt;
  }
  return l;
}

ByteBuffer::ByteBuffer(const void* buf, long long count, MPI_Datatype type)
    : buf_(const_cast<void*>(buf)), count_(count < 0 ? 0 : static_cast<size_t>(count)), type_(type) {
  const std::optional<DatatypeLayout> layout = LayoutOf(type);
  if (count < 0 || !layout.has_value()) {
    valid_ = false;
    return;
  }
  layout_ = *layout;
  bytes_ = count_ * static_cast<size_t>(layout_.size);
  contiguous_ = layout_.contiguous();
  if (count_ > static_cast<size_t>(INT_MAX) && !contiguous_) valid_ = false;  // MPI_Pack takes an int count
}

char* ByteBuffer::Host(bool read, bool write) {
  if (!mirror_made_) {
    mirror_made_ = true;
    // A non-contiguous datatype's span is read even when only written: the gaps between its bytes go back as they were.
    const Span span = contiguous_ || bytes_ == 0 ? Span{0, bytes_} : SpanOf(0, count_, layout_);
    status_ = mirror_.Mirror(buf_, span.first, span.bytes, read || !contiguous_, write);
  }
  return status_.ok() ? mirror_.base() : nullptr;
}

const void* ByteBuffer::ForSend() {
  char* host = Host(/*read=*/true, /*write=*/false);
  if (contiguous_ || bytes_ == 0 || host == nullptr) return host;
  scratch_.resize(bytes_);
  int position = 0;
  PMPI_Pack(host, static_cast<int>(count_), type_, scratch_.data(), static_cast<int>(bytes_), &position, MPI_COMM_SELF);
  return scratch_.data();
}

void* ByteBuffer::ForReceive() {
  char* host = Host(/*read=*/false, /*write=*/true);
  if (contiguous_ || bytes_ == 0 || host == nullptr) return host;
  receiving_ = true;
  scratch_.resize(bytes_);
  return scratch_.data();
}

void* ByteBuffer::ForUpdate() {
  char* host = Host(/*read=*/true, /*write=*/true);
  if (contiguous_ || bytes_ == 0 || host == nullptr) return host;
  void* packed = const_cast<void*>(ForSend());
  receiving_ = true;
  return packed;
}

absl::Status ByteBuffer::Finish() {
  if (!status_.ok()) return status_;
  if (receiving_) {
    int position = 0;
    PMPI_Unpack(scratch_.data(), static_cast<int>(bytes_), &position, mirror_.base(), static_cast<int>(count_), type_,
                MPI_COMM_SELF);
    receiving_ = false;
  }
  return mirror_.CopyBack();
}

BlockBuffer::BlockBuffer(const void* buf, const int* counts, const int* displs, MPI_Datatype type, int nranks)
    : buf_(static_cast<char*>(const_cast<void*>(buf))), elem_counts_(counts), elem_displs_(displs), type_(type) {
  if (counts == nullptr || displs == nullptr) return;
  const std::optional<DatatypeLayout> layout = LayoutOf(type);
  if (!layout.has_value()) {
    valid_ = false;
    return;
  }
  layout_ = *layout;
  const int size = layout_.size;
  direct_ = layout_.contiguous();
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

char* BlockBuffer::Host(bool write) {
  if (!mirror_made_) {
    mirror_made_ = true;
    // The span from the lowest block's first byte to the highest block's last, read even when only written (the
    // bytes between blocks go back as they were).
    MPI_Aint lo = 0, hi = 0;
    bool any = false;
    for (size_t j = 0; j < counts_.size(); ++j) {
      if (counts_[j] == 0) continue;
      const Span span = SpanOf(static_cast<MPI_Aint>(elem_displs_[j]) * layout_.extent,
                               static_cast<size_t>(elem_counts_[j]), layout_);
      lo = any ? std::min<MPI_Aint>(lo, span.first) : span.first;
      hi = any ? std::max<MPI_Aint>(hi, span.first + static_cast<MPI_Aint>(span.bytes))
               : span.first + static_cast<MPI_Aint>(span.bytes);
      any = true;
    }
    status_ = mirror_.Mirror(buf_, lo, static_cast<size_t>(hi - lo), /*read=*/true, write);
  }
  return status_.ok() ? mirror_.base() : nullptr;
}

void BlockBuffer::PackBlocks(char* host) {
  for (size_t j = 0; j < counts_.size(); ++j) {
    if (counts_[j] == 0) continue;
    int position = 0;
    PMPI_Pack(host + elem_displs_[j] * layout_.extent, elem_counts_[j], type_, scratch_.data() + displs_[j],
              static_cast<int>(counts_[j]), &position, MPI_COMM_SELF);
  }
}

const void* BlockBuffer::ForSend() {
  char* host = Host(/*write=*/false);
  if (direct_ || host == nullptr) return host;
  PackBlocks(host);
  return scratch_.data();
}

void* BlockBuffer::ForReceive() {
  char* host = Host(/*write=*/true);
  if (direct_ || host == nullptr) return host;
  receiving_ = true;
  return scratch_.data();
}

void* BlockBuffer::ForUpdate() {
  char* host = Host(/*write=*/true);
  if (direct_ || host == nullptr) return host;
  PackBlocks(host);
  receiving_ = true;
  return scratch_.data();
}

absl::Status BlockBuffer::Finish() {
  if (!status_.ok()) return status_;
  if (receiving_) {
    char* host = mirror_.base();
    for (size_t j = 0; j < counts_.size(); ++j) {
      if (counts_[j] == 0) continue;
      int position = 0;
      PMPI_Unpack(scratch_.data() + displs_[j], static_cast<int>(counts_[j]), &position,
                  host + elem_displs_[j] * layout_.extent, elem_counts_[j], type_, MPI_COMM_SELF);
    }
    receiving_ = false;
  }
  return mirror_.CopyBack();
}

}  // namespace kcoll::drop_in
