#include "models/analysis/predict_report.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "models/algorithm_choice.h"
#include "models/bandwidth/bus_bandwidth.h"
#include "models/bandwidth/ideal_bandwidth.h"
#include "models/profile_json.h"

namespace kcoll {
namespace models {

namespace {

using nlohmann::json;

constexpr double kMaxSweepRows = 10000;

json CrossoversToJson(const std::vector<Crossover>& crossovers) {
  json out = json::array();
  for (const Crossover& c : crossovers) {
    out.push_back({{"bytes", c.bytes},
                   {"below", std::string(AlgorithmName(c.below))},
                   {"above", std::string(AlgorithmName(c.above))},
                   {"below_seconds", c.below_seconds},
                   {"above_seconds", c.above_seconds},
                   {"continuous", c.continuous}});
  }
  return out;
}

// The parts shared by both reports: machine, ideal busbw, the chooser and where its choice changes.
struct Common {
  json header;
  AlgorithmChooser chooser;
  double ideal = 0;  // 0 when not defined
};

absl::StatusOr<Common> MakeCommon(const PredictRequest& request) {
  absl::StatusOr<AlgorithmChooser> chooser =
      AlgorithmChooser::Create(request.topology, request.profile, request.options, {request.collective});
  if (!chooser.ok()) return chooser.status();
  if (absl::Status s = ValidateCrossoverSearch(request.search); !s.ok()) return s;
  json header;
  header["collective"] = std::string(CollectiveName(request.collective));
  header["topology"] = {{"nodes", request.topology.nodes},
                        {"ranks_per_node", request.topology.ranks_per_node},
                        {"nics_per_node", request.topology.nics_per_node},
                        {"intra_links_per_rank", request.topology.intra_links_per_rank},
                        {"ranks", request.topology.ranks()}};
  header["profile"] = json::parse(ProfileToJson(request.profile));
  header["options"] = {{"channels", request.options.channels}, {"chunk_bytes", request.options.chunk_bytes}};
  IdealBandwidthInputs in;
  in.intra_bw = std::max(1, request.topology.intra_links_per_rank) * request.profile.intra.PeakBytesPerSecond();
  in.inter_bw = request.topology.nics_per_node * request.profile.inter.PeakBytesPerSecond();
  in.ranks_per_node = request.topology.ranks_per_node;
  in.nodes = request.topology.nodes;
  absl::StatusOr<IdealBandwidth> ideal = ComputeIdealBandwidth(in);
  double ideal_busbw = 0;
  if (ideal.ok()) {
    ideal_busbw = ideal->busbw;
    header["ideal_busbw"] = ideal->busbw;
    header["ideal_limited_by"] = ideal->inter_limited ? "inter-node" : "intra-node";
  } else {
    header["ideal_busbw"] = nullptr;
    header["ideal_note"] = std::string(ideal.status().message());
  }
  absl::StatusOr<std::vector<Crossover>> changes = ChoiceChanges(*chooser, request.collective, request.search);
  if (!changes.ok()) return changes.status();
  header["search"] = {{"min_bytes", request.search.min_bytes}, {"max_bytes", request.search.max_bytes}};
  header["choice_changes"] = CrossoversToJson(*changes);
  return Common{std::move(header), *std::move(chooser), ideal_busbw};
}

// time, algbw, busbw and efficiency of one prediction (null where not defined, e.g. a zero time).
json Rates(const PredictRequest& request, double bytes, double seconds, double ideal) {
  json out;
  out["seconds"] = seconds;
  absl::StatusOr<double> algbw = AlgBw(bytes, seconds);
  absl::StatusOr<double> busbw = BusBw(request.collective, bytes, seconds, request.topology.ranks());
  out["algbw"] = algbw.ok() ? json(*algbw) : json(nullptr);
  out["busbw"] = busbw.ok() ? json(*busbw) : json(nullptr);
  absl::StatusOr<double> efficiency = busbw.ok() ? Efficiency(*busbw, ideal) : busbw.status();
  out["efficiency"] = efficiency.ok() ? json(*efficiency) : json(nullptr);
  return out;
}

std::string Gbps(const json& value) {
  return value.is_number() ? absl::StrFormat("%.2f", value.get<double>() / kBytesPerGB) : "-";
}

std::string Percent(const json& value) {
  return value.is_number() ? absl::StrFormat("%.1f %%", 100 * value.get<double>()) : "-";
}

std::string HeaderText(const json& r) {
  const json& t = r["topology"];
  const json& p = r["profile"];
  Topology topology{t["nodes"].get<int>(), t["ranks_per_node"].get<int>(), t["nics_per_node"].get<int>(),
                    t["intra_links_per_rank"].get<int>()};
  auto link = [](const json& l) {
    const double beta = l["beta_s_per_byte"].get<double>();
    return absl::StrCat(beta > 0 ? absl::StrFormat("%.4g GB/s", 1 / beta / kBytesPerGB) : "unlimited", ", ",
                        FormatSeconds(l["alpha_s"].get<double>()), " latency");
  };
  std::string out = absl::StrCat(r["collective"].get<std::string>(), " on ", TopologyToString(topology), "\n");
  absl::StrAppend(&out, "intra-node link: ", link(p["intra"]), "; inter-node NIC: ", link(p["inter"]),
                  "; reduction: ", absl::StrFormat("%.4g", p["gamma_s_per_byte"].get<double>() * kBytesPerGB),
                  " s/GB\n");
  if (topology.intra_links_per_rank == 0 && topology.ranks_per_node > 2) {
    absl::StrAppend(&out,
                    "(one intra-node link per pair of ranks: algorithms that drive two links per rank at once can "
                    "beat the one-link ideal; see --intra_links_per_rank)\n");
  }
  if (r["ideal_busbw"].is_number()) {
    absl::StrAppend(&out, "ideal busbw: ", Gbps(r["ideal_busbw"]), " GB/s (", r["ideal_limited_by"].get<std::string>(),
                    " bound)\n");
  } else {
    absl::StrAppend(&out, "ideal busbw: not defined: ", r["ideal_note"].get<std::string>(), "\n");
  }
  return out;
}

std::string CrossoverLines(const json& crossovers) {
  std::string out;
  for (const json& c : crossovers) {
    absl::StrAppend(&out, absl::StrFormat("  %16.1f B  (%9s)  %s -> %s%s\n", c["bytes"].get<double>(),
                                          FormatBytes(c["bytes"].get<double>()), c["below"].get<std::string>(),
                                          c["above"].get<std::string>(),
                                          c["continuous"].get<bool>() ? "" : "  (jump at a chunk-count step)"));
  }
  if (crossovers.empty()) out = "  none\n";
  return out;
}

}  // namespace

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (u < 5 && std::abs(bytes) >= 1000) {
    bytes /= 1000;
    ++u;
  }
  return absl::StrFormat("%.4g %s", bytes, units[u]);
}

absl::StatusOr<json> SizeReport(const PredictRequest& request, double bytes) {
  if (!std::isfinite(bytes) || bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("bytes=", bytes, " must be finite and >= 0"));
  }
  absl::StatusOr<Common> common = MakeCommon(request);
  if (!common.ok()) return common.status();
  json report = common->header;
  report["bytes"] = bytes;
  absl::StatusOr<std::vector<Candidate>> candidates = common->chooser.Candidates(request.collective, bytes);
  if (!candidates.ok()) return candidates.status();
  json algorithms = json::array();
  for (const Candidate& c : *candidates) {
    json entry = Rates(request, bytes, c.seconds, common->ideal);
    entry["algorithm"] = std::string(AlgorithmName(c.algorithm));
    algorithms.push_back(entry);
  }
  report["algorithms"] = algorithms;
  report["chosen"] = std::string(AlgorithmName(BestCandidate(*candidates).algorithm));
  absl::StatusOr<std::vector<Crossover>> crossovers =
      ListCrossovers(request.collective, request.topology, request.profile, request.options, request.search);
  if (!crossovers.ok()) return crossovers.status();
  report["crossovers"] = CrossoversToJson(*crossovers);
  return report;
}

absl::StatusOr<json> SweepReport(const PredictRequest& request, double min_bytes, double max_bytes,
                                 double step_factor) {
  if (!std::isfinite(min_bytes) || min_bytes <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("min_bytes=", min_bytes, " must be finite and > 0"));
  }
  if (!std::isfinite(max_bytes) || max_bytes < min_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_bytes=", max_bytes, " must be finite and >= min_bytes=", min_bytes));
  }
  if (!std::isfinite(step_factor) || step_factor <= 1) {
    return absl::InvalidArgumentError(absl::StrCat("step_factor=", step_factor, " must be finite and > 1"));
  }
  if (std::log(max_bytes / min_bytes) / std::log(step_factor) > kMaxSweepRows) {
    return absl::InvalidArgumentError(absl::StrCat("step_factor=", step_factor, " from min_bytes=", min_bytes,
                                                   " to max_bytes=", max_bytes, " gives more than ", kMaxSweepRows,
                                                   " sizes"));
  }
  absl::StatusOr<Common> common = MakeCommon(request);
  if (!common.ok()) return common.status();
  json report = common->header;
  json rows = json::array();
  std::vector<double> sizes;
  for (int i = 0;; ++i) {
    const double bytes = min_bytes * std::pow(step_factor, i);
    if (bytes > max_bytes * (1 + 1e-12)) break;
    sizes.push_back(bytes);
  }
  if (sizes.back() < max_bytes * (1 - 1e-12)) sizes.push_back(max_bytes);
  for (double bytes : sizes) {
    absl::StatusOr<std::vector<Candidate>> candidates = common->chooser.Candidates(request.collective, bytes);
    if (!candidates.ok()) return candidates.status();
    const Candidate best = BestCandidate(*candidates);
    json row = Rates(request, bytes, best.seconds, common->ideal);
    row["bytes"] = bytes;
    row["chosen"] = std::string(AlgorithmName(best.algorithm));
    json times = json::object();
    for (const Candidate& c : *candidates) times[std::string(AlgorithmName(c.algorithm))] = c.seconds;
    row["algorithm_seconds"] = times;
    rows.push_back(row);
  }
  report["rows"] = rows;
  return report;
}

std::string FormatSizeReport(const json& r) {
  std::string out = HeaderText(r);
  absl::StrAppend(&out, "size: ", absl::StrFormat("%.0f", r["bytes"].get<double>()), " B (",
                  FormatBytes(r["bytes"].get<double>()), ")\n\n");
  absl::StrAppend(&out, absl::StrFormat("%-24s %12s %12s %12s %11s\n", "algorithm", "time", "algbw GB/s", "busbw GB/s",
                                        "efficiency"));
  for (const json& a : r["algorithms"]) {
    const std::string name = a["algorithm"].get<std::string>();
    absl::StrAppend(&out,
                    absl::StrFormat("%-24s %12s %12s %12s %11s%s\n", name, FormatSeconds(a["seconds"].get<double>()),
                                    Gbps(a["algbw"]), Gbps(a["busbw"]), Percent(a["efficiency"]),
                                    name == r["chosen"].get<std::string>() ? "  <- chosen" : ""));
  }
  absl::StrAppend(&out, "\nchosen: ", r["chosen"].get<std::string>(), "\n");
  const std::string range = absl::StrCat("[", FormatBytes(r["search"]["min_bytes"].get<double>()), ", ",
                                         FormatBytes(r["search"]["max_bytes"].get<double>()), "]");
  absl::StrAppend(&out, "\nwhere the choice changes in ", range, ":\n", CrossoverLines(r["choice_changes"]));
  absl::StrAppend(&out, "\nall pairwise crossovers in ", range, ":\n", CrossoverLines(r["crossovers"]));
  return out;
}

std::string FormatSweepReport(const json& r) {
  std::string out = HeaderText(r);
  std::vector<std::string> names;
  if (!r["rows"].empty()) {
    for (const auto& item : r["rows"][0]["algorithm_seconds"].items()) names.push_back(item.key());
  }
  // Columns in the chooser's (simplicity) order rather than the JSON object's alphabetical one.
  std::vector<std::string> ordered = names;
  std::sort(ordered.begin(), ordered.end(), [](const std::string& x, const std::string& y) {
    return SimplicityRank(*ParseAlgorithm(x)) < SimplicityRank(*ParseAlgorithm(y));
  });
  absl::StrAppend(&out, "\n", absl::StrFormat("%16s", "bytes"));
  for (const std::string& n : ordered) absl::StrAppend(&out, absl::StrFormat(" %*s", std::max<int>(11, n.size()), n));
  absl::StrAppend(&out, absl::StrFormat("  %-22s %10s %11s\n", "chosen", "busbw GB/s", "efficiency"));
  for (const json& row : r["rows"]) {
    absl::StrAppend(&out, absl::StrFormat("%16.0f", row["bytes"].get<double>()));
    for (const std::string& n : ordered) {
      absl::StrAppend(&out, absl::StrFormat(" %*s", std::max<int>(11, n.size()),
                                            FormatSeconds(row["algorithm_seconds"][n].get<double>())));
    }
    absl::StrAppend(&out, absl::StrFormat("  %-22s %10s %11s\n", row["chosen"].get<std::string>(), Gbps(row["busbw"]),
                                          Percent(row["efficiency"])));
  }
  absl::StrAppend(&out, "\nwhere the choice changes in [", FormatBytes(r["search"]["min_bytes"].get<double>()), ", ",
                  FormatBytes(r["search"]["max_bytes"].get<double>()), "]:\n", CrossoverLines(r["choice_changes"]));
  return out;
}

}  // namespace models
}  // namespace kcoll
