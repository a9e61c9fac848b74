// GoogleTest main for tests that run as several MPI ranks (launched by tests/mpi_launch.sh).
//
// Every rank runs every test. Rank 0 prints GoogleTest's usual output; the other ranks print only their failures,
// prefixed with their rank. At the end the ranks agree on the result (a failure anywhere fails every rank), and
// rank 0 prints which ranks failed which tests, so a one-rank failure is visible in the log of the whole job.
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/mpi_test_env.h"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace {

// Prints failed assertions of a non-zero rank, prefixed with the rank.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_, result.file_name() ? result.file_name() : "?",
                 result.line_number(), result.message());
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result()->Failed()) {
      failed_.push_back(std::string(info.test_suite_name()) + "." + info.name());
    }
  }
  const std::vector<std::string>& failed() const { return failed_; }

 private:
  int rank_;
  std::vector<std::string> failed_;
};

#if defined(KOKKOS_ENABLE_CUDA)
// Kokkos' device for this rank: one GPU per rank of a node, as kcoll places its transfers (gpu_placement.h).
std::string KokkosDeviceArg() {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local_rank = 0;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return "";
  return "--kokkos-device-id=" + std::to_string(local_rank % devices);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  // KCOLL_TEST_MPI_THREADS=multiple: MPI_THREAD_MULTIPLE, for the tests of a progress thread beside the application's.
  const char* threads = std::getenv("KCOLL_TEST_MPI_THREADS");
  if (threads != nullptr && std::string(threads) == "multiple") {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE)
      std::fprintf(stderr, "[kcoll] MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  kcoll::testing::AllRanksOnOneMachine();  // collective the first time: every rank, here
  if (world_rank != 0) {
    // Files the test runner shares between ranks belong to rank 0: the premature-exit marker (read when the tests
    // start) and the XML report (see below).
    unsetenv("XML_OUTPUT_FILE");
    unsetenv("TEST_PREMATURE_EXIT_FILE");
  }
  ::testing::InitGoogleTest(&argc, argv);
  // Tests oversubscribe the cores on purpose (8 ranks on 2 cores): silence Kokkos' warning about it.
  std::vector<char*> kokkos_args(argv, argv + argc);
  char disable_warnings[] = "--kokkos-disable-warnings";
  kokkos_args.push_back(disable_warnings);
#if defined(KOKKOS_ENABLE_CUDA)
  std::string device_arg = KokkosDeviceArg();
  if (!device_arg.empty()) kokkos_args.push_back(&device_arg[0]);
#endif
  int kokkos_argc = static_cast<int>(kokkos_args.size());
  Kokkos::initialize(kokkos_argc, kokkos_args.data());
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
  auto* printer = new RankFailurePrinter(rank);
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    // GoogleTest read the report's path from the environment before main ran: only rank 0 may write it (several
    // writers of one file left reports with trailing bytes that no longer parsed).
    delete listeners.Release(listeners.default_xml_generator());
  }
  listeners.Append(printer);  // owned by GoogleTest
  if (rank == 0) std::printf("[kcoll] running on %d MPI ranks\n", nranks);

  int result = RUN_ALL_TESTS();

  // Agree on the outcome, and tell rank 0's log which ranks failed.
  int any_failed = result != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const int my_failures = static_cast<int>(printer->failed().size());
  std::vector<int> failures(nranks);
  MPI_Gather(&my_failures, 1, MPI_INT, failures.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < nranks; ++r) {
      if (failures[r] > 0) std::printf("[kcoll] rank %d failed %d test(s)\n", r, failures[r]);
    }
    std::printf("[kcoll] %s on %d ranks\n", any_failed ? "FAILED" : "PASSED", nranks);
  }
  Kokkos::finalize();
  MPI_Finalize();
  return any_failed;
}
