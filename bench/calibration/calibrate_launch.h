// How //bench:calibrate gets its ranks: started plainly (bazel run), it re-executes itself under the mpirun kcoll
// was built against with --ranks ranks, bound as the benchmarks bind theirs (bench/options/launcher.h: --bind-to core,
// round-robin with overload-allowed when there are more ranks than cores; --bind-to none inside a test), mpirun
// allowed to run as root; started by mpirun, it is already one of the ranks.
#ifndef KCOLL_BENCH_CALIBRATION_CALIBRATE_LAUNCH_H_
#define KCOLL_BENCH_CALIBRATION_CALIBRATE_LAUNCH_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "bench/options/mpi_launcher.h"

namespace kcoll {
namespace bench {

// `path` made absolute: relative paths are taken from `build_working_directory` when it is not empty (bazel run
// sets $BUILD_WORKING_DIRECTORY to where the user ran bazel, while the program runs in its runfiles), else from
// `cwd`.
std::string ResolveOutputPath(const std::string& path, const std::string& build_working_directory,
                              const std::string& cwd);

// OK when a file can be created at `path` (absolute): its directory exists and is writable. Checked before
// measuring, so a typo does not cost a whole calibration. InvalidArgument naming the path otherwise.
absl::Status CheckWritable(const std::string& path);

struct LaunchCommand {
  std::vector<std::string> argv;                                 // mpirun, its options, the program and its args
  std::vector<std::pair<std::string, std::string>> default_env;  // set unless the user set them
  std::vector<std::pair<std::string, std::string>> force_env;    // set unconditionally
};

// The mpirun line for `ranks` ranks of `program` with `args` on a machine with `cores` cores. Ranks are bound to
// cores (round-robin when ranks > cores) unless `test_tmpdir` is set; oversubscribed runs (ranks > cores) make idle
// ranks yield their core. `test_tmpdir` (bazel test's $TEST_TMPDIR, may be empty) keeps
// the job's session files and shared-memory segments apart from concurrent jobs. In `launcher`'s syntax.
LaunchCommand MakeLaunchCommand(const std::string& mpirun, const std::string& program, int ranks,
                                const std::vector<std::string>& args, int cores, const std::string& test_tmpdir,
                                MpiLauncher launcher = BuiltMpiLauncher());

// Sets the environment and replaces this process with the command. Returns only on failure, with a message.
std::string ExecLaunchCommand(const LaunchCommand& command);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_CALIBRATION_CALIBRATE_LAUNCH_H_
