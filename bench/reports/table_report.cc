#include "bench/reports/table_report.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kcoll {
namespace bench {
namespace {

std::string Fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Fmt(const char* format, ...) {
  char buf[2048];
  va_list args;
  va_start(args, format);
  vsnprintf(buf, sizeof(buf), format, args);
  va_end(args);
  return buf;
}

std::string Half(const std::optional<Measurement>& m, bool per_iter_timing) {
  if (!m.has_value()) {
    std::string blank = Fmt("  %7s  %6s  %6s  %6s", "-", "-", "-", "-");
    if (per_iter_timing) blank += Fmt("  %7s  %7s  %7s  %7s", "-", "-", "-", "-");
    return blank;
  }
  std::string s = Fmt("  %7s  %6s  %6s", FormatNcclNumber(m->time_us, 7).c_str(),
                      FormatNcclNumber(m->algbw_gbps, 6).c_str(), FormatNcclNumber(m->busbw_gbps, 6).c_str());
  s += m->wrong.has_value() ? Fmt("  %6g", static_cast<double>(*m->wrong)) : std::string("     N/A");
  if (per_iter_timing) {
    if (m->stats.has_value()) {
      s += Fmt("  %7s  %7s  %7s  %7s", FormatNcclNumber(m->stats->min_us, 7).c_str(),
               FormatNcclNumber(m->stats->max_us, 7).c_str(), FormatNcclNumber(m->stats->p99_us, 7).c_str(),
               FormatNcclNumber(m->stats->cv_pct, 7).c_str());
    } else {
      s += Fmt("  %7s  %7s  %7s  %7s", "N/A", "N/A", "N/A", "N/A");
    }
  }
  return s;
}

std::string Optional(const std::optional<double>& v, int width) {
  return v.has_value() ? FormatNcclNumber(*v, width) : std::string(width - 3, ' ') + "N/A";
}

std::string StepText(const RunInfo& info) {
  return info.step_factor > 1 ? Fmt("%zu(factor)", info.step_factor) : Fmt("%zu(bytes)", info.step_bytes);
}

}  // namespace

std::string FormatNcclNumber(double value, int width) {
  char buf[64];
  for (const char* format : {"%*.2f", "%*.1f", "%*.0f"}) {
    if (snprintf(buf, sizeof(buf), format, width, value) <= width) return buf;
  }
  snprintf(buf, sizeof(buf), width >= 7 ? "%*.1e" : "%*.0e", width, value);
  return buf;
}

std::vector<std::string> TableWriter::ColumnHeader(bool per_iter, bool model, bool fingerprint) {
  std::vector<std::string> lines;
  const char* extra_names = "    ideal     eff     eff    busbw";
  const char* extra_units = "   (GB/s)   (oop)    (ip)   vs MPI";
  if (per_iter) {
    lines.push_back(
        Fmt("# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)                   "
            "             in-place (+ per-iteration)                            kcoll",
            "", "", "", "", ""));
    lines.push_back(
        Fmt("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  "
            "%7s  %7s  %7s%s",
            "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99",
            "i_cv%", "time", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%", extra_names));
    lines.push_back(
        Fmt("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  "
            "%7s  %7s  %7s%s",
            "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", "(us)",
            "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", extra_units));
  } else {
    lines.push_back(
        Fmt("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          "
            "                 kcoll",
            "", "", "", "", ""));
    lines.push_back(Fmt("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s%s", "size", "count",
                        "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong",
                        extra_names));
    lines.push_back(Fmt("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s%s", "(B)", "(elements)",
                        "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", extra_units));
  }
  if (model) {
    lines[lines.size() - 2] += "      model    error    link";
    lines[lines.size() - 1] += "       (us)    (oop)   probe";
  }
  if (fingerprint) {
    lines[lines.size() - 2] += "            result";
    lines[lines.size() - 1] += "     (oop, FNV-1a)";
  }
  return lines;
}

std::string TableWriter::FormatRow(const Row& row, bool per_iter, bool model, bool fingerprint) {
  std::string s = Fmt("%12zu  %12zu  %8s  %6s  %6i", row.bytes, row.count, NcclTypeName(row.type).c_str(),
                      NcclOpName(row.op).c_str(), row.root);
  s += Half(row.out_of_place, per_iter);
  s += Half(row.in_place, per_iter);
  const std::optional<double> oop = EfficiencyPct(row, false), ip = EfficiencyPct(row, true);
  std::optional<double> vs = row.vs_mpi;
  s += Fmt("  %7s  %6s  %6s  %7s", Optional(row.ideal_busbw_gbps, 7).c_str(), Optional(oop, 6).c_str(),
           Optional(ip, 6).c_str(), row.kind == "kcoll" ? Optional(vs, 7).c_str() : "      -");
  if (model) {
    const std::optional<double> model_us = row.out_of_place ? row.out_of_place->model_us : std::nullopt;
    const std::optional<double> error = row.out_of_place ? row.out_of_place->model_error_pct : std::nullopt;
    s += Fmt("  %9s  %7s", model_us ? FormatNcclNumber(*model_us, 9).c_str() : "-",
             error ? Fmt("%+.0f%%", *error).c_str() : "-");
    const std::optional<double> link = row.out_of_place ? row.out_of_place->link_ratio : std::nullopt;
    s += Fmt("  %6s", link ? Fmt("%.2fx", *link).c_str() : "-");
    // What auto ran at this size.
    if (row.implementation == "auto" && row.model_algorithm.has_value()) s += Fmt("  %s", AutoRanText(row).c_str());
  }
  if (fingerprint) {
    const std::optional<uint64_t> fp = row.out_of_place ? row.out_of_place->fingerprint : std::nullopt;
    s += fp ? Fmt("  %016llx", static_cast<unsigned long long>(*fp)) : Fmt("  %16s", "-");
  }
  return s;
}

void TableWriter::OnRunStart(const RunInfo& info) {
  info_ = info;
  out_ << "# kcoll collective benchmark (" << info.versions << ")\n";
  out_ << "# Collective test starting: " << info.program << "\n";
  out_ << Fmt(
      "# nThread 1 nGpus 1 minBytes %zu maxBytes %zu step: %s warmup iters: %d iters: %d agg iters: %d "
      "validation: %d graph: 0\n",
      info.min_bytes, info.max_bytes, StepText(info).c_str(), info.warmup_iters, info.iters, info.agg_iters,
      info.check);
  out_ << Fmt("# Ranks: %d on %d node%s of %d rank%s%s\n", info.nranks, info.nodes, info.nodes == 1 ? "" : "s",
              info.ranks_per_node, info.ranks_per_node == 1 ? "" : "s",
              info.emulated_nodes ? " (emulated nodes: --ranks_per_node)" : "");
  out_ << "# Execution space: " << info.exec << " (" << info.exec_note << ")\n";
  for (const std::string& note : info.transport_notes) out_ << "# Transport: " << note << "\n";
  if (!info.timeout_note.empty()) out_ << "# Timeout: " << info.timeout_note << "\n";
  if (!info.timing_note.empty()) out_ << "# Timing: " << info.timing_note << "\n";
  out_ << "# Machine: " << info.machine << Fmt(", %d cores", info.cores);
  if (info.load_average >= 0) {
    out_ << Fmt(", load average %.2f at the start (other work competes with the ranks)", info.load_average);
  }
  out_ << "\n";
  out_ << "# Launch: " << info.launch << "\n";
  const std::string rounds = info.rounds > 1 ? Fmt(" (%d rounds of %d: the sweep ran %d times, size by size)",
                                                   info.rounds, info.iters, info.rounds)
                                             : std::string();
  out_ << Fmt(
      "# Time: one iteration = %d operation%s; per-iteration time across ranks: %s (-a %d); the table shows "
      "the mean over %d iterations%s\n",
      info.agg_iters, info.agg_iters == 1 ? "" : "s", info.time_across.c_str(), info.time_across_code,
      info.iters * info.rounds, rounds.c_str());
  if (info.per_iter_timing) out_ << "# Per-Iteration Report: i_* use the per-iteration times across ranks (-a)\n";
  out_ << "# Ideal busbw: "
       << (info.ideal_busbw_gbps.has_value() ? absl::StrCat(*info.ideal_busbw_gbps, " GB/s") : "N/A") << " ("
       << info.ideal_note << ")\n";
  if (info.model) out_ << "# Model: " << info.model_note << "\n";
  out_ << "#\n# Using devices\n";
  for (const RankInfo& r : info.ranks) {
    out_ << Fmt("#  Rank %2d Group %2d Pid %6d on %10s device %2d [node %d] CPU %s\n", r.rank, 0, r.pid,
                r.hostname.c_str(), ShownDevice(r, info), r.node, info.exec.c_str());
  }
  out_.flush();
}

void TableWriter::OnBlockStart(const Block& block) {
  out_ << "#\n# " << CollectiveName(block.collective) << ": " << block.implementation << " ("
       << (block.kind == "kcoll" ? "kcoll algorithm" : absl::StrCat(block.kind, " peer")) << ")\n";
  header_printed_ = false;
}

void TableWriter::OnRow(const Row& row) {
  if (!header_printed_) {
    for (const std::string& line : ColumnHeader(info_.per_iter_timing, info_.model, info_.fingerprint)) {
      out_ << line << "\n";
    }
    header_printed_ = true;
  }
  out_ << FormatRow(row, info_.per_iter_timing, info_.model, info_.fingerprint) << "\n";
}

void TableWriter::OnNote(const Block&, const std::string& note) { out_ << "# " << note << "\n"; }

void TableWriter::OnBlockEnd(const Block&, const BlockSummary& summary) {
  if (summary.measurements == 0) return;
  out_ << Fmt("# %-20s : %lld %s\n", "Out of bounds values", static_cast<long long>(summary.wrong),
              summary.wrong ? "FAILED" : "OK");
  out_ << Fmt("# %-20s : %g \n", "Avg bus bandwidth", summary.avg_busbw);
  if (summary.late_starts.value_or(0) > 0) {
    out_ << Fmt(
        "# %-20s : %d of %d timed iterations (--start aligned: some rank began after the agreed instant; "
        "those times include the lateness)\n",
        "Late starts", *summary.late_starts, summary.aligned_iterations);
  }
}

void TableWriter::OnFinish(const RunSummary& summary) {
  if (!summary.best_vs_mpi.empty()) {
    bool p50 = false;
    for (const BestVsMpi& b : summary.best_vs_mpi) p50 = p50 || b.ratio_p50.has_value();
    out_ << "#\n# Best kcoll algorithm against the MPI peer (out-of-place busbw)\n";
    out_ << Fmt("# %14s  %12s  %8s  %6s  %6s  %-20s  %8s  %8s  %6s%s\n", "collective", "size", "type", "redop", "root",
                "best kcoll", "kcoll", "MPI", "ratio", p50 ? "   ratio" : "");
    out_ << Fmt("# %14s  %12s  %8s  %6s  %6s  %-20s  %8s  %8s  %6s%s\n", "", "(B)", "", "", "", "", "(GB/s)", "(GB/s)",
                "(mean)", p50 ? "   (p50)" : "");
    for (const BestVsMpi& b : summary.best_vs_mpi) {
      out_ << Fmt("# %14s  %12zu  %8s  %6s  %6i  %-20s  %8s  %8s  %6s",
                  std::string(CollectiveName(b.collective)).c_str(), b.bytes, NcclTypeName(b.type).c_str(),
                  NcclOpName(b.op).c_str(), b.root, b.best_algorithm.c_str(),
                  FormatNcclNumber(b.kcoll_busbw, 8).c_str(), FormatNcclNumber(b.mpi_busbw, 8).c_str(),
                  FormatNcclNumber(b.ratio, 6).c_str());
      if (p50) out_ << "  " << Optional(b.ratio_p50, 6);
      out_ << "\n";
    }
  }
  if (!summary.auto_vs_fastest.empty()) {
    out_
        << "#\n# auto against the fastest other kcoll algorithm (out of place, median iteration with -I 1, else "
           "mean; with --model, rows in the calibrated state when auto's is); choice: the algorithm auto ran, timed in "
           "its own row, over the fastest; paired (--rounds): round by round, the median over the rounds of auto's "
           "round over the algorithm's, against the algorithm auto loses most to\n";
    out_ << Fmt("# %14s  %12s  %8s  %6s  %6s  %-22s  %9s  %-22s  %9s  %6s  %6s  %6s  %-22s\n", "collective", "size",
                "type", "redop", "root", "auto ran", "(us)", "fastest", "(us)", "ratio", "choice", "paired", "against");
    for (const AutoVsFastest& v : summary.auto_vs_fastest) {
      out_ << Fmt("# %14s  %12zu  %8s  %6s  %6i  %-22s  %9s  %-22s  %9s  %5.2fx",
                  std::string(CollectiveName(v.collective)).c_str(), v.bytes, NcclTypeName(v.type).c_str(),
                  NcclOpName(v.op).c_str(), v.root, v.auto_ran.empty() ? "-" : v.auto_ran.c_str(),
                  FormatNcclNumber(v.auto_us, 9).c_str(), v.fastest.c_str(), FormatNcclNumber(v.fastest_us, 9).c_str(),
                  v.ratio);
      out_ << (v.choice_ratio.has_value() ? Fmt("  %5.2fx", *v.choice_ratio) : Fmt("  %6s", "-"));
      out_ << (v.paired_ratio.has_value() ? Fmt("  %5.2fx  %-22s", *v.paired_ratio, v.paired_against.c_str())
                                          : Fmt("  %6s  %-22s", "-", "-"));
      if (v.auto_link_ratio.has_value() && !v.calibrated_state) {
        out_ << Fmt("  (outside the calibrated state: link probe %.2fx for auto, %.2fx for %s)", *v.auto_link_ratio,
                    v.fastest_link_ratio.value_or(0), v.fastest.c_str());
      }
      out_ << "\n";
    }
  }
  if (!summary.model_errors.empty()) {
    out_ << "#\n# Model against measurement: median |error| of the out-of-place time per algorithm\n";
    auto print_errors = [this](const std::vector<models::AlgorithmError>& errors) {
      for (const models::AlgorithmError& e : errors) {
        out_ << Fmt("# %14s  %-22s  %6.1f%%  over %d size(s)\n", std::string(CollectiveName(e.collective)).c_str(),
                    std::string(AlgorithmName(e.algorithm)).c_str(), e.median_abs_error_percent, e.rows);
      }
    };
    print_errors(summary.model_errors);
    out_ << Fmt(
        "#\n# The same over the sizes whose link probe was within %.2fx of the profile's (the machine as "
        "calibrated)\n",
        kCalibratedStateTolerance);
    print_errors(summary.model_errors_calibrated_state);
  }
  if (!summary.model_states.empty()) {
    out_ << "#\n# Machine states (--recalibrate): each round of a row is priced with the profile of the state its link "
            "probe found, the row's model time is the median over its rounds, and its link probe is against that "
            "state\n";
    for (size_t i = 0; i < summary.model_states.size(); ++i) {
      const ModelStateInfo& st = summary.model_states[i];
      out_ << Fmt("#   state %zu: %s (link probe exchange %.1f us), measured %s\n", i + 1, st.profile_path.c_str(),
                  st.probe_us, st.measured.c_str());
    }
  }
  out_ << "#\n";
  for (const std::string& e : summary.errors) out_ << "# error: " << e << "\n";
  if (summary.interrupted) out_ << "# interrupted: the rows above are the ones measured\n";
  out_ << Fmt("# %-20s : %lld %s\n", "Out of bounds values", static_cast<long long>(summary.wrong),
              summary.wrong ? "FAILED" : "OK");
  out_ << Fmt("# %-20s : %g (kcoll rows)\n", "Avg bus bandwidth", summary.avg_busbw_kcoll);
  out_ << "#\n# Collective test concluded: " << info_.program << "\n";
  out_.flush();
}

bool NcclTableReporter::ReportContext(const Context&) {
  Flush();
  return true;
}

void NcclTableReporter::ReportRuns(const std::vector<Run>&) { Flush(); }

void NcclTableReporter::Finalize() { Flush(); }

void NcclTableReporter::Flush() {
  const std::string text = buffer_.str();
  if (text.empty()) return;
  GetOutputStream() << text;
  GetOutputStream().flush();
  buffer_.str("");
  buffer_.clear();
}

}  // namespace bench
}  // namespace kcoll
