#include "bench/implementations/nccl_peer.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bench/implementations/nccl_collectives.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/cuda/cuda_errors.h"
#include "collectives/transport/nccl/nccl_bootstrap.h"

namespace kcoll {
namespace bench {

class NcclPeerComm {
 public:
  NcclPeerComm(ncclComm_t comm, cudaStream_t stream) : comm_(comm), stream_(stream) {}
  ~NcclPeerComm() { ncclCommDestroy(comm_); }
  NcclPeerComm(const NcclPeerComm&) = delete;
  NcclPeerComm& operator=(const NcclPeerComm&) = delete;

  ncclComm_t comm() const { return comm_; }
  cudaStream_t stream() const { return stream_; }

 private:
  ncclComm_t comm_;
  cudaStream_t stream_;
};

namespace {

class NcclPeer final : public Implementation {
 public:
  NcclPeer(Collective collective, std::shared_ptr<NcclPeerComm> comm)
      : collective_(collective), comm_(std::move(comm)) {}

  std::string name() const override { return "nccl"; }
  std::string kind() const override { return "nccl"; }

  absl::Status Run(const Call& c) override {
    if (collective_ == Collective::kBarrier) return absl::UnimplementedError("NCCL has no barrier");
    absl::Status s = RunNcclCollective(c.collective, c.send, c.recv, c.layout.count, c.type,
                                       c.op.value_or(ReduceOp::kSum), c.root, comm_->comm(), comm_->stream());
    if (!s.ok()) return s;
    return CudaStatus(cudaStreamSynchronize(comm_->stream()), "cudaStreamSynchronize");
  }

 private:
  Collective collective_;
  std::shared_ptr<NcclPeerComm> comm_;
};

}  // namespace

bool NcclPeerAvailable() { return true; }

absl::StatusOr<std::shared_ptr<NcclPeerComm>> CreateNcclPeerComm(MPI_Comm comm) {
  absl::StatusOr<CudaPlacement> placement = CudaKernelsPlacement();
  if (!placement.ok()) return placement.status();
  NcclCommOptions options;
  options.device = placement->device;
  absl::StatusOr<ncclComm_t> nccl = CreateNcclComm(comm, options);
  if (!nccl.ok()) return nccl.status();
  return std::make_shared<NcclPeerComm>(*nccl, static_cast<cudaStream_t>(placement->stream));
}

std::unique_ptr<Implementation> MakeNcclPeer(Collective collective, std::shared_ptr<NcclPeerComm> comm) {
  return std::make_unique<NcclPeer>(collective, std::move(comm));
}

}  // namespace bench
}  // namespace kcoll
