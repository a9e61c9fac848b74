// Kokkos or MPI finalised before a communicator (tests/finalize_order_test.sh):
//   finalize_order kokkos   Kokkos::finalize, then a collective and the communicator's destruction
//   finalize_order mpi      MPI_Finalize, then the same
//   finalize_order init     a communicator created before MPI_Init (then MPI_Init and one made as it should be)
// Each prints what the collective (or the early creation) returned; the process must then end normally (exit 0),
// without a crash.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"

int main(int argc, char** argv) {
  const std::string first = argc > 1 ? argv[1] : "";
  if (first != "kokkos" && first != "mpi" && first != "init") {
    std::fprintf(stderr, "usage: finalize_order kokkos|mpi|init\n");
    return 2;
  }
  if (first == "init") {
    auto early = kcoll::Communicator::Create(MPI_COMM_WORLD);
    std::printf("finalize_order init: before MPI_Init: %s\n", early.status().ToString().c_str());
    std::fflush(stdout);
  }
  MPI_Init(&argc, &argv);
  kcoll::InitializeKokkosQuietly(argc, argv);
  auto created = kcoll::Communicator::Create(MPI_COMM_WORLD);
  if (!created.ok()) {
    std::fprintf(stderr, "%s\n", created.status().ToString().c_str());
    return 1;
  }
  std::unique_ptr<kcoll::Communicator> comm = *std::move(created);
  double x = 1, sum = 0;
  // One call before, so that the kernels hold scratch memory.
  if (!comm->AllReduce(&x, &sum, 1, kcoll::DataType::kFloat64, kcoll::ReduceOp::kSum).ok()) return 1;
  int rank = comm->rank();
  if (first == "kokkos") {
    Kokkos::finalize();
  } else {
    MPI_Finalize();
  }
  absl::Status s = comm->AllReduce(&x, &sum, 1, kcoll::DataType::kFloat64, kcoll::ReduceOp::kSum);
  std::printf("finalize_order %s: rank %d: %s\n", first.c_str(), rank, s.ToString().c_str());
  std::fflush(stdout);
  comm.reset();  // the destructor runs Finalize
  std::printf("finalize_order %s: rank %d: communicator destroyed\n", first.c_str(), rank);
  if (first == "kokkos") {
    MPI_Finalize();
  } else {
    Kokkos::finalize();
  }
  return 0;
}
