#ifndef KCOLL_COLLECTIVES_ALGORITHMS_SEND_RECV_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_SEND_RECV_H_

#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// nccl-tests' sendrecv as one pairwise exchange (see send_recv.cc).
absl::Status PairwiseSendRecv(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_SEND_RECV_H_
