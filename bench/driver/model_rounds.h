// --model and --recalibrate around the rounds of a case: the link probe that says which state of the machine a round
// ran in, the recalibration when the probe finds a state no profile describes, auto following the state, and the
// model's price of each row. bench_case.cc calls these around nccl-tests' loop; without --model they do nothing.
#ifndef KCOLL_BENCH_DRIVER_MODEL_ROUNDS_H_
#define KCOLL_BENCH_DRIVER_MODEL_ROUNDS_H_

#include <optional>

#include "base/names.h"
#include "bench/driver/bench_context.h"
#include "bench/reports/results.h"
#include "calibration/calibrate.h"

namespace kcoll {
namespace bench {

// The sweep --calibrate runs: //bench:calibrate's, with --calibrate_ms per size and sizes up to --calibrate_max.
calibration::CalibrationOptions CalibrationSweep(const BenchOptions& options);

// Before a round of case `index` (collective): with --recalibrate, probes the links, measures another profile when
// the machine is in a state none describes, and switches auto to the profile of the state it is in.
void BeforeRound(BenchContext& ctx, int index, int round);

// The link probe's time on rank 0 (link_probe.h); 0 without --model, on the other ranks, or when the probe failed.
double ProbeLinks(BenchContext& ctx);

// After the round's timed iterations: probes again and records the round's state, its link ratio (before and
// after, against that state) and, for auto, the algorithm it ran. `link_before` is ProbeLinks' before the iterations.
void AfterRound(BenchContext& ctx, int index, double link_before);

// The last round: the row's per-round data (--rounds) and, with --model, the model's time and error and the
// algorithm it priced.
void AddRoundsAndModel(const BenchContext& ctx, int index, Measurement* m, std::optional<Algorithm>* priced);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DRIVER_MODEL_ROUNDS_H_
