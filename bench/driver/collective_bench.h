// The main of the collective benchmarks (//bench:all_reduce, ..., //bench:all): parses the options, launches the
// ranks (or joins an mpirun that launched them), registers one Google Benchmark benchmark per (collective,
// implementation, type, op, root, size, out-of-place / in-place), runs them and reports the nccl-tests table, the
// JSON file and progress on stderr. Exit status: 0 when every call succeeded and every checked element was right
// (implementations that cannot run a case are skipped, not failures), 1 otherwise, 2 for bad options.
#ifndef KCOLL_BENCH_DRIVER_COLLECTIVE_BENCH_H_
#define KCOLL_BENCH_DRIVER_COLLECTIVE_BENCH_H_

#include <string>
#include <vector>

#include "base/names.h"

namespace kcoll {
namespace bench {

int CollectiveBenchMain(int argc, char** argv, const std::string& program, const std::vector<Collective>& collectives);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DRIVER_COLLECTIVE_BENCH_H_
