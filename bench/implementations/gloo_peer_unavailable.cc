// The Gloo peer of a build without Gloo (see gloo_peer.h).
#include "absl/status/status.h"
#include "bench/implementations/gloo_peer.h"

namespace kcoll {
namespace bench {

bool GlooAvailable() { return false; }

absl::StatusOr<std::unique_ptr<Implementation>> MakeGlooPeer(MPI_Comm) {
  return absl::UnimplementedError("built without Gloo: install libgloo-dev and rebuild (third_party/gloo.bzl)");
}

}  // namespace bench
}  // namespace kcoll
