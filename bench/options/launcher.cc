#include "bench/options/launcher.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/env.h"
#include "kcoll_mpi_paths.h"

namespace kcoll {
namespace bench {
namespace {

constexpr char kLaunchedVar[] = "KCOLL_BENCH_LAUNCHED";

// What every plan tells the ranks it starts: that the benchmark started them, whether its own output is a terminal,
// and the plan's description for the header.
void TellRanks(LaunchPlan& plan) {
  plan.force.emplace_back(kLaunchedVar, "1");
  plan.force.emplace_back("KCOLL_BENCH_STDOUT_IS_TTY", isatty(STDOUT_FILENO) ? "1" : "0");
  plan.force.emplace_back("KCOLL_BENCH_LAUNCH", plan.description);
}

}  // namespace

int RankFromEnvironment() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    int rank = 0;
    if (const char* v = GetEnv(name); v != nullptr && absl::SimpleAtoi(v, &rank)) return rank;
  }
  return 0;
}

bool LaunchedByBenchmark() { return GetEnv(kLaunchedVar) != nullptr; }

std::string MpirunPath() {
  if (const char* v = GetEnv("KCOLL_MPIRUN")) return v;
  return KCOLL_MPIRUN;
}

std::string SelfExecutable() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  return n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string();
}

std::string ClusterScriptPath() {
  if (const char* v = GetEnv("KCOLL_CLUSTER_SH")) return v;
  std::vector<std::string> candidates;
  if (const char* dir = GetEnv("RUNFILES_DIR")) candidates.push_back(absl::StrCat(dir, "/kcoll/tools/cluster.sh"));
  const std::string self = SelfExecutable();
  if (!self.empty()) candidates.push_back(self + ".runfiles/kcoll/tools/cluster.sh");
  for (const std::string& path : candidates) {
    if (access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

LaunchPlan PlanHostsLaunch(const BenchOptions& options, const std::string& cluster_sh, const std::string& program,
                           const std::vector<std::string>& args) {
  const int per_host = options.ranks / std::max(1, options.hosts);
  // Up (saying why not, where it cannot be), run, and down whatever happened.
  static constexpr char kScript[] = R"sh(c="$1"; h="$2"; r="$3"; shift 3
up="$("$c" up "$h" "$r" 2>&1)"; echo "$up" >&2
case "$up" in *skipped:*) echo "--hosts: cannot make hosts on this machine: ${up##*skipped: }" >&2; exit 2 ;; esac
case "$up" in *"] up:"*) ;; *) exit 1 ;; esac
trap '"$c" down > /dev/null 2>&1' EXIT
"$c" run "$@")sh";
  LaunchPlan plan;
  plan.argv = {
      "/bin/bash", "-c", kScript, "kcoll-hosts", cluster_sh, std::to_string(options.hosts), std::to_string(per_host),
      program};
  plan.argv.insert(plan.argv.end(), args.begin(), args.end());
  plan.env.emplace_back("KCOLL_CLUSTER", absl::StrCat("kb", getpid() % 100000));
  plan.env.emplace_back("OMP_NUM_THREADS", "1");
  plan.env.emplace_back("OMP_PROC_BIND", "false");
  plan.description = absl::StrCat("tools/cluster.sh: ", options.hosts, " hosts x ", per_host,
                                  " ranks (network namespaces on this machine; shared memory within a host, Open MPI "
                                  "over TCP between hosts)");
  TellRanks(plan);
  return plan;
}

int LaunchSelf(const BenchOptions& options, const std::vector<std::string>& args, int cores, const std::string& program,
               const std::vector<std::pair<std::string, std::string>>& force) {
  const std::string self = SelfExecutable();
  if (self.empty()) {
    std::fprintf(stderr, "%s: cannot find my own executable to start the ranks\n", program.c_str());
    return 2;
  }
  LaunchPlan plan;
  if (options.hosts > 0) {
    const std::string cluster_sh = ClusterScriptPath();
    if (cluster_sh.empty()) {
      std::fprintf(stderr, "%s: --hosts %d: cannot find tools/cluster.sh (set KCOLL_CLUSTER_SH to it)\n",
                   program.c_str(), options.hosts);
      return 2;
    }
    plan = PlanHostsLaunch(options, cluster_sh, self, args);
  } else {
    plan = PlanLaunch(options, MpirunPath(), self, args, cores);
  }
  plan.force.insert(plan.force.end(), force.begin(), force.end());
  return ExecLaunchPlan(plan);
}

LaunchPlan PlanLaunch(const BenchOptions& options, const std::string& mpirun, const std::string& program,
                      const std::vector<std::string>& args, int cores, MpiLauncher launcher) {
  LaunchPlan plan;
  const bool oversubscribed = options.ranks > cores;
  // Serial ranks are bound to cores, round-robin when there are more ranks than cores (rank r on core r mod cores:
  // neighbours in rank order sit on different cores). Left free, oversubscribed ranks land on the cores differently
  // from run to run and a run's times swing by 2-3x; bound, they repeat. OpenMP ranks stay free for their threads.
  const RankBinding binding = options.exec != "serial" ? RankBinding::kNone
                              : oversubscribed         ? RankBinding::kCoreRoundRobin
                                                       : RankBinding::kCore;
  const std::vector<std::string> launcher_args = LauncherArguments(launcher, options.ranks, binding);
  plan.argv = {mpirun};
  plan.argv.insert(plan.argv.end(), launcher_args.begin(), launcher_args.end());
  plan.argv.push_back(program);
  plan.argv.insert(plan.argv.end(), args.begin(), args.end());

  plan.env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT", "1");
  plan.env.emplace_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
  if (options.ranks_per_node > 0) {
    plan.force.emplace_back("KCOLL_RANKS_PER_NODE", std::to_string(options.ranks_per_node));
  }
  int threads = 1;
  if (options.exec != "serial") threads = std::max(1, cores / std::max(1, options.ranks));
  plan.env.emplace_back("OMP_NUM_THREADS", std::to_string(threads));
  plan.env.emplace_back("OMP_PROC_BIND", "false");
  if (oversubscribed) plan.env.emplace_back("OMPI_MCA_mpi_yield_when_idle", "1");

  // Hydra has no yield setting: MPICH's own waits spin, kcoll's yield.
  const char* yielding = launcher == MpiLauncher::kHydra ? ", oversubscribed: kcoll's idle ranks yield, MPICH's spin"
                                                         : ", oversubscribed: idle ranks yield";
  plan.description =
      absl::StrCat(launcher == MpiLauncher::kHydra ? "mpiexec " : "mpirun ", absl::StrJoin(launcher_args, " "), " (",
                   cores, " cores", oversubscribed ? yielding : "", ")");
  TellRanks(plan);
  return plan;
}

int ExecLaunchPlan(const LaunchPlan& plan) {
  for (const auto& [name, value] : plan.env) setenv(name.c_str(), value.c_str(), /*overwrite=*/0);
  for (const auto& [name, value] : plan.force) setenv(name.c_str(), value.c_str(), /*overwrite=*/1);
  std::vector<char*> argv;
  for (const std::string& a : plan.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  execv(argv[0], argv.data());
  std::fprintf(stderr, "error: cannot start %s: %s (set KCOLL_MPIRUN to your mpirun)\n", argv[0], std::strerror(errno));
  return 127;
}

}  // namespace bench
}  // namespace kcoll
