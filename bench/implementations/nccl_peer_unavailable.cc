#include "bench/implementations/nccl_peer.h"

namespace kcoll {
namespace bench {

class NcclPeerComm {};

bool NcclPeerAvailable() { return false; }

absl::StatusOr<std::shared_ptr<NcclPeerComm>> CreateNcclPeerComm(MPI_Comm) {
  return absl::FailedPreconditionError("this build has no NCCL (install NCCL and the CUDA toolkit, then rebuild)");
}

std::unique_ptr<Implementation> MakeNcclPeer(Collective, std::shared_ptr<NcclPeerComm>) { return nullptr; }

}  // namespace bench
}  // namespace kcoll
