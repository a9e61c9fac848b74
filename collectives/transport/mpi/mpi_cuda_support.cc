#include "collectives/transport/mpi/mpi_cuda_support.h"

#include <mpi.h>

#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

namespace kcoll {

MpiCudaSupport DetectMpiCudaSupport() {
  MpiCudaSupport support;
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  // Open MPI: the compile-time macro only says how the headers were built; the library loaded now decides.
  support.aware = MPIX_Query_cuda_support() == 1;
  support.how = support.aware ? "MPIX_Query_cuda_support() = 1" : "MPIX_Query_cuda_support() = 0";
#else
  support.aware = false;
  support.how = "this MPI offers no MPIX_Query_cuda_support()";
#endif
  return support;
}

}  // namespace kcoll
