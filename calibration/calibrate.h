// Measuring a Profile (models/machine.h) on the machine the ranks run on, for //bench:calibrate and the benchmarks'
// in-run recalibration. Fitting the measurements and building the profile: calibration/profile.h; the report:
// calibration/report.h.
//
// What is measured, and how:
// - Links: ping-pong between two ranks through kcoll's MPI transport (the path every algorithm's messages take).
//   For each size of a geometric sweep the initiator times `reps` round trips one by one; the one-way time is half
//   the median round trip (--percentile chooses another). One pair at a time: the other ranks wait in a barrier that
//   sleeps between polls, so they do not steal the pair's cores. Pairs are classed as intra-node (same node) and
//   inter-node (different nodes) by the topology; with emulated nodes both classes go through shared memory and differ
//   only by noise. Then every disjoint pair of the class at once runs collective steps of each size
//   (MeasureStep): a two-rank ring AllReduce on a buffer of twice the size, whose two exchanges and reduction are
//   timed apart. That is a collective's round - every rank sends and receives together, what it sends its core has
//   just written, it receives into the buffers a collective receives into, and it reduces into lines its peer has
//   just read - and on shared memory those cache states cost 1.3-3x what a ping-pong or a reduction loop alone
//   measures. The step's exchange is the link's measured curve in the profile and its reduction the gamma curve,
//   both with buffer_per_message = 2 (models/measured_curve.h); the ping-pong gives the link's alpha-beta summary.
//   Across real nodes the inter-node step's pairs share each node's link (2 nodes of P ranks: P messages each way at
//   once), and the model loads a node's link with the sum of its streams: the inter-node curve then places each point
//   at streams_per_node times the message (calibration/profile.h). There the step also runs on the first crossing
//   pair alone, the other ranks polling as a collective's waiting ranks poll: the link's one-stream curve, which
//   prices the rounds that send one stream through each node's link (a ring's, a tree's; models/link_load.h).
// - Local reduction (gamma): kcoll's Serial kernels reduce `bytes` of float32 with sum, out of place
//   (dst = a + b, the ring's out-of-place step). Every rank runs the sweep at the same time, as in a collective
//   where all ranks reduce at once and share the memory bus; per size, the median over ranks of each rank's median.
//   Its fit is the profile's gamma; the curve comes from the collective step, unless no step was measured.
// - Copy: std::memcpy and kcoll's Serial Copy kernel, measured like the reduction.
// - Through shared memory, the transport's slot size and single-copy threshold: the ring's step (MeasureRingStep)
//   through slots of each candidate size and with every message read from the sender's memory
//   (calibration/shm_settings.h; run by CalibrateOnComm, bench/calibration/calibrate_in_run.h, which builds the
//   transports).
// Every series is fitted by FitLink (least squares, t = alpha + beta * bytes), by default (--fit=relative)
// on relative errors: the sweeps
// span seven orders of magnitude of time, and on seconds the largest sizes decide everything (a microsecond latency
// disappears in the noise of a 20 ms transfer). A straight line cannot follow both regimes a CPU shows - buffers
// that stay in the caches, and larger ones bound by memory bandwidth (several times slower) - so the saved fit
// weighs every size alike. That suits choosing algorithms, whose crossovers sit at small and medium sizes, and
// keeps beta and gamma from the same regimes, so their ratio is right; absolute times of large calls come out
// low. The report also gives the fit on seconds, dominated by the large, memory-bound sizes; --fit=seconds saves
// that one instead (absolute times of large calls right, small and medium sizes and alpha poorly described).
// gamma is the reduction's beta (and the reduction series is the profile's gamma curve); the copy bandwidth is
// 1 / the memcpy beta. The report shows the 1-minute load
// average before and after, and warns when other work was running.
#ifndef KCOLL_CALIBRATION_CALIBRATE_H_
#define KCOLL_CALIBRATION_CALIBRATE_H_

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/topology.h"
#include "base/transport_kind.h"
#include "calibration/fit.h"
#include "collectives/kernels/kernels.h"
#include "collectives/transport/transport.h"
#include "models/machine.h"

namespace kcoll {
namespace calibration {

struct CalibrationOptions {
  double min_bytes = 8;                 // ping-pong sweep
  double max_bytes = double{64 << 20};  // ping-pong sweep (and the largest local buffer)
  double step_factor = 4;               // both sweeps
  double min_local_bytes = 4096;        // reduction and copy sweep
  int min_reps = 10;                    // timed repetitions per size, at least
  int max_reps = 10000;                 // and at most
  double seconds_per_size = 0.2;        // timed time per size the repetitions aim at, between the two bounds
  bool all_pairs = false;               // every pair of each class, rather than the lowest-numbered one
  // Which repetition stands for a size: the nearest-rank percentile of the timed repetitions. 50, the median, is
  // the typical call; on a machine shared with other work a low one (10) filters out the repetitions during which
  // a rank was descheduled, and measures what the hardware can do.
  double percentile = 50;
  // The link sweeps (ping-pong and collective step) run this many times, each aiming at seconds_per_size / passes per
  // size, and every size keeps its fastest pass. A machine whose links slow down for seconds at a time (a virtual
  // machine whose host moves its cores apart) then yields the profile of its usual fast state instead of a mixture; the
  // benchmarks' link probe (bench/model/link_probe.h) says which cases ran in another state.
  int passes = 3;
  // The transport measured: unset, the one a communicator on the same ranks would run on (KCOLL_TRANSPORT, else
  // auto: shared memory within a node, MPI between nodes, for host kernels).
  std::optional<TransportKind> transport;
};

// InvalidArgument naming the field: sizes finite with 0 < min <= max, step_factor > 1, 1 <= min_reps <= max_reps,
// seconds_per_size finite and >= 0.
absl::Status ValidateCalibrationOptions(const CalibrationOptions& options);

// min, min * factor, ... while <= max, then max itself if the sweep did not end on it. Sizes are whole bytes, each
// at least one more than the last.
std::vector<double> SweepSizes(double min_bytes, double max_bytes, double step_factor);

enum class LinkClass { kIntra, kInter };
const char* LinkClassName(LinkClass link_class);

// Pairs (a < b) of ranks whose link is of `link_class`: every one of them with `all`, else only the first in
// (a, b) order: (0, 1) inside node 0 and (0, first rank of node 1) across nodes. Empty when the class has no pair.
std::vector<std::pair<int, int>> PairsOfClass(const Topology& topology, LinkClass link_class, bool all);

// A series of (bytes, seconds) and its fit.
struct Series {
  std::vector<Sample> samples;
  std::vector<int> reps;  // timed repetitions per sample (the smallest over the ranks or pairs that took part)
  LinkFit fit;            // with CalibrationResult::weighting: the one saved in the profile
  // With the other weighting, for reference only (it may fail where the saved one does not: on seconds, a noisy
  // large size can make the slope negative).
  absl::StatusOr<LinkFit> other_fit = absl::UnknownError("not fitted");
};

// How far the passes of a sweep (CalibrationOptions::passes) disagree: the largest slowest-over-fastest ratio of
// one size, and that size. A machine that changed speed while it was measured shows here.
struct PassSpread {
  double ratio = 1;
  double bytes = 0;  // 0: fewer than two passes
};

// Per size, the fastest of several series of the same sizes, and the reps of that one.
Series FastestOf(const std::vector<Series>& all);

// PassSpread of several series of the same sizes.
PassSpread SpreadOf(const std::vector<Series>& passes);

// Above this spread the report warns that the machine changed speed during the calibration.
inline constexpr double kPassSpreadWarning = 1.5;

struct LinkMeasurement {
  LinkClass link_class = LinkClass::kIntra;
  std::vector<std::pair<int, int>> pairs;           // empty: the class does not occur in this topology
  Series series;                                    // ping-pong, per size: the median over the pairs
  std::vector<std::pair<int, int>> exchange_pairs;  // ExchangePairs
  Series exchange;                                  // MeasureStep's exchange: the link's curve in the profile
  Series step_reduce;                               // MeasureStep's reduction: the profile's gamma curve
  PassSpread step_spread;                           // of the step's exchange over the passes
  // The most exchange pairs with a rank on one node that cross to another node: the streams that the busiest node's
  // link carried each way at once during the step (StreamsPerNode). 1 inside nodes.
  int streams_per_node = 1;
  // Between real nodes where the step ran several streams per node: the same step on the first exchange pair alone,
  // the other ranks polling (IdleRanks::kPoll; one stream through each node's link each way), and its exchange times.
  // Empty otherwise.
  std::vector<std::pair<int, int>> one_stream_pairs;
  Series one_stream;
};

// The shared-memory transport's slot size and single-copy threshold, each way timed on the ring's step per message
// size (calibration/shm_settings.h).
struct ShmSettingsMeasurement {
  std::string skipped;                  // why nothing was measured; empty: measured
  std::vector<size_t> slot_candidates;  // slot sizes tried, increasing
  std::vector<Series> slot_series;      // per candidate: seconds per ring step through the slots, per message size
  size_t default_slot_bytes = 0;        // the transport's own choice for this node's ranks
  size_t slot_bytes = 0;                // the chosen one
  std::string single_copy_skipped;      // why single copy was not measured; empty: measured
  Series single_copy;                   // the same step with every message read from the sender's memory
  Series single_copy_slots;             // and through the chosen slots, in the same passes (what it is compared to)
  int64_t single_copy_threshold = 0;    // smallest size from which single copy wins at every larger size; 0: never
  // The slots' series of the chosen size (empty when nothing was measured).
  const Series& chosen_slots() const;
};

struct CalibrationResult {
  int nranks = 0;
  int nodes = 0;
  int ranks_per_node = 0;  // 0: nodes of different sizes
  bool emulated = false;
  std::string host;
  std::string date;
  int cores = 0;            // hardware threads
  int host_ranks = 0;       // the most ranks running on one host (shared memory), 0: unknown
  double load_before = -1;  // 1-minute load average before and after measuring (-1: unknown)
  double load_after = -1;
  double percentile = 50;                       // CalibrationOptions::percentile
  std::string transport;                        // what the links were measured through: "shm", "shm+mpi", "mpi"
  std::optional<TransportKind> transport_kind;  // the communicator transport that is (unset: not known)
  LinkMeasurement intra, inter;
  Series reduce;                                     // float32 sum, Serial kernels: bytes reduced per rank
  Series copy_kernel;                                // Serial Copy kernel
  Series memcpy_series;                              // std::memcpy
  FitWeighting weighting = FitWeighting::kRelative;  // of the saved fits (FitAll)
  ShmSettingsMeasurement shm;                        // skipped unless the links were measured through shared memory
};

// Ping-pong between `a` and `b` over `sizes` (collective over `control`, which must hold the same ranks as
// `transport`). Rank 0 gets the series (one-way seconds; not yet fitted), the other ranks an empty one.
absl::StatusOr<Series> MeasurePingPong(Transport& transport, MPI_Comm control, int a, int b,
                                       const std::vector<double>& sizes, const CalibrationOptions& options);

// Disjoint pairs (a < b) of ranks whose link is of `link_class`, as many as there are: each rank is paired with the
// lowest-numbered free rank of the class, so (0, 1), (2, 3), ... inside nodes and (0, P), (1, P + 1), ... across.
std::vector<std::pair<int, int>> ExchangePairs(const Topology& topology, LinkClass link_class);

// The most pairs of `pairs` that cross from one node to another and have a rank on the same node: how many streams
// that node's link carries each way when every pair exchanges at once (at least 1). With P ranks per node on 2 nodes,
// ExchangePairs' inter-node pairs give P.
int StreamsPerNode(const Topology& topology, const std::vector<std::pair<int, int>>& pairs);

// The ratio of a collective step's buffer to its message: the profile's step curves carry it (buffer_per_message).
inline constexpr double kStepBufferPerMessage = 2;

struct StepSeries {
  Series exchange;  // one exchange of the step (the mean of its two), per message size
  Series reduce;    // the step's reduction, per bytes reduced (one input)
};

// How the ranks outside a measurement's pairs wait for it: sleeping between polls, leaving the pairs the cores, or
// polling and yielding as a collective's ranks wait for their messages (on a host with fewer cores than ranks they
// then take the share of the cores they take inside a collective; with a core per rank it costs the pairs nothing).
enum class IdleRanks { kSleep, kPoll };

// Every pair of `pairs` runs collective steps on messages of each of `sizes`, all pairs at the same time (collective
// over `control`, which must hold the same ranks as `transport`). A step is a two-rank ring AllReduce of float32 on
// a buffer of 2 * size per rank, run with `kernels`: each rank first rewrites its input (untimed, as the
// benchmarks' --touch_input), then both exchange the halves of the input (each receives the half it owns into
// scratch), reduce their own half into the result, and exchange the result halves. Per size, the median over the
// ranks of each rank's percentile exchange (the mean of the step's two) and reduction; rank 0 gets the series (not
// fitted), the other ranks empty ones. The ranks in no pair wait as `idle_ranks` says.
absl::StatusOr<StepSeries> MeasureStep(Transport& transport, Kernels& kernels, MPI_Comm control,
                                       const std::vector<std::pair<int, int>>& pairs, const std::vector<double>& sizes,
                                       const CalibrationOptions& options, IdleRanks idle_ranks = IdleRanks::kSleep);

// Every pair of `pairs` runs ring steps on messages of each of `sizes`, all pairs at once (collective over `control`,
// which must hold the same ranks as `transport`): each rank rewrites its input (untimed), receives the peer's half
// reduced into its own (RecvReduce where the transport fuses it, else into scratch and reduced after) while sending
// its other half, then sends its reduced half and receives the peer's. Per size, the median over the ranks of each
// rank's percentile step time; rank 0 gets the series (not fitted), the other ranks an empty one.
absl::StatusOr<Series> MeasureRingStep(Transport& transport, Kernels& kernels, MPI_Comm control,
                                       const std::vector<std::pair<int, int>>& pairs, const std::vector<double>& sizes,
                                       const CalibrationOptions& options);

enum class LocalOperation { kReduce, kCopyKernel, kMemcpy };

// The local operation over `sizes` on every rank at once (collective over `control`); rank 0 gets the series (not
// yet fitted), the other ranks an empty one.
absl::StatusOr<Series> MeasureLocal(Kernels& kernels, MPI_Comm control, LocalOperation operation,
                                    const std::vector<double>& sizes, const CalibrationOptions& options);

// Everything above for `topology` (collective over `control`); the result is complete on rank 0 only. Needs at least
// two ranks.
absl::StatusOr<CalibrationResult> Calibrate(Transport& transport, Kernels& kernels, MPI_Comm control,
                                            const Topology& topology, const CalibrationOptions& options);

}  // namespace calibration
}  // namespace kcoll

#endif  // KCOLL_CALIBRATION_CALIBRATE_H_
