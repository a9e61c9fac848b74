// Whether MPI_Finalize has begun, in one load: every collective checks it before it runs, and MPI_Finalized costs a
// lock and Open MPI's hooks, a tenth of an 8-byte inline AllReduce. MPI deletes MPI_COMM_SELF's attributes first
// thing in MPI_Finalize (the standard promises it for this use), so an attribute set there whose delete function
// raises a flag tells, from then on, that MPI is finalizing or finalized.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_FINALIZE_WATCH_H_
#define KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_FINALIZE_WATCH_H_

namespace kcoll {

// Sets the attribute once per process (later calls return at once). Call while MPI is initialised and not finalized.
void WatchMpiFinalize();

// True once MPI_Finalize has begun. Before WatchMpiFinalize set its attribute (or where setting it failed), asks
// MPI_Finalized.
bool MpiFinalizeBegun();

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_FINALIZE_WATCH_H_
