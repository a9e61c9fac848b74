// Gloo's AllReduce (gloo::allreduce, its ring, over TCP on the loopback interface) as a second AllReduce peer.
// Built only when the build found Gloo (third_party/gloo.bzl: Debian's libgloo-dev); otherwise GlooAvailable() is
// false and MakeGlooPeer says why. The ranks meet through a gloo::rendezvous::FileStore in a directory that rank 0
// creates under $TMPDIR (or $KCOLL_GLOO_STORE_DIR, which must then be shared by every host), so this peer is for
// ranks of one machine unless that directory is on a shared file system.
#ifndef KCOLL_BENCH_IMPLEMENTATIONS_GLOO_PEER_H_
#define KCOLL_BENCH_IMPLEMENTATIONS_GLOO_PEER_H_

#include <mpi.h>

#include <memory>

#include "absl/status/statusor.h"
#include "bench/implementations/implementation.h"

namespace kcoll {
namespace bench {

bool GlooAvailable();

// Connects every rank of `comm` (collective over comm). Unimplemented when built without Gloo.
absl::StatusOr<std::unique_ptr<Implementation>> MakeGlooPeer(MPI_Comm comm);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_IMPLEMENTATIONS_GLOO_PEER_H_
