// cg: the distributed conjugate-gradient solver of examples/cg_solver.h, reducing its dot products with kcoll or
// with MPI_Allreduce. The example to copy when adopting kcoll.
//
//   bazel run -c opt //examples:cg -- --ranks 2                      # starts 2 ranks under mpirun itself
//   mpirun -np 4 cg --n 32 --collectives mpi                         # or under your own launcher
//
// Flags: --collectives kcoll|mpi (default kcoll), --algo NAME (a kcoll AllReduce algorithm; default auto),
// --variant classic|pipelined (default classic: two blocking sums per iteration; pipelined: one nonblocking sum of
// two dot products that runs while the stencil computes, kcoll's IAllReduce or MPI_Iallreduce), --n N (grid points
// per dimension, default 64), --max_iterations N (1000), --tolerance T (1e-8), --ranks N.
// It prints the iterations, the final relative residual, the time per iteration and the share of it spent summing
// dot products across ranks (for pipelined: issuing and waiting), then the solution's norm per slab of the rank grid,
// summed with kcoll on sub-communicators from Communicator::Split.
#include <mpi.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "collectives/communicator.h"
#include "examples/cg_solver.h"

namespace {

struct Flags {
  std::string collectives = "kcoll";
  kcoll::Algorithm algorithm = kcoll::Algorithm::kAuto;
  kcoll::examples::CgOptions cg;
  int ranks = 0;  // > 0: start this many ranks under mpirun
};

absl::Status Bad(const std::string& flag, const std::string& value, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(flag, " '", value, "': ", why));
}

absl::StatusOr<Flags> ParseFlags(int argc, char** argv, std::vector<std::string>* passed_on) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (arg.rfind("--", 0) == 0 && i + 1 < argc) {
      value = argv[++i];
    }
    if (arg.rfind("--kokkos", 0) == 0) {  // Kokkos' own flags go to Kokkos
      passed_on->push_back(eq == std::string::npos ? arg : absl::StrCat(arg, "=", value));
      continue;
    }
    int number = 0;
    if (arg == "--collectives") {
      if (value != "kcoll" && value != "mpi") return Bad(arg, value, "not kcoll or mpi");
      f.collectives = value;
    } else if (arg == "--algo") {
      absl::StatusOr<kcoll::Algorithm> a = kcoll::ParseAlgorithm(value);
      if (!a.ok()) return Bad(arg, value, std::string(a.status().message()));
      f.algorithm = *a;
    } else if (arg == "--variant") {
      if (value != "classic" && value != "pipelined") return Bad(arg, value, "not classic or pipelined");
      f.cg.pipelined = value == "pipelined";
    } else if (arg == "--n") {
      if (!absl::SimpleAtoi(value, &number) || number < 1) return Bad(arg, value, "not a grid size >= 1");
      f.cg.n = number;
    } else if (arg == "--max_iterations") {
      if (!absl::SimpleAtoi(value, &number) || number < 1) return Bad(arg, value, "not a count >= 1");
      f.cg.max_iterations = number;
    } else if (arg == "--tolerance") {
      if (!absl::SimpleAtod(value, &f.cg.tolerance) || !(f.cg.tolerance > 0)) return Bad(arg, value, "not > 0");
    } else if (arg == "--ranks") {
      if (!absl::SimpleAtoi(value, &number) || number < 1) return Bad(arg, value, "not a rank count >= 1");
      f.ranks = number;
      continue;  // not passed on to the ranks
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", argv[i], "' (see the top of cg_main.cc)"));
    }
    passed_on->push_back(absl::StrCat(arg, "=", value));
  }
  return f;
}

bool UnderMpiLauncher() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_RANK") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

// --ranks N outside a launcher: run again as N ranks under mpirun, one thread per rank (the ranks fill the cores).
int Relaunch(int ranks, const std::vector<std::string>& args) {
  if (geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  setenv("OMP_NUM_THREADS", "1", 0);
  setenv("OMP_PROC_BIND", "false", 0);
  // The launcher of the MPI this program was built against: $KCOLL_MPIRUN, else mpirun (Open MPI, told to run more
  // ranks than cores) or MPICH's Hydra (mpiexec.hydra, which oversubscribes without being told).
  const char* launcher = std::getenv("KCOLL_MPIRUN");
#if defined(MPICH_VERSION)
  if (launcher == nullptr || *launcher == '\0') launcher = "mpiexec.hydra";
  std::vector<std::string> words = {launcher, "-np", std::to_string(ranks), "/proc/self/exe"};
#else
  if (launcher == nullptr || *launcher == '\0') launcher = "mpirun";
  std::vector<std::string> words = {launcher, "--oversubscribe", "-np", std::to_string(ranks), "/proc/self/exe"};
#endif
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length > 0) words.back().assign(self, length);
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  execvp(launcher, argv.data());
  std::fprintf(stderr, "cg: cannot start %s: %s (set KCOLL_MPIRUN to your MPI's launcher)\n", launcher,
               std::strerror(errno));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> passed_on;
  absl::StatusOr<Flags> flags = ParseFlags(argc, argv, &passed_on);
  if (!flags.ok()) {
    std::fprintf(stderr, "cg: %s\n", std::string(flags.status().message()).c_str());
    return 2;
  }
  if (flags->ranks > 0 && !UnderMpiLauncher()) return Relaunch(flags->ranks, passed_on);

  MPI_Init(&argc, &argv);
  Kokkos::initialize(argc, argv);
  int code = 0;
  {
    int rank = 0, nranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    absl::StatusOr<std::unique_ptr<kcoll::Communicator>> comm = kcoll::Communicator::Create(MPI_COMM_WORLD);
    if (!comm.ok()) {
      if (rank == 0) std::fprintf(stderr, "cg: %s\n", comm.status().ToString().c_str());
      code = 1;
    } else {
      std::unique_ptr<kcoll::examples::DotSum> dot_sum =
          flags->collectives == "mpi" ? kcoll::examples::MakeMpiDotSum(MPI_COMM_WORLD)
                                      : kcoll::examples::MakeKcollDotSum(**comm, flags->algorithm);
      absl::StatusOr<kcoll::examples::CgResult> result =
          kcoll::examples::SolvePoisson(MPI_COMM_WORLD, flags->cg, *dot_sum);
      if (!result.ok()) {
        if (rank == 0) std::fprintf(stderr, "cg: %s\n", result.status().ToString().c_str());
        code = 1;
      } else {
        // The slowest rank's times: the solver runs at its pace.
        double times[2] = {result->seconds, result->reduction_seconds};
        MPI_Allreduce(MPI_IN_PLACE, times, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        const int it = result->iterations;
        // A second reduction pattern: the solution's norm per slab of ranks, on sub-communicators from Split.
        absl::StatusOr<double> slab = kcoll::examples::SlabNorm2(**comm, *result);
        std::vector<double> slabs(nranks, 0.0);
        const double mine = slab.ok() ? *slab : -1.0;
        MPI_Gather(&mine, 1, MPI_DOUBLE, slabs.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (!slab.ok()) {
          if (rank == 0) std::fprintf(stderr, "cg: %s\n", slab.status().ToString().c_str());
          code = 1;
        }
        if (rank == 0) {
          std::printf(
              "cg: %d^3 grid on %d rank(s) (%dx%dx%d blocks), %s CG, dot products summed with %s\n"
              "cg: %d iterations, relative residual %.3e, %.3f ms per iteration, reductions %.1f%% of the time "
              "(%.2f us per iteration)\n",
              flags->cg.n, nranks, result->dims[0], result->dims[1], result->dims[2],
              flags->cg.pipelined ? "pipelined" : "classic", dot_sum->name().c_str(), it, result->relative_residual,
              it > 0 ? 1e3 * times[0] / it : 0.0, times[0] > 0 ? 100.0 * times[1] / times[0] : 0.0,
              it > 0 ? 1e6 * times[1] / it : 0.0);
          // Ranks are numbered row-major over the rank grid: slab i holds ranks i * (dims[1] * dims[2]) onwards.
          const int per_slab = result->dims[1] * result->dims[2];
          std::string norms;
          for (int i = 0; i < result->dims[0]; ++i) absl::StrAppend(&norms, i > 0 ? ", " : "", slabs[i * per_slab]);
          std::printf("cg: |x|^2 per slab of ranks along x (Split): %s\n", norms.c_str());
        }
        if (result->relative_residual >= flags->cg.tolerance) code = 3;  // did not converge
      }
    }
  }
  Kokkos::finalize();
  MPI_Finalize();
  return code;
}
