// A small MPI job for the launcher-level fault tests (tests/fault_job_test.sh):
//   fault_job stall SECONDS   rank 1 sleeps SECONDS before an AllReduce the other ranks have entered
//   fault_job kill            rank 1 kills itself (SIGKILL) in the middle of a stream of 4 MiB AllReduces
// The communicator takes its timeout and what a timeout does from the environment (KCOLL_TIMEOUT,
// KCOLL_ON_TIMEOUT). Every rank prints what its calls returned; rank 0 prints "fault_job: done" once every rank
// has got through.
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"

namespace {

int Run(kcoll::Communicator& comm, const std::string& mode, double stall_seconds) {
  const int rank = comm.rank();
  kcoll::CallOptions ring;
  ring.algorithm = kcoll::Algorithm::kRing;
  if (mode == "stall") {
    std::vector<float> in(1024, 1.0f), out(1024, 0.0f);
    if (rank == 1) std::this_thread::sleep_for(std::chrono::duration<double>(stall_seconds));
    const auto start = std::chrono::steady_clock::now();
    absl::Status s =
        comm.AllReduce(in.data(), out.data(), in.size(), kcoll::DataType::kFloat32, kcoll::ReduceOp::kSum, ring);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("fault_job: rank %d: AllReduce returned after %.3f s: %s\n", rank, waited, s.ToString().c_str());
    return s.ok() ? 0 : 1;
  }
  if (mode == "kill") {
    if (rank == 1) {
      std::thread([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        kill(getpid(), SIGKILL);
      }).detach();
    }
    std::vector<float> in(size_t{1} << 20, 1.0f), out(in.size(), 0.0f);
    for (int i = 0; i < 100000; ++i) {
      absl::Status s =
          comm.AllReduce(in.data(), out.data(), in.size(), kcoll::DataType::kFloat32, kcoll::ReduceOp::kSum, ring);
      if (!s.ok()) {
        std::printf("fault_job: rank %d: AllReduce %d returned %s\n", rank, i, s.ToString().c_str());
        return 1;
      }
    }
    return 0;
  }
  std::fprintf(stderr, "usage: fault_job stall SECONDS | kill\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = 2;
  // Three ranks on two cores are meant: silence Kokkos' warning about it.
  kcoll::InitializeKokkosQuietly(argc, argv);
  {
    auto comm = kcoll::Communicator::Create(MPI_COMM_WORLD);
    if (!comm.ok()) {
      std::fprintf(stderr, "fault_job: %s\n", comm.status().ToString().c_str());
    } else {
      const std::string mode = argc > 1 ? argv[1] : "";
      code = Run(**comm, mode, argc > 2 ? std::atof(argv[2]) : 0.0);
      std::fflush(stdout);
    }
  }
  int worst = code;
  MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 && worst == 0) std::printf("fault_job: done\n");
  Kokkos::finalize();
  MPI_Finalize();
  return code;
}
