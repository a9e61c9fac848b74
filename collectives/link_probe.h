// The link between nodes, measured when a communicator is created on several hosts and `auto` has no profile of them.
//
// The built-in profiles (choice/auto_choice.h) were measured on one machine: their link between nodes is MPI over
// shared memory (half a microsecond a message). Between real hosts a message over the network costs tens of
// microseconds, so priced with the built-in curve `auto` takes the schedules with the most steps (halving-doubling)
// where the fewest (recursive doubling, trees) win. So a communicator on several real nodes with no profile named or
// saved ping-pongs between the lowest ranks of nodes 0 and 1 (8 bytes to 256 KiB: milliseconds, tens of them on a
// 1 Gbit/s link) and prices its inter-node link with the medians; every rank takes rank 0's times, so all choose
// alike. A process measures a pair of hosts once: later communicators whose rank 0 already measured the link between
// the same two hosts take those times (rank 0 decides, so every rank agrees), unless asked to measure again
// (SetProfile).
//
// KCOLL_LINK_PROBE: "auto" (the default: real nodes only), "on" (also emulated nodes, which share one machine), "off".
#ifndef KCOLL_COLLECTIVES_LINK_PROBE_H_
#define KCOLL_COLLECTIVES_LINK_PROBE_H_

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/topology.h"
#include "models/machine.h"
#include "models/measured_curve.h"

namespace kcoll {

enum class LinkProbeMode { kRealNodes, kAlways, kOff };

// $KCOLL_LINK_PROBE; InvalidArgument naming the variable and its value when it is not auto, on or off.
absl::StatusOr<LinkProbeMode> LinkProbeModeFromEnv();

// Whether a communicator of `topology` probes its link between nodes in `mode`: it has several nodes, and they are
// real ones unless the mode is kAlways.
bool ShouldProbeLink(LinkProbeMode mode, const Topology& topology);

// The sizes of the probe's messages (each side of a transport's eager limit, 64 KiB on Open MPI's TCP, so the curve
// has its step) and how many round trips of each it times, after one untimed.
inline constexpr int64_t kLinkProbeSizes[] = {8, 1 << 10, 8 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10};
inline constexpr int kLinkProbeSizeCount = sizeof(kLinkProbeSizes) / sizeof(kLinkProbeSizes[0]);
inline constexpr int kLinkProbeTrips = 7;

// The link the probe's one-way times describe: its curve those points (read back as measured_curve.h says: flat below
// the smallest size, log-log between, at the largest size's rate beyond), alpha + bytes * beta the line through the
// first and last (beta at least 1% of the last time per byte, so equal times still give a finite bandwidth; alpha at
// least half the first time). InvalidArgument naming the value unless there are two or more points that make a valid
// curve (models::ValidateCurve, as "link probe curve").
absl::StatusOr<models::LinkParams> LinkFromProbe(const std::vector<models::CurvePoint>& points);

// Collective over `comm` (every rank of `topology` calls it): the lowest ranks of nodes 0 and 1 ping-pong the probe's
// messages, and every rank returns LinkFromProbe of rank 0's times; with `reuse`, the times rank 0's process already
// has for the same two hosts instead. Each wait is bounded by `timeout` (DeadlineExceeded saying which rank did not
// answer); needs topology.nnodes >= 2 and rank 0 on node 0 (FailedPrecondition otherwise).
absl::StatusOr<models::LinkParams> ProbeInterNodeLink(MPI_Comm comm, const Topology& topology, absl::Duration timeout,
                                                      bool reuse);

// How many probes this process took part in that measured (rather than reused) a link.
int64_t LinkProbesRun();

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_LINK_PROBE_H_
