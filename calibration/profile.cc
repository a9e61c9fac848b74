#include "calibration/profile.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace kcoll {
namespace calibration {
namespace {

absl::StatusOr<LinkFit> FitNamed(const Series& series, FitWeighting weighting, absl::string_view name) {
  absl::StatusOr<LinkFit> fit = FitLink(series.samples, weighting);
  if (!fit.ok()) return absl::InvalidArgumentError(absl::StrCat(name, ": ", fit.status().message()));
  return fit;
}

}  // namespace

FitWeighting OtherWeighting(FitWeighting w) {
  return w == FitWeighting::kRelative ? FitWeighting::kAbsolute : FitWeighting::kRelative;
}

std::string PairsText(const std::vector<std::pair<int, int>>& pairs) {
  std::string out;
  for (const auto& [a, b] : pairs) absl::StrAppend(&out, out.empty() ? "" : ", ", a, "-", b);
  return out;
}

std::string StatName(double percentile) {
  return percentile == 50 ? "median" : absl::StrFormat("%gth-percentile", percentile);
}

const LinkMeasurement& IntraStepSource(const CalibrationResult& result) {
  return !result.intra.exchange.samples.empty() ? result.intra : result.inter;
}

int InterCurveMessagesPerPoint(const CalibrationResult& result) {
  const bool ranks_copy = result.nodes == 1 || result.emulated;
  return result.inter.exchange.samples.empty() || ranks_copy ? 1 : result.inter.streams_per_node;
}

absl::Status FitAll(CalibrationResult& result, FitWeighting weighting) {
  result.weighting = weighting;
  std::vector<std::pair<Series*, std::string>> series;
  for (LinkMeasurement* link : {&result.intra, &result.inter}) {
    if (link->pairs.empty()) continue;
    series.emplace_back(&link->series, absl::StrCat(LinkClassName(link->link_class), " ping-pong"));
  }
  series.emplace_back(&result.reduce, "reduction");
  series.emplace_back(&result.copy_kernel, "copy kernel");
  series.emplace_back(&result.memcpy_series, "memcpy");
  for (auto& [s, name] : series) {
    KCOLL_ASSIGN_OR_RETURN(s->fit, FitNamed(*s, weighting, name));
    s->other_fit = FitLink(s->samples, OtherWeighting(weighting));
  }
  return absl::OkStatus();
}

absl::StatusOr<models::Profile> MakeProfile(const CalibrationResult& result) {
  const bool has_intra = !result.intra.pairs.empty(), has_inter = !result.inter.pairs.empty();
  if (!has_intra && !has_inter) {
    return absl::InvalidArgumentError("calibration result: neither intra-node nor inter-node pairs were measured");
  }
  models::Profile profile;
  profile.intra = has_intra ? result.intra.series.fit.link : result.inter.series.fit.link;
  profile.inter = has_inter ? result.inter.series.fit.link : result.intra.series.fit.link;
  // The measured curves price the messages and reductions (models/measured_curve.h); the fits summarise them.
  // `per_point`: the bytes a point prices per byte of the measured message.
  auto curve = [](const Series& series, bool proportional, double buffer_per_message, double per_point = 1) {
    models::MeasuredCurve c;
    c.proportional = proportional;
    c.buffer_per_message = buffer_per_message / per_point;
    for (const Sample& s : series.samples) {
      if (s.seconds > 0 && s.bytes > 0) c.points.push_back({s.bytes * per_point, s.seconds});
    }
    if (c.points.size() < 2) c.points.clear();
    return c;
  };
  // Every rank copies its own messages (one node, or nodes emulated on one host): a rank cannot reduce while it
  // copies, and a link's price is a message's. Across real nodes the NIC moves the data, and the model prices a
  // round's inter-node transfers by the load on the busiest node's link (models/link_load.h).
  profile.transfers_use_cores = result.nodes == 1 || result.emulated;
  const LinkMeasurement& intra_exchange = IntraStepSource(result);
  const LinkMeasurement& inter_exchange = !result.inter.exchange.samples.empty() ? result.inter : result.intra;
  profile.intra.curve = curve(intra_exchange.exchange, false, kStepBufferPerMessage);
  // The inter-node step ran every crossing pair at once, so each node's link carried streams_per_node messages
  // each way: a point is that load's time, the price of a round that puts as many bytes through the node's link.
  const int inter_messages_per_point = InterCurveMessagesPerPoint(result);
  profile.inter.curve = curve(inter_exchange.exchange, false, kStepBufferPerMessage, inter_messages_per_point);
  // And the step with one stream per node, for the rounds that send one.
  if (inter_messages_per_point > 1) {
    profile.inter.one_stream_curve = curve(result.inter.one_stream, false, kStepBufferPerMessage);
  }
  profile.gamma_s_per_byte = result.reduce.fit.link.beta_s_per_byte;
  // The reduction inside the collective step when there is one (the intra-node class's first): it writes lines the
  // peer has just read, which the isolated sweep's does not.
  const Series& step_reduce = intra_exchange.step_reduce;
  profile.gamma_curve =
      step_reduce.samples.empty() ? curve(result.reduce, true, 1) : curve(step_reduce, true, kStepBufferPerMessage);
  profile.memcpy_bytes_per_s = result.memcpy_series.fit.link.BytesPerSecond();
  // Every rank measures at once: with more ranks than cores on a host, each had that share of a core.
  if (result.cores > 0 && result.host_ranks > result.cores) {
    profile.rank_core_share = static_cast<double>(result.cores) / result.host_ranks;
  }
  // Measured through shared memory: the transport's slot size and single-copy threshold (0: the slots won at every
  // size).
  const ShmSettingsMeasurement& shm = result.shm;
  if (shm.skipped.empty() && shm.slot_bytes > 0) {
    profile.shm_slot_bytes = static_cast<int64_t>(shm.slot_bytes);
    if (shm.single_copy_skipped.empty()) profile.shm_single_copy_bytes = shm.single_copy_threshold;
  }
  std::string shape = result.ranks_per_node > 0
                          ? absl::StrCat(result.nodes, " node(s) x ", result.ranks_per_node, " ranks")
                          : absl::StrCat(result.nodes, " nodes of different sizes");
  profile.description =
      absl::StrCat("kcoll calibration on ", result.host, ", ", result.date, ": ", result.nranks, " ranks, ", shape,
                   result.emulated ? " (emulated nodes)" : "", "; Serial kernels, float32 sum; ",
                   StatName(result.percentile), " of the repetitions; least squares on ",
                   result.weighting == FitWeighting::kRelative ? "relative errors" : "seconds", ". intra: ");
  absl::StrAppend(&profile.description, has_intra ? absl::StrCat("ping-pong ", PairsText(result.intra.pairs))
                                                  : "not measured (one rank per node): the inter-node fit");
  absl::StrAppend(&profile.description, "; inter: ",
                  has_inter ? absl::StrCat("ping-pong ", PairsText(result.inter.pairs),
                                           result.emulated ? " (emulated nodes: shared memory, not a network)" : "")
                            : "not measured (one node): the intra-node fit");
  absl::StrAppend(&profile.description, absl::StrFormat(". Load average %.2f / %.2f (before / after) on %d cores.",
                                                        result.load_before, result.load_after, result.cores));
  KCOLL_RETURN_IF_ERROR(models::ValidateProfile(profile));
  return profile;
}

}  // namespace calibration
}  // namespace kcoll
