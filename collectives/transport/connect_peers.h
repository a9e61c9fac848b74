// Opening every connection at once, symmetrically. NCCL connects a pair of ranks lazily, the first time they
// exchange a message, and for some pairs it assumes both ranks posted their first operations in groups of the same
// shape. kcoll's tree-shaped schedules open with a receive-only group on the parent against send+receive on the
// child, so a transport that connects lazily calls this once at creation: one group in which every rank sends zero
// bytes to and receives zero bytes from every other rank, which connects every pair the same way on both ends.
// Afterwards no collective waits on a connection being made.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CONNECT_PEERS_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CONNECT_PEERS_H_

#include "absl/status/status.h"
#include "collectives/transport/transport.h"

namespace kcoll {

// Collective over the transport's ranks: posts a zero-byte receive from and send to every other rank (in rank order
// starting after this one, receives first), waits for all of them, then synchronises the transport.
absl::Status ConnectEveryPeer(Transport& transport);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CONNECT_PEERS_H_
