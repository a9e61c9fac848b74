// A Transport decorator that moves device buffers over a transport that reads host memory only (an MPI without
// CUDA support): every send copies the device data into a pinned host buffer first and hands that to the inner
// transport; every receive lands in a pinned host buffer and is copied to the device when it is waited for.
//
// Copies are made by a HostStaging (CUDA's for real runs; tests substitute a host-memory one). Pinned buffers are
// pooled: a buffer is busy from the Send/Recv that took it until its request is waited for, then serves the next
// transfer of at most its size, so a steady stream of collectives allocates once.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_STAGING_TRANSPORT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_STAGING_TRANSPORT_H_

#include <memory>
#include <vector>

#include "collectives/transport/transport.h"

namespace kcoll {

// Moves bytes between device memory and pinned host memory, ordered after the kernels that wrote the device data.
class HostStaging {
 public:
  virtual ~HostStaging() = default;
  virtual absl::StatusOr<void*> AllocateHost(size_t bytes) = 0;
  virtual void FreeHost(void* host) = 0;
  // Device -> host; the host copy is complete when this returns.
  virtual absl::Status ToHost(void* host, const void* device, size_t bytes) = 0;
  // Host -> device; may be asynchronous until Finish().
  virtual absl::Status ToDevice(void* device, const void* host, size_t bytes) = 0;
  // Waits for every ToDevice so far (after which their host buffers may be reused).
  virtual absl::Status Finish() = 0;
};

class StagingTransport final : public Transport {
 public:
  StagingTransport(std::unique_ptr<Transport> inner, std::unique_ptr<HostStaging> staging);
  ~StagingTransport() override;

  absl::string_view name() const override { return inner_->name(); }
  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  bool CanReach(MemoryKind memory) const override { return memory == MemoryKind::kDevice; }

  absl::StatusOr<Request> Send(int peer, const void* data, size_t bytes, int tag) override;
  absl::StatusOr<Request> Recv(int peer, void* data, size_t bytes, int tag) override;
  absl::Status Wait(Request request) override;
  absl::Status WaitAll() override;
  absl::Status Synchronize() override;
  void BeginCall(const CallInfo& call) override { inner_->BeginCall(call); }
  void AllowSingleCopy(bool allowed) override { inner_->AllowSingleCopy(allowed); }
  void StreamSlotStores(bool streaming) override { inner_->StreamSlotStores(streaming); }
  absl::Status Quiesce(absl::Duration timeout) override { return inner_->Quiesce(timeout); }
  // Abandons the inner transfers, then frees the staging buffers they held (no device copy is made).
  void Abandon() override;
  std::vector<int> HeardFrom() const override { return inner_->HeardFrom(); }

  const Transport& inner() const { return *inner_; }
  // Pinned bytes held by the pool (for tests and diagnostics).
  size_t pinned_bytes() const;

 private:
  struct Buffer {
    void* host;
    size_t capacity;
    bool busy;
  };
  struct Pending {
    Request inner;
    int buffer;           // index into buffers_, -1 for zero-byte transfers
    void* device_target;  // receives: where the data goes on Wait; sends: nullptr
    size_t bytes;
    bool done;
  };

  absl::StatusOr<int> Acquire(size_t bytes);
  absl::Status Complete(Pending& pending);

  std::unique_ptr<Transport> inner_;
  std::unique_ptr<HostStaging> staging_;
  std::vector<Buffer> buffers_;
  std::vector<Pending> pending_;  // Request id -> entry, until WaitAll
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_STAGING_TRANSPORT_H_
