#include "collectives/transport/connect_peers.h"

#include "absl/strings/str_cat.h"

namespace kcoll {

absl::Status ConnectEveryPeer(Transport& transport) {
  const int n = transport.size(), rank = transport.rank();
  for (int k = 1; k < n; ++k) {
    const int peer = (rank + k) % n;
    absl::StatusOr<Transport::Request> recv = transport.Recv(peer, nullptr, 0);
    if (!recv.ok())
      return absl::Status(recv.status().code(),
                          absl::StrCat("connecting to rank ", peer, ": ", recv.status().message()));
    absl::StatusOr<Transport::Request> send = transport.Send(peer, nullptr, 0);
    if (!send.ok())
      return absl::Status(send.status().code(),
                          absl::StrCat("connecting to rank ", peer, ": ", send.status().message()));
  }
  if (absl::Status s = transport.WaitAll(); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("connecting every pair of ranks: ", s.message()));
  }
  return transport.Synchronize();
}

}  // namespace kcoll
