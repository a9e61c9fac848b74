#include "calibration/report.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/byte_size.h"
#include "base/seconds_format.h"
#include "calibration/profile.h"
#include "calibration/shm_settings.h"
#include "choice/auto_choice.h"
#include "collectives/algorithms/registry.h"
#include "models/measured_curve.h"

namespace kcoll {
namespace calibration {
namespace {

bool Busy(const CalibrationResult& r) { return r.cores > 0 && std::max(r.load_before, r.load_after) > r.cores + 0.5; }

std::string Gbps(double bytes_per_s) { return absl::StrFormat("%.3g GB/s", bytes_per_s / 1e9); }

// A series as a table with the fit's prediction and error per size, then the fit.
std::string SeriesTable(const Series& series, bool link) {
  std::string out = absl::StrFormat("  %12s %7s %12s %11s %12s %8s\n", "bytes", "reps", link ? "one-way" : "time",
                                    "GB/s", "fit", "error");
  for (size_t i = 0; i < series.samples.size(); ++i) {
    const Sample& s = series.samples[i];
    const double fitted = series.fit.link.Seconds(s.bytes);
    const double error = s.seconds > 0 ? 100.0 * (fitted - s.seconds) / s.seconds : 0;
    absl::StrAppend(&out, absl::StrFormat("  %12.0f %7d %12s %11.3f %12s %+7.1f%%\n", s.bytes, series.reps[i],
                                          FormatSeconds(s.seconds), s.seconds > 0 ? s.bytes / s.seconds / 1e9 : 0.0,
                                          FormatSeconds(fitted), error));
  }
  return out;
}

// A series of the collective step beside the same sizes measured alone (ping-pong, or the reduction sweep, read
// between its sizes as the model reads a curve); `-` outside the sizes measured alone.
std::string StepTable(const Series& step, const Series& alone, bool proportional, absl::string_view what,
                      absl::string_view rate, absl::string_view alone_name) {
  models::MeasuredCurve reference;
  reference.proportional = proportional;
  for (const Sample& s : alone.samples) reference.points.push_back({s.bytes, s.seconds});
  std::string out = absl::StrFormat("  %12s %7s %12s %13s %12s\n", "bytes", "reps", what, rate, alone_name);
  for (size_t i = 0; i < step.samples.size(); ++i) {
    const Sample& s = step.samples[i];
    const bool inside = !reference.empty() && s.bytes >= reference.points.front().bytes &&
                        s.bytes <= reference.points.back().bytes && s.seconds > 0;
    absl::StrAppend(&out,
                    absl::StrFormat("  %12.0f %7d %12s %13.3f %12s\n", s.bytes, step.reps[i], FormatSeconds(s.seconds),
                                    s.seconds > 0 ? s.bytes / s.seconds / 1e9 : 0.0,
                                    inside ? absl::StrFormat("%.2fx", s.seconds / reference.Seconds(s.bytes)) : "-"));
  }
  return out;
}

std::string FitLine(const LinkFit& fit, const std::string& kind, absl::string_view alpha_name,
                    absl::string_view beta_name) {
  return absl::StrFormat("  %s: %s = %s, %s = %.4g s/B (%s), R^2 = %.6f%s\n", kind, alpha_name,
                         FormatSeconds(fit.link.alpha_s), beta_name, fit.link.beta_s_per_byte,
                         Gbps(fit.link.BytesPerSecond()), fit.r_squared,
                         fit.intercept_clamped ? " (the free fit's intercept was negative: alpha fixed at 0)" : "");
}

std::string WeightingText(FitWeighting w) {
  return w == FitWeighting::kRelative ? "fit on relative errors" : "fit on seconds (large sizes dominate)";
}

// The table, the saved fit and the other one for reference.
std::string SeriesReport(const Series& series, FitWeighting saved, bool link, absl::string_view alpha_name,
                         absl::string_view beta_name) {
  const std::string other = WeightingText(OtherWeighting(saved));
  return absl::StrCat(
      SeriesTable(series, link), FitLine(series.fit, WeightingText(saved) + "; saved", alpha_name, beta_name),
      series.other_fit.ok() ? FitLine(*series.other_fit, other, alpha_name, beta_name)
                            : absl::StrCat("  ", other, ": none (", series.other_fit.status().message(), ")\n"));
}

// The shared-memory settings' sweeps: the ring's step through slots of each size, then read from the sender's
// memory, and what they chose.
std::string ShmSettingsReport(const ShmSettingsMeasurement& m) {
  if (!m.skipped.empty()) return absl::StrCat("\nshared-memory settings: not measured (", m.skipped, ")\n");
  std::string out = absl::StrCat(
      "\nshared-memory settings: the ring's step (receive reduced into this rank's half, then receive the peer's "
      "result), every pair of a node at once, through slots of each size",
      m.single_copy_skipped.empty()
          ? " and read straight from the sender's memory (single copy; single/slots: against the chosen slots timed "
            "in the same passes)"
          : "",
      "\n");
  absl::StrAppend(&out, absl::StrFormat("  %12s", "bytes"));
  for (size_t bytes : m.slot_candidates) {
    absl::StrAppend(&out, absl::StrFormat(" %12s", absl::StrCat(FormatByteSize(bytes), " slots")));
  }
  if (m.single_copy_skipped.empty())
    absl::StrAppend(&out, absl::StrFormat(" %12s %12s", "single copy", "single/slots"));
  absl::StrAppend(&out, "\n");
  const Series& chosen = m.chosen_slots();
  for (size_t i = 0; i < chosen.samples.size(); ++i) {
    absl::StrAppend(&out, absl::StrFormat("  %12.0f", chosen.samples[i].bytes));
    for (const Series& s : m.slot_series) {
      absl::StrAppend(&out, absl::StrFormat(" %12s", i < s.samples.size() ? FormatSeconds(s.samples[i].seconds) : "-"));
    }
    // Single copy against the chosen slots measured in the same passes.
    if (m.single_copy_skipped.empty() && i < m.single_copy.samples.size() && i < m.single_copy_slots.samples.size()) {
      const double slots = m.single_copy_slots.samples[i].seconds, single = m.single_copy.samples[i].seconds;
      absl::StrAppend(&out, absl::StrFormat(" %12s %12s", FormatSeconds(single),
                                            slots > 0 ? absl::StrFormat("%.2fx", single / slots) : "-"));
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "  slot size: ", FormatByteSize(m.slot_bytes),
                  m.slot_bytes == m.default_slot_bytes
                      ? absl::StrFormat(" (the default; no other size's time summed over the sizes, relative to the "
                                        "fastest, was under %.2fx its own)",
                                        kSlotBytesMargin)
                      : absl::StrCat(" (the lowest time summed over the sizes, relative to the fastest; the default ",
                                     FormatByteSize(m.default_slot_bytes), ")"),
                  "\n");
  if (!m.single_copy_skipped.empty()) {
    absl::StrAppend(&out, "  single copy: not measured (", m.single_copy_skipped, ")\n");
  } else {
    absl::StrAppend(
        &out, "  single copy threshold: ",
        m.single_copy_threshold > 0
            ? absl::StrFormat("from %s (single copy at most %.2fx the slots' time from there on)",
                              FormatByteSize(static_cast<size_t>(m.single_copy_threshold)), kSingleCopyMargin)
            : absl::StrFormat("never (single copy is not under %.2fx the slots' time at the largest size)",
                              kSingleCopyMargin),
        "\n");
  }
  return out;
}

}  // namespace

std::string FormatReport(const CalibrationResult& result, const models::Profile& profile) {
  std::string out =
      absl::StrCat("kcoll calibration on ", result.host, ", ", result.date, "\n", result.nranks, " ranks on ",
                   result.nodes, result.emulated ? " emulated" : "", " node(s)",
                   result.ranks_per_node > 0 ? absl::StrCat(" of ", result.ranks_per_node, " ranks") : "", "\n");
  absl::StrAppend(&out, absl::StrFormat("load average (1 min) %.2f before, %.2f after, on %d cores\n",
                                        result.load_before, result.load_after, result.cores));
  if (profile.rank_core_share < 1) {
    absl::StrAppend(&out, absl::StrFormat("%d ranks on a host of %d cores: each rank measured with %.2f of a core "
                                          "(rank_core_share)\n",
                                          result.host_ranks, result.cores, profile.rank_core_share));
  }
  if (Busy(result)) {
    absl::StrAppend(&out,
                    "WARNING: other work was running (load average above the core count); the timings include it. "
                    "Calibrate on a quiet machine.\n");
  }
  if (result.emulated && !result.inter.pairs.empty()) {
    absl::StrAppend(&out,
                    result.transport.empty() || result.transport == "mpi"
                        ? "Nodes are emulated (consecutive ranks grouped): inter-node pairs talk through MPI's shared "
                          "memory, exactly like intra-node pairs, so the two classes differ only by noise.\n"
                        : "Nodes are emulated (consecutive ranks grouped): intra-node pairs talk through kcoll's "
                          "shared memory, inter-node pairs through MPI (on the same host).\n");
  }
  const LinkMeasurement* gamma_source = &IntraStepSource(result);  // MakeProfile's gamma curve
  for (const LinkMeasurement* link : {&result.intra, &result.inter}) {
    const char* name = LinkClassName(link->link_class);
    if (link->pairs.empty()) {
      absl::StrAppend(&out, "\n", name, " link: no such pair in this topology; the profile uses the other class\n");
      continue;
    }
    absl::StrAppend(&out, "\n", name, " link: ping-pong through kcoll's ",
                    result.transport.empty() ? "MPI" : result.transport, " transport, pair(s) ", PairsText(link->pairs),
                    "; one-way = ", StatName(result.percentile), " round trip / 2",
                    link->pairs.size() > 1 ? ", median over the pairs" : "", "\n");
    absl::StrAppend(&out, SeriesReport(link->series, result.weighting, true, "alpha", "beta"));
    if (link->step_spread.bytes > 0) {
      const PassSpread& s = link->step_spread;
      absl::StrAppend(
          &out, absl::StrFormat("  the step's passes: slowest / fastest up to %.2fx (at %.0f B)%s\n", s.ratio, s.bytes,
                                s.ratio > kPassSpreadWarning ? "" : "; each size keeps its fastest"));
      if (s.ratio > kPassSpreadWarning) {
        absl::StrAppend(
            &out, absl::StrFormat("  WARNING: the machine changed speed while it was measured (%.1fx at %.0f B); the "
                                  "profile keeps each size's fastest pass. Calibrate again, or read the benchmarks' "
                                  "link probe (bench --model) before trusting the model.\n",
                                  s.ratio, s.bytes));
      }
    }
    if (!link->exchange.samples.empty()) {
      const int messages_per_point = link == &result.inter ? InterCurveMessagesPerPoint(result) : 1;
      absl::StrAppend(&out, "  collective step, pair(s) ", PairsText(link->exchange_pairs),
                      " at once (a 2-rank ring AllReduce on twice the size): its exchange, both ways (the curve the "
                      "profile prices ",
                      messages_per_point > 1
                          ? absl::StrCat("a node's link with, at ", messages_per_point,
                                         " times the message: that many streams crossed each node's link each way)\n")
                          : "messages with)\n",
                      StepTable(link->exchange, link->series, false, "exchange", "GB/s each way", "/ ping-pong"));
      absl::StrAppend(&out, "  and its reduction (bytes reduced, one input",
                      link == gamma_source ? "; the profile's gamma curve" : "", ")\n",
                      StepTable(link->step_reduce, result.reduce, true, "reduction", "GB/s", "/ alone"));
    }
    if (!link->one_stream.samples.empty()) {
      absl::StrAppend(
          &out, "  the same step on pair ", PairsText(link->one_stream_pairs),
          " alone, the other ranks polling as a collective's waiting ranks do: one stream through each node's link "
          "each way (the curve the profile prices rounds of one stream per node with)\n",
          StepTable(link->one_stream, link->exchange, false, "exchange", "GB/s each way", "/ all pairs"));
    }
  }
  absl::StrAppend(&out, "\nlocal reduction: Serial kernels, float32 sum, dst = a + b, all ", result.nranks,
                  " ranks at once (", StatName(result.percentile),
                  " per rank, median over ranks); bytes = bytes reduced (one input)\n",
                  SeriesReport(result.reduce, result.weighting, false, "launch", "gamma"));
  absl::StrAppend(&out, "\ncopy: Serial Copy kernel, all ranks at once\n",
                  SeriesReport(result.copy_kernel, result.weighting, false, "launch", "1/bandwidth"));
  absl::StrAppend(&out, "\ncopy: std::memcpy, all ranks at once\n",
                  SeriesReport(result.memcpy_series, result.weighting, false, "overhead", "1/bandwidth"));
  absl::StrAppend(&out, ShmSettingsReport(result.shm));
  absl::StrAppend(&out, "\nprofile:\n",
                  absl::StrFormat("  intra: alpha = %s, beta = %.4g s/B (%s)\n", FormatSeconds(profile.intra.alpha_s),
                                  profile.intra.beta_s_per_byte, Gbps(profile.intra.BytesPerSecond())),
                  absl::StrFormat("  inter: alpha = %s, beta = %.4g s/B (%s)\n", FormatSeconds(profile.inter.alpha_s),
                                  profile.inter.beta_s_per_byte, Gbps(profile.inter.BytesPerSecond())),
                  absl::StrFormat("  gamma = %.4g s/B (%s reduced per rank)\n", profile.gamma_s_per_byte,
                                  Gbps(1.0 / profile.gamma_s_per_byte)),
                  absl::StrFormat("  memcpy = %s\n", Gbps(profile.memcpy_bytes_per_s)));
  if (profile.shm_slot_bytes.has_value()) {
    absl::StrAppend(&out, "  shared-memory slots: ", FormatByteSize(static_cast<size_t>(*profile.shm_slot_bytes)),
                    " (KCOLL_SHM_SLOT_BYTES overrides it)\n");
  }
  if (profile.shm_single_copy_bytes.has_value()) {
    absl::StrAppend(&out, "  shared-memory single copy: ",
                    *profile.shm_single_copy_bytes > 0
                        ? absl::StrCat("from ", FormatByteSize(static_cast<size_t>(*profile.shm_single_copy_bytes)))
                        : std::string("never"),
                    " (KCOLL_SHM_SINGLE_COPY overrides it)\n");
  }
  return out;
}

std::string FormatAutoChoices(const Topology& topology, const models::Profile& profile,
                              const std::vector<size_t>& sizes) {
  absl::StatusOr<AutoChoice> choice = AutoChoice::Create(topology, ProfileChoice{profile, "measured"});
  if (!choice.ok()) return absl::StrCat("auto: ", choice.status().message(), "\n");
  std::string out = absl::StrCat("\nauto's choice with this profile on ", topology.nranks, " ranks (", topology.nnodes,
                                 " node(s)), among the registered algorithms:\n");
  absl::StrAppend(&out, absl::StrFormat("  %-16s", "collective"));
  for (size_t bytes : sizes) absl::StrAppend(&out, absl::StrFormat(" %20s", absl::StrCat(bytes, " B")));
  absl::StrAppend(&out, "\n");
  for (Collective c : AllCollectives()) {
    if (AlgorithmsFor(c).empty() || c == Collective::kBarrier) continue;
    absl::StrAppend(&out, absl::StrFormat("  %-16s", CollectiveName(c)));
    for (size_t bytes : sizes) {
      absl::StatusOr<Algorithm> a = choice->Choose(c, bytes);
      absl::StrAppend(&out, absl::StrFormat(" %20s", a.ok() ? std::string(AlgorithmName(*a)) : "error"));
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace calibration
}  // namespace kcoll
