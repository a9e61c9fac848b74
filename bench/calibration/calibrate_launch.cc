#include "bench/calibration/calibrate_launch.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kcoll {
namespace bench {

std::string ResolveOutputPath(const std::string& path, const std::string& build_working_directory,
                              const std::string& cwd) {
  if (!path.empty() && path[0] == '/') return path;
  const std::string& base = build_working_directory.empty() ? cwd : build_working_directory;
  if (base.empty()) return path;
  return base.back() == '/' ? base + path : absl::StrCat(base, "/", path);
}

absl::Status CheckWritable(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("--out: profile path '", path, "' cannot be written: directory '",
                                                   dir, "': ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

LaunchCommand MakeLaunchCommand(const std::string& mpirun, const std::string& program, int ranks,
                                const std::vector<std::string>& args, int cores, const std::string& test_tmpdir,
                                MpiLauncher launcher) {
  LaunchCommand command;
  // As the benchmarks launch (bench/options/launcher.h): ranks bound to cores, round-robin when there are more ranks
  // than cores; inside a test, where other jobs share the cores, nothing is bound.
  const RankBinding binding = !test_tmpdir.empty() ? RankBinding::kNone
                              : ranks > cores      ? RankBinding::kCoreRoundRobin
                                                   : RankBinding::kCore;
  command.argv = {mpirun};
  for (std::string& arg : LauncherArguments(launcher, ranks, binding)) command.argv.push_back(std::move(arg));
  command.argv.push_back(program);
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  command.default_env = {
      {"OMPI_ALLOW_RUN_AS_ROOT", "1"},
      {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"},
      {"OMP_NUM_THREADS", "1"},  // Serial kernels: no OpenMP threads beside the ranks
      {"OMP_PROC_BIND", "false"},
      {"PMIX_MCA_gds", "hash"},  // no shared-memory data store to collide with concurrent jobs
  };
  if (ranks > cores) command.default_env.emplace_back("OMPI_MCA_mpi_yield_when_idle", "1");
  if (!test_tmpdir.empty()) {
    command.force_env.emplace_back("TMPDIR", test_tmpdir);
    command.force_env.emplace_back("OMPI_MCA_btl_vader_backing_directory", test_tmpdir);
  }
  return command;
}

std::string ExecLaunchCommand(const LaunchCommand& command) {
  for (const auto& [name, value] : command.default_env) setenv(name.c_str(), value.c_str(), /*overwrite=*/0);
  for (const auto& [name, value] : command.force_env) setenv(name.c_str(), value.c_str(), /*overwrite=*/1);
  std::vector<char*> argv;
  for (const std::string& arg : command.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  return absl::StrCat("cannot run ", command.argv[0], ": ", std::strerror(errno));
}

}  // namespace bench
}  // namespace kcoll
