// The smallest kcoll application: every rank contributes its rank + 1, and checks the sum.
//   bazel build //:allreduce_client && mpirun -np 2 bazel-bin/allreduce_client
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <vector>

#include "collectives/communicator.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Kokkos::initialize(argc, argv);
  int code = 0;
  {
    auto comm = kcoll::Communicator::Create(MPI_COMM_WORLD);
    if (!comm.ok()) {
      std::fprintf(stderr, "%s\n", comm.status().ToString().c_str());
      code = 1;
    } else {
      const int n = (*comm)->size(), rank = (*comm)->rank();
      std::vector<int> values(1024, rank + 1), sums(1024, 0);
      absl::Status s =
          (*comm)->AllReduce(values.data(), sums.data(), values.size(), kcoll::DataType::kInt32, kcoll::ReduceOp::kSum);
      const bool right = s.ok() && sums[0] == n * (n + 1) / 2 && sums[1023] == n * (n + 1) / 2;
      if (rank == 0) std::printf("allreduce_client: %d ranks, sum %d: %s\n", n, sums[0], right ? "OK" : "WRONG");
      if (!right) code = 1;
    }
  }
  Kokkos::finalize();
  MPI_Finalize();
  return code;
}
