// The machine the models describe: how ranks sit on nodes (Topology) and what moving and reducing bytes costs
// (LinkParams for each class of link, gathered with the local rates into a Profile).
//
// Units are SI throughout: seconds, bytes, bytes per second (1 GB/s = 1e9 B/s).
#ifndef KCOLL_MODELS_MACHINE_H_
#define KCOLL_MODELS_MACHINE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "models/measured_curve.h"

namespace kcoll {
namespace models {

// The cost of one message of m bytes on a link: alpha_s + m * beta_s_per_byte, or, when the link has a measured
// curve (a calibration's exchange sweep), the curve's time for m (measured_curve.h). alpha and beta stay the link's
// summary (the ideal bandwidth uses 1 / beta) either way.
struct LinkParams {
  double alpha_s = 0;          // latency: seconds per message
  double beta_s_per_byte = 0;  // inverse bandwidth: seconds per byte (0 means an infinitely fast link)
  MeasuredCurve curve;         // one-way seconds of a message per size, measured; empty: the alpha-beta line
  // Where `curve` was measured with several streams through the link at once (a node's link carrying all its ranks'
  // messages), the same step with one stream: a round that sends one stream through the link pays this one's
  // latency, not that of several messages competing. Empty: `curve` prices every load.
  MeasuredCurve one_stream_curve;

  // {latency_s, 1 / bytes_per_s}. InvalidArgument unless latency_s >= 0 and bytes_per_s > 0 (both finite).
  static absl::StatusOr<LinkParams> FromBandwidth(double latency_s, double bytes_per_s);

  // 1 / beta_s_per_byte (infinity when beta is 0).
  double BytesPerSecond() const;

  // The link's best sustained rate, for the ideal bandwidth: the fastest size of the measured curves (bytes /
  // seconds), or 1 / beta when that is higher or there is no curve. A line fitted over every size runs below the
  // sizes the link does best, and an ideal below what algorithms reach would give efficiencies above 100%.
  double PeakBytesPerSecond() const;

  // One message of `bytes` inside an operation whose buffer is `working_set_bytes` per rank (0: just the message).
  double Seconds(double bytes, double working_set_bytes = 0) const {
    return curve.empty() ? alpha_s + bytes * beta_s_per_byte : curve.SecondsIn(bytes, working_set_bytes);
  }

  // `bytes` through the link as `streams` concurrent streams (0: not counted): the one-stream curve for one stream
  // when it was measured, else Seconds.
  double SecondsOfStreams(double bytes, int64_t streams, double working_set_bytes = 0) const {
    return streams == 1 && !one_stream_curve.empty() ? one_stream_curve.SecondsIn(bytes, working_set_bytes)
                                                     : Seconds(bytes, working_set_bytes);
  }
};

// What a machine costs, as measured by the calibration (see calibration.h) or given by hand.
struct Profile {
  LinkParams intra;               // one directed link between two ranks of the same node
  LinkParams inter;               // one NIC: a message between ranks of different nodes
  double gamma_s_per_byte = 0;    // local reduction: seconds per byte reduced by one rank (0: free)
  MeasuredCurve gamma_curve;      // seconds to reduce a size, measured on every rank at once (proportional);
                                  // when present it replaces gamma_s_per_byte in the costs
  double memcpy_bytes_per_s = 0;  // local copy bandwidth (0: not measured). Recorded for reference; the costs in
                                  // cost_model.h assume in-place buffers and do not use it.
  // Whether the ranks' own cores move the data (CPU ranks on shared memory: the receiving core copies each message
  // itself) rather than a NIC or a copy engine. Then a rank cannot reduce one pipeline chunk while the next one moves
  // (a pipelined stage costs the sum of the two, not the larger), and the messages it receives in one round are
  // copied one after the other (each pays its own per-message cost).
  bool transfers_use_cores = false;
  // The share of a core each rank had while the profile was measured: cores / ranks of a host when the ranks
  // outnumbered the cores (the calibration keeps every rank busy at once), else 1. Every rate above was measured at
  // that share. In (0, 1]; 1 when not given. It matters where ranks are unevenly loaded: a rank whose neighbours on its
  // core have little to do gets up to 1 / share times the rate (cost_model.h, the pipelined trees).
  double rank_core_share = 1;
  // Not a cost: the shared-memory transport's single-copy threshold as measured on the machine (bytes from which a
  // message is read straight from the sender's memory; 0: never, where the slots measured faster at every size).
  // Unset: not measured, the transport's default. A communicator over shm applies it at creation
  // (KCOLL_SHM_SINGLE_COPY wins over it).
  std::optional<int64_t> shm_single_copy_bytes;
  // Not a cost either: the shared-memory transport's slot size as measured (bytes, a multiple of 64); unset: the
  // transport's default. Applied at creation like the threshold (KCOLL_SHM_SLOT_BYTES wins over it).
  std::optional<int64_t> shm_slot_bytes;
  // Not a cost: the AllReduce sizes (bytes per rank, inclusive ranges in increasing order) at which the calibration
  // measured the MPI library's own MPI_Allreduce faster than kcoll's `auto`, in place and out of place. A communicator
  // with this profile hands those sizes to MPI's collective (the vendor algorithm) where a call allows it. Empty: none.
  std::vector<std::pair<int64_t, int64_t>> vendor_all_reduce_bytes;
  std::string description;  // free text: where and when the profile was measured

  // Seconds for one rank to reduce `bytes` inside an operation on `working_set_bytes` per rank.
  double ReduceSeconds(double bytes, double working_set_bytes = 0) const {
    return gamma_curve.empty() ? gamma_s_per_byte * bytes : gamma_curve.SecondsIn(bytes, working_set_bytes);
  }
};

// The largest single-copy threshold a profile may carry (1 TiB).
inline constexpr int64_t kMaxSingleCopyBytes = int64_t{1} << 40;
// The largest slot size a profile may carry (1 GiB).
inline constexpr int64_t kMaxSlotBytes = int64_t{1} << 30;

// Largest number of ranks the models accept (their set-up work is O(n log n) in the number of ranks).
inline constexpr int64_t kMaxRanks = int64_t{1} << 20;

// Ranks are placed node-major ("block" placement): rank r lives on node r / ranks_per_node. Every node has the same
// number of ranks.
struct Topology {
  int nodes = 1;
  int ranks_per_node = 1;
  // NICs a node can drive at once. A single inter-node stream uses one NIC; k streams leaving (or entering) a node
  // at once share its nics_per_node NICs. Rail-optimised GPU nodes have one NIC per GPU.
  int nics_per_node = 1;
  // Intra-node links of one rank. 0: every ordered pair of ranks of a node has its own link, so a rank sending to
  // two peers at once (bidirectional ring, double binary tree) gets the full bandwidth on each - a ring or mesh of
  // point-to-point links. k >= 1: everything a rank sends (and, separately, receives) inside its node at once shares
  // k links' bandwidth - a switch port (NVSwitch) or a memory bus (shared memory) of k times the link bandwidth.
  int intra_links_per_rank = 0;

  int64_t ranks() const { return static_cast<int64_t>(nodes) * ranks_per_node; }
  int64_t NodeOf(int64_t rank) const { return rank / ranks_per_node; }
};

// InvalidArgument naming the field and its value: nodes, ranks_per_node and nics_per_node must be >= 1,
// intra_links_per_rank >= 0 and nodes * ranks_per_node <= kMaxRanks.
absl::Status ValidateTopology(const Topology& topology);

// alpha and beta must be finite and >= 0, both curves valid (ValidateCurve). `name` ("intra", "inter") prefixes the
// message.
absl::Status ValidateLinkParams(const LinkParams& link, absl::string_view name);

// Both links valid; gamma and memcpy finite and >= 0; gamma_curve valid and proportional; rank_core_share in (0, 1];
// shm_single_copy_bytes, when set, in [0, kMaxSingleCopyBytes]; shm_slot_bytes, when set, a multiple of 64 in
// [64, kMaxSlotBytes]; vendor_all_reduce_bytes ranges with 1 <= first <= last, each above the one before.
absl::Status ValidateProfile(const Profile& profile);

// A profile's vendor_all_reduce_bytes as "2K-8K, 64M" (sizes as base/byte_size.h formats them), or "none".
std::string FormatVendorSizes(const std::vector<std::pair<int64_t, int64_t>>& ranges);

// "8 nodes x 8 ranks (64 ranks, 1 NIC per node)", with ", 1 intra-node link per rank" when that is set.
std::string TopologyToString(const Topology& topology);

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_MACHINE_H_
