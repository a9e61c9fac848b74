#include "collectives/transport/mpi/mpi_finalize_watch.h"

#include <mpi.h>

#include <atomic>
#include <mutex>

namespace kcoll {
namespace {

enum WatchState : int { kUnwatched, kWatching, kFinalizing };
std::atomic<int> watch_state{kUnwatched};

int OnSelfAttributeDeleted(MPI_Comm, int, void*, void*) {
  watch_state.store(kFinalizing, std::memory_order_release);
  return MPI_SUCCESS;
}

}  // namespace

void WatchMpiFinalize() {
  static std::once_flag once;
  std::call_once(once, [] {
    int keyval = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, OnSelfAttributeDeleted, &keyval, nullptr) != MPI_SUCCESS) return;
    if (MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr) != MPI_SUCCESS) return;
    int expected = kUnwatched;
    watch_state.compare_exchange_strong(expected, kWatching, std::memory_order_acq_rel);
  });
}

bool MpiFinalizeBegun() {
  const int state = watch_state.load(std::memory_order_acquire);
  if (state == kWatching) return false;
  if (state == kFinalizing) return true;
  int finalized = 0;
  MPI_Finalized(&finalized);
  return finalized != 0;
}

}  // namespace kcoll
