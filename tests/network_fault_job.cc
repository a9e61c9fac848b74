// An MPI job for the network-fault tests on the cluster of hosts (tests/network_fault_test.sh, tools/cluster.sh):
//   network_fault_job during BYTES DELAY_S [exit]
//                                             AllReduces of BYTES in a loop; DELAY_S seconds in, rank 0 runs
//                                             $NETWORK_FAULT_CMD (a `cluster.sh fault ...`), so the fault lands
//                                             during a call; with `exit`, a rank leaves the job once it has reported
//                                             (ranks were killed: no barrier can complete)
//   network_fault_job create                 rank 0 runs $NETWORK_FAULT_CMD, then every rank creates a communicator
// The communicator takes its timeout from KCOLL_TIMEOUT (and KCOLL_ON_TIMEOUT). Each rank prints one line:
//   network_fault_job: rank R on HOST: call N returned after S s: STATUS; late writes: none
// where S is the time spent in the call that failed and "late writes" says whether its receive buffer changed in the
// timeout + 1 s after it returned. Then the ranks meet in an MPI barrier (which completes once the fault is over)
// and rank 0 prints "network_fault_job: done".
#include <mpi.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "collectives/communicator.h"
#include "collectives/kernels/backend.h"

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string Host() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

// Rank 0 runs the fault command; its output goes to stderr, its status is printed.
void RunFaultCommand() {
  const char* command = std::getenv("NETWORK_FAULT_CMD");
  if (command == nullptr || *command == '\0') return;
  const int status = std::system(command);
  std::fprintf(stderr, "network_fault_job: fault command exited %d: %s\n", status, command);
}

void Report(int rank, uint64_t call, double seconds, const absl::Status& status, const std::string& late) {
  std::printf("network_fault_job: rank %d on %s: call %llu returned after %.3f s: %s; late writes: %s\n", rank,
              Host().c_str(), static_cast<unsigned long long>(call), seconds, status.ToString().c_str(), late.c_str());
  std::fflush(stdout);
}

int During(kcoll::Communicator& comm, size_t bytes, double delay) {
  const int rank = comm.rank();
  const size_t count = std::max<size_t>(1, bytes / sizeof(int32_t));
  std::vector<int32_t> in(count, rank + 1), out(count, 0);
  std::atomic<bool> stop{false};
  std::thread fault;
  if (rank == 0) {
    fault = std::thread([delay, &stop] {
      const auto until = Clock::now() + std::chrono::duration<double>(delay);
      while (!stop && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (!stop) RunFaultCommand();
    });
  }
  const int n = comm.size();
  const int32_t expected = n * (n + 1) / 2;
  const auto began = Clock::now();
  int code = 0;
  for (uint64_t call = 1; Since(began) < delay + 60; ++call) {
    const auto start = Clock::now();
    absl::Status s = comm.AllReduce(in.data(), out.data(), count, kcoll::DataType::kInt32, kcoll::ReduceOp::kSum);
    const double seconds = Since(start);
    if (s.ok()) {
      for (size_t i = 0; i < count; ++i) {
        if (out[i] != expected) {
          Report(rank, call, seconds, absl::DataLossError("wrong result"), "not checked");
          code = 1;
          break;
        }
      }
      if (code != 0) break;
      continue;
    }
    // No byte of the receive buffer may change after the call returned.
    const std::vector<int32_t> returned = out;
    const double timeout = absl::ToDoubleSeconds(comm.timeout().timeout);
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(timeout, 30.0) + 1.0));
    const bool changed = std::memcmp(returned.data(), out.data(), count * sizeof(int32_t)) != 0;
    Report(rank, call, seconds, s, changed ? "CHANGED" : "none");
    code = changed ? 3 : 1;
    break;
  }
  if (code == 0) Report(rank, 0, Since(began), absl::OkStatus(), "none");
  stop = true;
  if (fault.joinable()) fault.join();
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  kcoll::InitializeKokkosQuietly(argc, argv);
  const std::string mode = argc > 1 ? argv[1] : "";
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int code = 2;
  if (mode == "create") {
    MPI_Barrier(MPI_COMM_WORLD);
    // Rank 0 takes the link down; the others give it a second to do so before they create.
    if (rank == 0) {
      RunFaultCommand();
    } else {
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    const auto start = Clock::now();
    auto comm = kcoll::Communicator::Create(MPI_COMM_WORLD);
    std::printf("network_fault_job: rank %d on %s: Create returned after %.3f s: %s\n", rank, Host().c_str(),
                Since(start), comm.ok() ? "OK" : comm.status().ToString().c_str());
    std::fflush(stdout);
    code = comm.ok() ? 0 : 1;
  } else if (mode == "during" && argc > 3) {
    auto comm = kcoll::Communicator::Create(MPI_COMM_WORLD);
    if (!comm.ok()) {
      std::fprintf(stderr, "network_fault_job: %s\n", comm.status().ToString().c_str());
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      code = During(**comm, std::strtoull(argv[2], nullptr, 10), std::atof(argv[3]));
      if (argc > 4 && std::string(argv[4]) == "exit") std::_Exit(code);
    }
  } else {
    std::fprintf(stderr, "usage: network_fault_job during BYTES DELAY_S | create\n");
  }
  // Once the fault is over, every rank gets here.
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::printf("network_fault_job: done\n");
  std::fflush(stdout);
  Kokkos::finalize();
  MPI_Finalize();
  return code;
}
