// A kcoll communicator per MPI communicator: made at the communicator's first collective that kcoll takes, cached as
// an attribute of the MPI communicator whose delete callback finalises it (MPI_Comm_free, and MPI_Finalize through
// ReleaseAll), so split, dup, Cartesian and graph communicators each get their own. Intercommunicators and
// communicators of one rank get none: their calls go to MPI.
#ifndef KCOLL_MPI_DROP_IN_COMM_REGISTRY_H_
#define KCOLL_MPI_DROP_IN_COMM_REGISTRY_H_

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "collectives/communicator.h"

namespace kcoll::drop_in {

// Whether the library takes any call: false under KCOLL_MPI=off (or 0), read once.
bool DropInEnabled();

// What runs `comm`'s collectives: kcoll's communicator, or null with the reason the calls go to MPI
// ("intercommunicator", "one rank", "kcoll could not be created: ..."). The same on every rank of `comm`: it depends
// only on what every rank sees alike. Collective over `comm` the first time (it creates the communicator).
struct Route {
  Communicator* kcoll = nullptr;
  const std::string* forward_reason = nullptr;
};
Route RouteOf(MPI_Comm comm);
// The same for a communicator whose route a call has already made, without making one: a nonblocking call may not
// block on the other ranks, as making a communicator would ("no kcoll communicator yet" otherwise).
Route RouteIfMade(MPI_Comm comm);

// The device route's communicator of `comm` (device_route.h), made by `make` at the first call on a communicator whose
// kcoll communicator exists; null when it could not be made on every rank (said on stderr once). Collective over
// `comm` at the first call (every rank must call it alike).
Communicator* DeviceCommunicatorOf(MPI_Comm comm,
                                   const std::function<absl::StatusOr<std::unique_ptr<Communicator>>()>& make);

// Changes whenever a route given out before may no longer hold (a communicator's entry deleted, Kokkos finalised,
// everything released): what a caller remembers of a route is good while this stays the same.
uint64_t RouteGeneration();

// Finalises every kcoll communicator still held (newest first) and Kokkos if the library started it. Called by
// MPI_Finalize before the MPI underneath finalises.
void ReleaseAll();

}  // namespace kcoll::drop_in

#endif  // KCOLL_MPI_DROP_IN_COMM_REGISTRY_H_
