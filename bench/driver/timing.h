// Combining each timed iteration across ranks (nccl-tests' -a), in one MPI_Allreduce per iteration that also tells
// every rank whether any rank's call failed, so that all ranks leave the timing loop together.
#ifndef KCOLL_BENCH_DRIVER_TIMING_H_
#define KCOLL_BENCH_DRIVER_TIMING_H_

#include <mpi.h>

#include "bench/options/options.h"

namespace kcoll {
namespace bench {

struct AgreedIteration {
  double seconds = 0;  // the iteration's time combined across ranks: rank 0's, the average, the min or the max
  bool any_failed = false;
};

// Collective over `comm`.
AgreedIteration AgreeIteration(double my_seconds, bool my_failed, TimeAcrossRanks mode, MPI_Comm comm);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DRIVER_TIMING_H_
