#include "collectives/transport/mpi_transport.h"

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kcoll {

std::string MpiErrorString(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return absl::StrCat("MPI error ", code);
  return std::string(text, length);
}

namespace {

absl::Status FromMpi(int code, absl::string_view call) {
  if (code == MPI_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(call, " failed: ", MpiErrorString(code)));
}

}  // namespace

absl::StatusOr<std::unique_ptr<MpiTransport>> MpiTransport::Create(MPI_Comm comm) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) return absl::FailedPreconditionError("MPI is not initialized: call MPI_Init first");
  if (comm == MPI_COMM_NULL) return absl::InvalidArgumentError("comm: MPI_COMM_NULL is not a communicator");
  MPI_Comm dup = MPI_COMM_NULL;
  if (absl::Status s = FromMpi(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup"); !s.ok()) return s;
  // Errors on kcoll's communicator come back as codes (turned into absl::Status) instead of aborting the job.
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  int rank = 0, size = 0;
  MPI_Comm_rank(dup, &rank);
  MPI_Comm_size(dup, &size);
  return std::unique_ptr<MpiTransport>(new MpiTransport(dup, rank, size));
}

MpiTransport::~MpiTransport() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    WaitAll().IgnoreError();
    MPI_Comm_free(&comm_);
  }
}

bool MpiTransport::CanReach(MemoryKind memory) const {
  // Device memory needs a CUDA-aware MPI, which the communicator detects and reports through set_device_memory.
  return memory == MemoryKind::kHost || device_memory_;
}

absl::Status MpiTransport::CheckPeer(int peer, absl::string_view what) const {
  if (peer < 0 || peer >= size_) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": peer ", peer, " is not a rank in [0, ", size_, ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Transport::Request> MpiTransport::Post(bool send, int peer, void* data, size_t bytes, int tag) {
  if (absl::Status s = CheckPeer(peer, send ? "Send" : "Recv"); !s.ok()) return s;
  if (data == nullptr && bytes > 0) {
    return absl::InvalidArgumentError(absl::StrCat(send ? "Send" : "Recv", ": null buffer for ", bytes, " bytes"));
  }
  const int first = static_cast<int>(requests_.size());
  size_t offset = 0;
  do {  // a zero-byte transfer is still one message, so both sides agree on the message count
    const size_t piece = std::min(bytes - offset, max_piece_bytes_);
    char* at = static_cast<char*>(data) + offset;
    MPI_Request request = MPI_REQUEST_NULL;
    const int code = send ? MPI_Isend(at, static_cast<int>(piece), MPI_BYTE, peer, tag, comm_, &request)
                          : MPI_Irecv(at, static_cast<int>(piece), MPI_BYTE, peer, tag, comm_, &request);
    if (absl::Status s = FromMpi(code, send ? "MPI_Isend" : "MPI_Irecv"); !s.ok()) return s;
    requests_.push_back(request);
    offset += piece;
  } while (offset < bytes);
  ranges_.emplace_back(first, static_cast<int>(requests_.size()) - first);
  return Request{static_cast<int>(ranges_.size()) - 1};
}

absl::StatusOr<Transport::Request> MpiTransport::Send(int peer, const void* data, size_t bytes, int tag) {
  return Post(/*send=*/true, peer, const_cast<void*>(data), bytes, tag);
}

absl::StatusOr<Transport::Request> MpiTransport::Recv(int peer, void* data, size_t bytes, int tag) {
  return Post(/*send=*/false, peer, data, bytes, tag);
}

absl::Status MpiTransport::Wait(Request request) {
  if (request.id < 0 || request.id >= static_cast<int>(ranges_.size())) {
    return absl::InvalidArgumentError(absl::StrCat("Wait: request ", request.id, " is not pending"));
  }
  const auto [first, count] = ranges_[request.id];
  return FromMpi(MPI_Waitall(count, requests_.data() + first, MPI_STATUSES_IGNORE), "MPI_Waitall");
}

absl::Status MpiTransport::WaitAll() {
  const int code = MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  requests_.clear();
  ranges_.clear();
  return FromMpi(code, "MPI_Waitall");
}

}  // namespace kcoll
