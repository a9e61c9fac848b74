// Whether the MPI library moves device memory itself ("CUDA-aware"). Open MPI answers at run time through
// MPIX_Query_cuda_support() from mpi-ext.h; an MPI without that query is taken as not CUDA-aware (set
// KCOLL_MPI_CUDA_AWARE=1 to say otherwise, e.g. for a CUDA-enabled MPICH or Cray MPICH).
#ifndef KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_CUDA_SUPPORT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_CUDA_SUPPORT_H_

#include <string>

namespace kcoll {

struct MpiCudaSupport {
  bool aware = false;  // device buffers may go to MPI directly
  std::string how;     // how that was decided, for the log line
};

// Needs MPI initialised (Open MPI's query is a run-time call).
MpiCudaSupport DetectMpiCudaSupport();

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_MPI_MPI_CUDA_SUPPORT_H_
