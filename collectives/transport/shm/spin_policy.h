// How a rank waits for a peer on the same node: spin on the shared cache line while every rank has a core of its
// own (the peer answers within a microsecond), give the core away at once when ranks outnumber cores (the peer may
// need this very core to answer).
#ifndef KCOLL_COLLECTIVES_TRANSPORT_SHM_SPIN_POLICY_H_
#define KCOLL_COLLECTIVES_TRANSPORT_SHM_SPIN_POLICY_H_

#include <mpi.h>

namespace kcoll {
namespace shm {

// Tells the core this is a spin-wait loop (x86's pause); nothing elsewhere.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Polls without progress before a waiting rank starts yielding: `requested` if positive, else many when the ranks of
// `comm` have at least a core each (the union of their affinity masks), else one. Collective over `comm`.
int ChooseSpinPolls(MPI_Comm comm, int requested);

}  // namespace shm
}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_SHM_SPIN_POLICY_H_
