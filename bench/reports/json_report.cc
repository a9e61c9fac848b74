#include "bench/reports/json_report.h"

#include <cstdio>
#include <ctime>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kcoll {
namespace bench {
namespace {

using Json = nlohmann::ordered_json;

// nccl-tests writes booleans as the strings "true" and "false".
std::string Bool(bool v) { return v ? "true" : "false"; }

Json OptionalNumber(const std::optional<double>& v) { return v.has_value() ? Json(*v) : Json(nullptr); }

Json MeasurementJson(const std::optional<Measurement>& m) {
  if (!m.has_value()) return Json(nullptr);
  Json j;
  j["time"] = m->time_us;
  j["alg_bw"] = m->algbw_gbps;
  j["bus_bw"] = m->busbw_gbps;
  j["nwrong"] = m->wrong.has_value() ? Json(static_cast<double>(*m->wrong)) : Json(nullptr);
  if (m->fingerprint.has_value()) j["fingerprint"] = absl::StrFormat("%016x", *m->fingerprint);
  if (m->late_starts.has_value()) j["late_starts"] = *m->late_starts;
  return j;
}

Json PerIterJson(const Measurement& m) {
  Json j;
  j["skipped_iterations"] = 0;
  j["min_us"] = m.stats->min_us;
  j["max_us"] = m.stats->max_us;
  j["avg_us"] = m.stats->avg_us;
  j["p50_us"] = m.stats->p50_us;
  j["p95_us"] = m.stats->p95_us;
  j["p99_us"] = m.stats->p99_us;
  j["stdev_us"] = m.stats->stdev_us;
  j["cv_pct"] = m.stats->cv_pct;
  j["times_us"] = m.times_us;
  j["per_process_max_times_us"] = m.per_rank_times_us;
  return j;
}

}  // namespace

std::string NowString() {
  char buf[64];
  const std::time_t now = std::time(nullptr);
  std::tm tm_now;
  localtime_r(&now, &tm_now);
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm_now);
  return buf;
}

absl::Status JsonReport::Open() {
  std::ofstream out(path_, std::ios::trunc);
  if (!out) return absl::InvalidArgumentError(absl::StrCat("--json '", path_, "': cannot be written"));
  return absl::OkStatus();
}

Json JsonReport::RowJson(const Row& row, const std::string& program) {
  Json j;
  j["size"] = row.bytes;
  j["count"] = row.count;
  j["type"] = NcclTypeName(row.type);
  j["redop"] = NcclOpName(row.op);
  j["root"] = absl::StrFormat("%6i", row.root);
  j["out_of_place"] = MeasurementJson(row.out_of_place);
  if (row.out_of_place.has_value() && row.out_of_place->stats.has_value()) {
    j["out_of_place_per_iter"] = PerIterJson(*row.out_of_place);
  }
  j["in_place"] = MeasurementJson(row.in_place);
  if (row.in_place.has_value() && row.in_place->stats.has_value()) j["in_place_per_iter"] = PerIterJson(*row.in_place);
  const Measurement* any =
      row.out_of_place.has_value() ? &*row.out_of_place : (row.in_place.has_value() ? &*row.in_place : nullptr);
  j["actual_iterations"] = any != nullptr ? any->iterations : 0;
  j["experiment_name"] = absl::StrCat(program, "/", CollectiveName(row.collective), "/", row.implementation);
  // kcoll's fields.
  j["collective"] = std::string(CollectiveName(row.collective));
  j["algorithm"] = row.implementation;
  j["implementation"] = row.kind;
  j["peer"] = row.kind != "kcoll";
  j["ideal_bus_bw"] = OptionalNumber(row.ideal_busbw_gbps);
  j["out_of_place_efficiency"] = OptionalNumber(EfficiencyPct(row, false));
  j["in_place_efficiency"] = OptionalNumber(EfficiencyPct(row, true));
  j["bus_bw_vs_mpi"] = OptionalNumber(row.vs_mpi);
  if (row.out_of_place.has_value() && !row.out_of_place->round_p50_us.empty()) {
    j["out_of_place_round_p50_us"] = row.out_of_place->round_p50_us;
  }
  if (row.model_algorithm.has_value() && row.out_of_place.has_value()) {
    j["model_algorithm"] = std::string(AlgorithmName(*row.model_algorithm));
    j["model_time"] = OptionalNumber(row.out_of_place->model_us);
    j["model_error_pct"] = OptionalNumber(row.out_of_place->model_error_pct);
    j["link_probe_ratio"] = OptionalNumber(row.out_of_place->link_ratio);
    if (!row.out_of_place->round_states.empty()) {
      std::vector<int> states;  // numbered from 1, as the footer numbers them
      for (int st : row.out_of_place->round_states) states.push_back(st + 1);
      j["model_round_states"] = states;
    }
    if (!row.out_of_place->round_algorithms.empty()) {
      std::vector<std::string> names;
      for (Algorithm a : row.out_of_place->round_algorithms) names.push_back(std::string(AlgorithmName(a)));
      j["model_round_algorithms"] = names;
    }
    if (const auto& s = row.out_of_place->calibrated_rounds; s.has_value()) {
      j["calibrated_state_rounds"] = s->rounds;
      j["calibrated_state_p50_us"] = OptionalNumber(s->p50_us > 0 ? std::optional<double>(s->p50_us) : std::nullopt);
      j["calibrated_state_model_error_pct"] = OptionalNumber(s->model_error_pct);
    }
  }
  return j;
}

void JsonReport::OnRunStart(const RunInfo& info) {
  program_ = info.program;
  doc_ = Json::object();
  doc_["version"] = 3;
  doc_["start_time"] = info.start_time;
  doc_["args"] = info.args;
  doc_["env"] = info.env;
  doc_["nccl_version"] = 0;
  Json config;
  config["nthreads"] = 1;
  config["ngpus"] = 1;
  config["minimum_bytes"] = info.min_bytes;
  config["maximum_bytes"] = info.max_bytes;
  if (info.step_factor > 1) {
    config["step_factor"] = info.step_factor;
  } else {
    config["step_bytes"] = info.step_bytes;
  }
  config["warmup_iters"] = info.warmup_iters;
  config["iterations"] = info.iters;
  config["rounds"] = info.rounds;
  config["aggregated_iterations"] = info.agg_iters;
  config["validation"] = info.check;
  config["graph"] = 0;
  config["blocking_collectives"] = Bool(false);
  config["per_iter_timing"] = Bool(info.per_iter_timing);
  config["per_iter_skip"] = 0;
  config["parallel_init"] = Bool(false);
  Json devices = Json::array();
  for (const RankInfo& r : info.ranks) {
    Json d;
    d["rank"] = r.rank;
    d["group"] = 0;
    d["pid"] = r.pid;
    d["hostname"] = r.hostname;
    d["device"] = ShownDevice(r, info);
    d["device_hex"] = absl::StrCat("node ", r.node);
    d["device_info"] = absl::StrCat("CPU ", info.exec);
    devices.push_back(d);
  }
  config["devices"] = devices;
  doc_["config"] = config;
  doc_["results"] = Json::array();
  Json kcoll;
  kcoll["program"] = info.program;
  Json collectives = Json::array();
  for (Collective c : info.collectives) collectives.push_back(std::string(CollectiveName(c)));
  kcoll["collectives"] = collectives;
  kcoll["ranks"] = info.nranks;
  kcoll["ranks_per_node"] = info.ranks_per_node;
  kcoll["nodes"] = info.nodes;
  kcoll["emulated_nodes"] = info.emulated_nodes;
  kcoll["exec"] = info.exec;
  kcoll["exec_note"] = info.exec_note;
  if (!info.timeout_note.empty()) kcoll["timeout_note"] = info.timeout_note;
  if (!info.timing_note.empty()) kcoll["timing_note"] = info.timing_note;
  kcoll["transport_notes"] = info.transport_notes;
  kcoll["launch"] = info.launch;
  kcoll["time_across_ranks"] = info.time_across;
  kcoll["versions"] = info.versions;
  kcoll["machine"] = info.machine;
  kcoll["cores"] = info.cores;
  kcoll["load_average"] = info.load_average >= 0 ? Json(info.load_average) : Json(nullptr);
  kcoll["intra_bw_gbps"] = info.intra_bw_gbps > 0 ? Json(info.intra_bw_gbps) : Json(nullptr);
  kcoll["inter_bw_gbps"] = info.inter_bw_gbps > 0 ? Json(info.inter_bw_gbps) : Json(nullptr);
  kcoll["ideal_bus_bw"] = OptionalNumber(info.ideal_busbw_gbps);
  kcoll["ideal_note"] = info.ideal_note;
  kcoll["latency_floor_us"] = info.latency_floor_s > 0 ? Json(info.latency_floor_s * 1e6) : Json(nullptr);
  kcoll["blocks"] = Json::array();
  kcoll["best_vs_mpi"] = Json::array();
  kcoll["complete"] = false;
  kcoll["interrupted"] = false;
  doc_["kcoll"] = kcoll;
  UpdateTotals();
  Save();
}

void JsonReport::OnBlockStart(const Block& block) {
  Json b;
  b["collective"] = std::string(CollectiveName(block.collective));
  b["algorithm"] = block.implementation;
  b["implementation"] = block.kind;
  b["notes"] = Json::array();
  doc_["kcoll"]["blocks"].push_back(b);
}

void JsonReport::OnRow(const Row& row) {
  doc_["results"].push_back(RowJson(row, program_));
  for (const std::optional<Measurement>* m : {&row.out_of_place, &row.in_place}) {
    if (!m->has_value()) continue;
    if ((*m)->wrong.has_value()) wrong_ += *(*m)->wrong;
    if (row.kind == "kcoll") {
      kcoll_busbw_sum_ += (*m)->busbw_gbps;
      ++kcoll_measurements_;
    }
  }
  UpdateTotals();
  Save();
}

void JsonReport::OnNote(const Block&, const std::string& note) {
  Json& blocks = doc_["kcoll"]["blocks"];
  if (!blocks.empty()) blocks.back()["notes"].push_back(note);
  Save();
}

void JsonReport::OnBlockEnd(const Block&, const BlockSummary& summary) {
  Json& blocks = doc_["kcoll"]["blocks"];
  if (blocks.empty()) return;
  blocks.back()["out_of_bounds"] = {{"count", summary.wrong}, {"okay", Bool(summary.wrong == 0)}};
  blocks.back()["average_bus_bandwidth"] = summary.avg_busbw;
  Save();
}

void JsonReport::OnFinish(const RunSummary& summary) {
  wrong_ = summary.wrong;
  UpdateTotals();
  doc_["average_bus_bandwidth"]["bandwidth"] = summary.avg_busbw_kcoll;
  doc_["errors"] = summary.errors;
  Json best = Json::array();
  for (const BestVsMpi& b : summary.best_vs_mpi) {
    Json j;
    j["collective"] = std::string(CollectiveName(b.collective));
    j["size"] = b.bytes;
    j["type"] = NcclTypeName(b.type);
    j["redop"] = NcclOpName(b.op);
    j["root"] = b.root;
    j["best_algorithm"] = b.best_algorithm;
    j["kcoll_bus_bw"] = b.kcoll_busbw;
    j["mpi_bus_bw"] = b.mpi_busbw;
    j["ratio"] = b.ratio;
    j["ratio_p50"] = OptionalNumber(b.ratio_p50);
    best.push_back(j);
  }
  doc_["kcoll"]["best_vs_mpi"] = best;
  Json autos = Json::array();
  for (const AutoVsFastest& v : summary.auto_vs_fastest) {
    autos.push_back({{"collective", std::string(CollectiveName(v.collective))},
                     {"size", v.bytes},
                     {"auto_ran", v.auto_ran},
                     {"auto_us", v.auto_us},
                     {"fastest", v.fastest},
                     {"fastest_us", v.fastest_us},
                     {"ratio", v.ratio},
                     {"choice_ratio", OptionalNumber(v.choice_ratio)},
                     {"calibrated_state", v.calibrated_state},
                     {"paired_ratio", OptionalNumber(v.paired_ratio)},
                     {"paired_against", v.paired_against},
                     {"paired_rounds", v.paired_rounds}});
  }
  doc_["kcoll"]["auto_vs_fastest"] = autos;
  if (!summary.model_errors.empty()) {
    auto errors_json = [](const std::vector<models::AlgorithmError>& errors) {
      Json out = Json::array();
      for (const models::AlgorithmError& e : errors) {
        out.push_back({{"collective", std::string(CollectiveName(e.collective))},
                       {"algorithm", std::string(AlgorithmName(e.algorithm))},
                       {"rows", e.rows},
                       {"median_abs_error_pct", e.median_abs_error_percent}});
      }
      return out;
    };
    doc_["kcoll"]["model_errors"] = errors_json(summary.model_errors);
    doc_["kcoll"]["model_errors_calibrated_state"] = errors_json(summary.model_errors_calibrated_state);
  }
  if (!summary.model_states.empty()) {
    Json states = Json::array();
    for (const ModelStateInfo& st : summary.model_states) {
      states.push_back({{"profile", st.profile_path}, {"probe_us", st.probe_us}, {"measured", st.measured}});
    }
    doc_["kcoll"]["model_states"] = states;
  }
  doc_["kcoll"]["complete"] = !summary.interrupted;
  doc_["kcoll"]["interrupted"] = summary.interrupted;
  doc_["end_time"] = NowString();
  Save();
}

void JsonReport::UpdateTotals() {
  doc_["out_of_bounds"] = {{"count", wrong_}, {"okay", Bool(wrong_ == 0)}};
  doc_["average_bus_bandwidth"] = {
      {"bandwidth", kcoll_measurements_ > 0 ? kcoll_busbw_sum_ / kcoll_measurements_ : 0.0}, {"okay", "unchecked"}};
  if (!doc_.contains("errors")) doc_["errors"] = Json::array();
}

void JsonReport::Save() {
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) {
      status_ = absl::InternalError(absl::StrCat("--json: cannot write ", tmp));
      return;
    }
    out << doc_.dump(1) << "\n";
    if (!out) {
      status_ = absl::InternalError(absl::StrCat("--json: writing ", tmp, " failed"));
      return;
    }
  }
  if (std::rename(tmp.c_str(), path_.c_str()) != 0) {
    status_ = absl::InternalError(absl::StrCat("--json: cannot rename ", tmp, " to ", path_));
  }
}

}  // namespace bench
}  // namespace kcoll
