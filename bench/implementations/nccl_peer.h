// NCCL's own collectives as the vendor rows of a --exec cuda run (bench/implementations/nccl_peer.cc runs them as nccl-tests does),
// beside kcoll's rows on the same device buffers. Each call is enqueued on the kernels' stream and waited for, so a
// row's time is, like a kcoll row's, a call that returns with its result in place. The rows share one blocking NCCL
// communicator, created over MPI on the device Kokkos runs on. Barrier has no NCCL collective and is skipped.
// Built with NCCL only; otherwise NcclPeerAvailable() is false and CreateNcclPeerComm says why.
#ifndef KCOLL_BENCH_IMPLEMENTATIONS_NCCL_PEER_H_
#define KCOLL_BENCH_IMPLEMENTATIONS_NCCL_PEER_H_

#include <mpi.h>

#include <memory>

#include "absl/status/statusor.h"
#include "base/names.h"
#include "bench/implementations/implementation.h"

namespace kcoll {
namespace bench {

bool NcclPeerAvailable();

class NcclPeerComm;

// Collective over `comm`, after Kokkos (with CUDA) is initialised: an NCCL communicator on Kokkos' device and stream.
absl::StatusOr<std::shared_ptr<NcclPeerComm>> CreateNcclPeerComm(MPI_Comm comm);

// The "nccl" row of `collective` on `comm`.
std::unique_ptr<Implementation> MakeNcclPeer(Collective collective, std::shared_ptr<NcclPeerComm> comm);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_IMPLEMENTATIONS_NCCL_PEER_H_
