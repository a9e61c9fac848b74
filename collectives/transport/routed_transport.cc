#include "collectives/transport/routed_transport.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace kcoll {

RoutedTransport::RoutedTransport(std::unique_ptr<Transport> local, std::vector<int> local_index,
                                 std::unique_ptr<Transport> remote)
    : local_(std::move(local)), local_index_(std::move(local_index)), remote_(std::move(remote)) {
  name_ = absl::StrCat(local_->name(), "+", remote_->name());
  local_->set_companion(remote_.get());
  remote_->set_companion(local_.get());
}

RoutedTransport::~RoutedTransport() {
  local_->set_companion(nullptr);
  remote_->set_companion(nullptr);
}

absl::StatusOr<Transport::Request> RoutedTransport::Post(bool send, int peer, void* data, size_t bytes, int tag) {
  if (peer < 0 || peer >= size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(send ? "Send" : "Recv", ": peer ", peer, " is not a rank in [0, ", size(), ")"));
  }
  const int local = local_index_[peer];
  Transport& part = local >= 0 ? *local_ : *remote_;
  const int to = local >= 0 ? local : peer;
  absl::StatusOr<Request> posted = send ? part.Send(to, data, bytes, tag) : part.Recv(to, data, bytes, tag);
  if (!posted.ok()) return posted.status();
  requests_.push_back(Routed{local >= 0, *posted});
  return Request{static_cast<int>(requests_.size()) - 1};
}

absl::StatusOr<Transport::Request> RoutedTransport::Send(int peer, const void* data, size_t bytes, int tag) {
  return Post(/*send=*/true, peer, const_cast<void*>(data), bytes, tag);
}

absl::StatusOr<Transport::Request> RoutedTransport::Recv(int peer, void* data, size_t bytes, int tag) {
  return Post(/*send=*/false, peer, data, bytes, tag);
}

bool RoutedTransport::FusesReduce(int peer) const {
  return peer >= 0 && peer < size() && local_index_[peer] >= 0 && local_->FusesReduce(local_index_[peer]);
}

absl::StatusOr<Transport::Request> RoutedTransport::RecvReduce(int peer, void* dst, const void* local, size_t bytes,
                                                               int tag, const ChunkReducer& reduce) {
  if (!FusesReduce(peer)) return Transport::RecvReduce(peer, dst, local, bytes, tag, reduce);
  absl::StatusOr<Request> posted = local_->RecvReduce(local_index_[peer], dst, local, bytes, tag, reduce);
  if (!posted.ok()) return posted.status();
  requests_.push_back(Routed{true, *posted});
  return Request{static_cast<int>(requests_.size()) - 1};
}

absl::Status RoutedTransport::Wait(Request request) {
  if (request.id < 0 || request.id >= static_cast<int>(requests_.size())) {
    return absl::InvalidArgumentError(absl::StrCat("Wait: request ", request.id, " is not pending"));
  }
  const Routed& r = requests_[request.id];
  return (r.local ? *local_ : *remote_).Wait(r.request);
}

absl::Status RoutedTransport::WaitAll() {
  // Each part's wait keeps the other moving, so the order does not matter.
  if (absl::Status s = local_->WaitAll(); !s.ok()) return s;
  if (absl::Status s = remote_->WaitAll(); !s.ok()) return s;
  requests_.clear();
  return absl::OkStatus();
}

absl::Status RoutedTransport::Synchronize() {
  // What is still posted completes as in WaitAll (the local group launched before the remote part blocks on the
  // host), and only then does either part wait for its stream.
  if (absl::Status s = WaitAll(); !s.ok()) return s;
  if (absl::Status s = local_->Synchronize(); !s.ok()) return s;
  return remote_->Synchronize();
}

absl::StatusOr<uint64_t> RoutedTransport::MarkPosted() {
  absl::StatusOr<uint64_t> local = local_->MarkPosted();
  if (!local.ok()) return local.status();
  absl::StatusOr<uint64_t> remote = remote_->MarkPosted();
  if (!remote.ok()) return remote.status();
  requests_.clear();
  marks_.emplace_back(*local, *remote);
  return first_mark_ + marks_.size() - 1;
}

absl::StatusOr<bool> RoutedTransport::Reached(uint64_t mark) {
  if (mark < first_mark_) return true;  // 0 (no mark) included
  if (mark - first_mark_ >= marks_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("Reached: mark ", mark, " was not given by MarkPosted"));
  }
  std::pair<uint64_t, uint64_t>& parts = marks_[mark - first_mark_];
  absl::StatusOr<bool> local = local_->Reached(parts.first);
  if (!local.ok() || !*local) return local;
  absl::StatusOr<bool> remote = remote_->Reached(parts.second);
  if (!remote.ok() || !*remote) return remote;
  parts = {0, 0};
  while (!marks_.empty() && marks_.front() == std::pair<uint64_t, uint64_t>{0, 0}) {
    marks_.pop_front();
    ++first_mark_;
  }
  return true;
}

absl::StatusOr<bool> RoutedTransport::Progress() {
  absl::StatusOr<bool> a = local_->Progress();
  if (!a.ok()) return a;
  absl::StatusOr<bool> b = remote_->Progress();
  if (!b.ok()) return b;
  return *a || *b;
}

void RoutedTransport::BeginCall(const CallInfo& call) {
  local_->BeginCall(call);
  remote_->BeginCall(call);
}

std::vector<int> RoutedTransport::HeardFrom() const {
  std::vector<int> heard = local_->HeardFrom(), remote = remote_->HeardFrom();
  heard.insert(heard.end(), remote.begin(), remote.end());
  return heard;
}

void RoutedTransport::Abandon() {
  local_->Abandon();
  remote_->Abandon();
  requests_.clear();
}

absl::Status RoutedTransport::Quiesce(absl::Duration timeout) {
  absl::Status a = local_->Quiesce(timeout);
  absl::Status b = remote_->Quiesce(timeout);
  return a.ok() ? b : a;
}

}  // namespace kcoll
