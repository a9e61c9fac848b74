// The machine the models describe: how ranks sit on nodes (Topology) and what moving and reducing bytes costs
// (LinkParams for each class of link, gathered with the local rates into a Profile).
//
// Units are SI throughout: seconds, bytes, bytes per second (1 GB/s = 1e9 B/s).
#ifndef KCOLL_MODELS_MACHINE_H_
#define KCOLL_MODELS_MACHINE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kcoll {
namespace models {

// The alpha-beta cost of one message of m bytes on a link: alpha_s + m * beta_s_per_byte.
struct LinkParams {
  double alpha_s = 0;          // latency: seconds per message
  double beta_s_per_byte = 0;  // inverse bandwidth: seconds per byte (0 means an infinitely fast link)

  // {latency_s, 1 / bytes_per_s}. InvalidArgument unless latency_s >= 0 and bytes_per_s > 0 (both finite).
  static absl::StatusOr<LinkParams> FromBandwidth(double latency_s, double bytes_per_s);

  // 1 / beta_s_per_byte (infinity when beta is 0).
  double BytesPerSecond() const;

  double Seconds(double bytes) const { return alpha_s + bytes * beta_s_per_byte; }
};

// What a machine costs, as measured by the calibration (see calibration.h) or given by hand.
struct Profile {
  LinkParams intra;               // one directed link between two ranks of the same node
  LinkParams inter;               // one NIC: a message between ranks of different nodes
  double gamma_s_per_byte = 0;    // local reduction: seconds per byte reduced by one rank (0: free)
  double memcpy_bytes_per_s = 0;  // local copy bandwidth (0: not measured). Recorded for reference; the costs in
                                  // cost_model.h assume in-place buffers and do not use it.
  std::string description;        // free text: where and when the profile was measured
};

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

// alpha and beta must be finite and >= 0. `name` ("intra", "inter") prefixes the message.
absl::Status ValidateLinkParams(const LinkParams& link, absl::string_view name);

// Both links valid; gamma and memcpy finite and >= 0.
absl::Status ValidateProfile(const Profile& profile);

// "8 nodes x 8 ranks (64 ranks, 1 NIC per node)", with ", 1 intra-node link per rank" when that is set.
std::string TopologyToString(const Topology& topology);

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_MACHINE_H_
