// kcoll's cost-model predictor: what each algorithm of a collective should take on a machine, which one the model
// picks, and where the choice changes.
//
//   bazel run //models:predict -- --nodes=8 --ranks_per_node=8 --intra_bw=600e9 --inter_bw=100e9
//       --intra_lat=1e-6 --inter_lat=5e-6 --bytes=1e9 [--collective=all_reduce] [--json]
//   bazel run //models:predict -- ... --min_bytes=1024 --max_bytes=1e9 --step_factor=4     (a table over sizes)
//
// The machine comes either from the link flags or from a calibration profile (--profile=FILE, calibration.h).
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/flags_only.h"
#include "models/analysis/predict_report.h"
#include "models/profile_json.h"

ABSL_FLAG(int, nodes, 1, "Number of nodes (Q).");
ABSL_FLAG(int, ranks_per_node, 1, "Ranks on each node (P).");
ABSL_FLAG(int, nics_per_node, 1,
          "NICs each node drives at once; the node's inter-node bandwidth is this times --inter_bw.");
ABSL_FLAG(int, intra_links_per_rank, 0,
          "Intra-node links of a rank, shared by everything it sends at once (1 for a switch port or shared memory); "
          "0: a separate link to every peer.");
ABSL_FLAG(std::optional<double>, intra_bw, std::nullopt, "Intra-node link bandwidth, bytes/s (e.g. 600e9).");
ABSL_FLAG(std::optional<double>, inter_bw, std::nullopt, "Bandwidth of one NIC, bytes/s (e.g. 100e9).");
ABSL_FLAG(std::optional<double>, intra_lat, std::nullopt, "Intra-node message latency, seconds (e.g. 1e-6).");
ABSL_FLAG(std::optional<double>, inter_lat, std::nullopt, "Inter-node message latency, seconds (e.g. 5e-6).");
ABSL_FLAG(std::optional<double>, gamma, std::nullopt,
          "Local reduction cost, seconds per byte (default 0, or the profile's).");
ABSL_FLAG(std::string, profile, "", "Calibration profile (JSON) to take the links from instead of the link flags.");
ABSL_FLAG(std::string, collective, "all_reduce", "Collective to predict.");
ABSL_FLAG(std::optional<double>, bytes, std::nullopt,
          "Size in nccl-tests' convention (see models/bandwidth/bus_bandwidth.h). Without it, a sweep over sizes is "
          "printed.");
ABSL_FLAG(std::optional<double>, min_bytes, std::nullopt, "Smallest size of the sweep and of the crossover search.");
ABSL_FLAG(std::optional<double>, max_bytes, std::nullopt, "Largest size of the sweep and of the crossover search.");
ABSL_FLAG(double, step_factor, 2, "Ratio between consecutive sizes of the sweep.");
ABSL_FLAG(int, channels, 0, "ring_pipelined: rings at once (0: one per NIC).");
ABSL_FLAG(double, chunk_bytes, 512 * 1024, "Pipeline chunk of ring_pipelined, double_binary_tree and chain.");
ABSL_FLAG(bool, json, false, "Print JSON instead of text.");

namespace kcoll {
namespace models {
namespace {

absl::Status CheckPositive(const char* flag, double value) {
  if (!std::isfinite(value) || value <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", value, " must be finite and > 0"));
  }
  return absl::OkStatus();
}

absl::Status CheckNonNegative(const char* flag, double value) {
  if (!std::isfinite(value) || value < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", value, " must be finite and >= 0"));
  }
  return absl::OkStatus();
}

// The link flags' bandwidth and latency as LinkParams; both must be given.
absl::StatusOr<LinkParams> LinkFromFlags(const char* bw_flag, const std::optional<double>& bw, const char* lat_flag,
                                         const std::optional<double>& lat) {
  if (!bw.has_value()) return absl::InvalidArgumentError(absl::StrCat("--", bw_flag, " is required (bytes/s)"));
  if (!lat.has_value()) return absl::InvalidArgumentError(absl::StrCat("--", lat_flag, " is required (seconds)"));
  if (absl::Status s = CheckPositive(bw_flag, *bw); !s.ok()) return s;
  if (absl::Status s = CheckNonNegative(lat_flag, *lat); !s.ok()) return s;
  return LinkParams{*lat, 1.0 / *bw};
}

absl::StatusOr<PredictRequest> RequestFromFlags() {
  PredictRequest request;
  absl::StatusOr<Collective> collective = ParseCollective(absl::GetFlag(FLAGS_collective));
  if (!collective.ok()) return collective.status();
  request.collective = *collective;
  request.topology = {absl::GetFlag(FLAGS_nodes), absl::GetFlag(FLAGS_ranks_per_node),
                      absl::GetFlag(FLAGS_nics_per_node), absl::GetFlag(FLAGS_intra_links_per_rank)};
  if (absl::Status s = ValidateTopology(request.topology); !s.ok()) return s;

  const bool any_link_flag = absl::GetFlag(FLAGS_intra_bw) || absl::GetFlag(FLAGS_inter_bw) ||
                             absl::GetFlag(FLAGS_intra_lat) || absl::GetFlag(FLAGS_inter_lat);
  const std::string profile_path = absl::GetFlag(FLAGS_profile);
  if (!profile_path.empty()) {
    if (any_link_flag) {
      return absl::InvalidArgumentError(
          "--profile and the link flags (--intra_bw, --inter_bw, --intra_lat, --inter_lat) exclude each other");
    }
    absl::StatusOr<Profile> profile = LoadProfile(profile_path);
    if (!profile.ok()) return profile.status();
    request.profile = *profile;
  } else {
    absl::StatusOr<LinkParams> intra =
        LinkFromFlags("intra_bw", absl::GetFlag(FLAGS_intra_bw), "intra_lat", absl::GetFlag(FLAGS_intra_lat));
    if (!intra.ok()) return intra.status();
    request.profile.intra = *intra;
    if (request.topology.nodes > 1 || absl::GetFlag(FLAGS_inter_bw) || absl::GetFlag(FLAGS_inter_lat)) {
      absl::StatusOr<LinkParams> inter =
          LinkFromFlags("inter_bw", absl::GetFlag(FLAGS_inter_bw), "inter_lat", absl::GetFlag(FLAGS_inter_lat));
      if (!inter.ok()) return inter.status();
      request.profile.inter = *inter;
    }
  }
  if (const std::optional<double> gamma = absl::GetFlag(FLAGS_gamma); gamma.has_value()) {
    if (absl::Status s = CheckNonNegative("gamma", *gamma); !s.ok()) return s;
    request.profile.gamma_s_per_byte = *gamma;
  }
  request.options.channels = absl::GetFlag(FLAGS_channels);
  request.options.chunk_bytes = absl::GetFlag(FLAGS_chunk_bytes);
  if (absl::Status s = ValidateCostOptions(request.options); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--channels / --chunk_bytes: ", s.message()));
  }
  return request;
}

absl::StatusOr<std::string> Run() {
  absl::StatusOr<PredictRequest> request = RequestFromFlags();
  if (!request.ok()) return request.status();
  const std::optional<double> bytes = absl::GetFlag(FLAGS_bytes);
  const std::optional<double> min_flag = absl::GetFlag(FLAGS_min_bytes);
  const std::optional<double> max_flag = absl::GetFlag(FLAGS_max_bytes);
  if (min_flag) {
    if (absl::Status s = CheckPositive("min_bytes", *min_flag); !s.ok()) return s;
  }
  if (max_flag) {
    if (absl::Status s = CheckPositive("max_bytes", *max_flag); !s.ok()) return s;
  }
  const bool json = absl::GetFlag(FLAGS_json);
  if (bytes.has_value()) {
    if (absl::Status s = CheckNonNegative("bytes", *bytes); !s.ok()) return s;
    if (min_flag) request->search.min_bytes = *min_flag;
    if (max_flag) request->search.max_bytes = *max_flag;
    if (request->search.max_bytes <= request->search.min_bytes) {
      return absl::InvalidArgumentError(absl::StrCat("--max_bytes=", request->search.max_bytes,
                                                     " must be > --min_bytes=", request->search.min_bytes));
    }
    absl::StatusOr<nlohmann::json> report = SizeReport(*request, *bytes);
    if (!report.ok()) return report.status();
    return json ? report->dump(2) + "\n" : FormatSizeReport(*report);
  }
  const double min_bytes = min_flag.value_or(8);
  const double max_bytes = max_flag.value_or(1e9);
  if (max_bytes <= min_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_bytes=", max_bytes, " must be > --min_bytes=", min_bytes, " for a sweep"));
  }
  request->search.min_bytes = min_bytes;
  request->search.max_bytes = max_bytes;
  absl::StatusOr<nlohmann::json> report = SweepReport(*request, min_bytes, max_bytes, absl::GetFlag(FLAGS_step_factor));
  if (!report.ok()) return report.status();
  return json ? report->dump(2) + "\n" : FormatSweepReport(*report);
}

}  // namespace
}  // namespace models
}  // namespace kcoll

int main(int argc, char** argv) {
  if (!kcoll::ParseFlagsOnly(argc, argv, "predict",
                             "Predicts every algorithm's time for a collective on a machine from the alpha-beta cost "
                             "model.\n"
                             "  predict --nodes=8 --ranks_per_node=8 --intra_bw=600e9 --inter_bw=100e9 "
                             "--intra_lat=1e-6 --inter_lat=5e-6 --bytes=1e9 [--collective=all_reduce] [--json]\n"
                             "  predict ... --min_bytes=1024 --max_bytes=1e9 --step_factor=4   (sweep)")) {
    return 2;
  }
  absl::StatusOr<std::string> out = kcoll::models::Run();
  if (!out.ok()) {
    std::fprintf(stderr, "predict: %s\n", std::string(out.status().message()).c_str());
    return 2;
  }
  std::fputs(out->c_str(), stdout);
  return 0;
}
