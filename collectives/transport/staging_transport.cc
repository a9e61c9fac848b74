#include "collectives/transport/staging_transport.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace kcoll {
namespace {

// Pool buffers are at least this large, so that small messages of different sizes share buffers.
constexpr size_t kMinBufferBytes = size_t{64} << 10;

}  // namespace

StagingTransport::StagingTransport(std::unique_ptr<Transport> inner, std::unique_ptr<HostStaging> staging)
    : inner_(std::move(inner)), staging_(std::move(staging)) {}

StagingTransport::~StagingTransport() {
  for (const Buffer& b : buffers_) staging_->FreeHost(b.host);
}

size_t StagingTransport::pinned_bytes() const {
  size_t total = 0;
  for (const Buffer& b : buffers_) total += b.capacity;
  return total;
}

absl::StatusOr<int> StagingTransport::Acquire(size_t bytes) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(buffers_.size()); ++i) {
    const Buffer& b = buffers_[i];
    if (!b.busy && b.capacity >= bytes && (best < 0 || b.capacity < buffers_[best].capacity)) best = i;
  }
  if (best < 0) {
    const size_t capacity = bytes < kMinBufferBytes ? kMinBufferBytes : bytes;
    absl::StatusOr<void*> host = staging_->AllocateHost(capacity);
    if (!host.ok()) return host.status();
    buffers_.push_back(Buffer{*host, capacity, false});
    best = static_cast<int>(buffers_.size()) - 1;
  }
  buffers_[best].busy = true;
  return best;
}

absl::StatusOr<Transport::Request> StagingTransport::Send(int peer, const void* data, size_t bytes, int tag) {
  int buffer = -1;
  const void* host = nullptr;
  if (bytes > 0) {
    if (data == nullptr) return absl::InvalidArgumentError(absl::StrCat("Send: null buffer for ", bytes, " bytes"));
    absl::StatusOr<int> acquired = Acquire(bytes);
    if (!acquired.ok()) return acquired.status();
    buffer = *acquired;
    if (absl::Status s = staging_->ToHost(buffers_[buffer].host, data, bytes); !s.ok()) {
      buffers_[buffer].busy = false;
      return s;
    }
    host = buffers_[buffer].host;
  }
  absl::StatusOr<Request> inner = inner_->Send(peer, host, bytes, tag);
  if (!inner.ok()) {
    if (buffer >= 0) buffers_[buffer].busy = false;
    return inner.status();
  }
  pending_.push_back(Pending{*inner, buffer, nullptr, bytes, false});
  return Request{static_cast<int>(pending_.size()) - 1};
}

absl::StatusOr<Transport::Request> StagingTransport::Recv(int peer, void* data, size_t bytes, int tag) {
  int buffer = -1;
  void* host = nullptr;
  if (bytes > 0) {
    if (data == nullptr) return absl::InvalidArgumentError(absl::StrCat("Recv: null buffer for ", bytes, " bytes"));
    absl::StatusOr<int> acquired = Acquire(bytes);
    if (!acquired.ok()) return acquired.status();
    buffer = *acquired;
    host = buffers_[buffer].host;
  }
  absl::StatusOr<Request> inner = inner_->Recv(peer, host, bytes, tag);
  if (!inner.ok()) {
    if (buffer >= 0) buffers_[buffer].busy = false;
    return inner.status();
  }
  pending_.push_back(Pending{*inner, buffer, data, bytes, false});
  return Request{static_cast<int>(pending_.size()) - 1};
}

// After the inner transfer completed: a receive's data goes to the device, and the buffer is free again.
absl::Status StagingTransport::Complete(Pending& pending) {
  if (pending.done) return absl::OkStatus();
  pending.done = true;
  if (pending.buffer < 0) return absl::OkStatus();
  absl::Status s;
  if (pending.device_target != nullptr) {
    s = staging_->ToDevice(pending.device_target, buffers_[pending.buffer].host, pending.bytes);
  }
  return s;
}

absl::Status StagingTransport::Wait(Request request) {
  if (request.id < 0 || request.id >= static_cast<int>(pending_.size())) {
    return absl::InvalidArgumentError(absl::StrCat("Wait: request ", request.id, " is not pending"));
  }
  Pending& pending = pending_[request.id];
  if (pending.done) return absl::OkStatus();
  if (absl::Status s = inner_->Wait(pending.inner); !s.ok()) return s;
  absl::Status s = Complete(pending);
  if (s.ok()) s = staging_->Finish();
  if (pending.buffer >= 0) buffers_[pending.buffer].busy = false;
  return s;
}

absl::Status StagingTransport::WaitAll() {
  absl::Status s = inner_->WaitAll();
  if (s.ok()) {
    for (Pending& p : pending_) {
      s = Complete(p);
      if (!s.ok()) break;
    }
  }
  if (s.ok()) s = staging_->Finish();
  for (Buffer& b : buffers_) b.busy = false;
  pending_.clear();
  return s;
}

absl::Status StagingTransport::Synchronize() {
  absl::Status s = WaitAll();
  absl::Status inner = inner_->Synchronize();
  return s.ok() ? inner : s;
}

void StagingTransport::Abandon() {
  inner_->Abandon();
  for (Buffer& b : buffers_) b.busy = false;
  pending_.clear();
}

}  // namespace kcoll
