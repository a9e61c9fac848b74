// A cost measured at a few sizes and interpolated between them: the size-dependent form of a link's alpha-beta
// cost and of the reduction rate gamma.
//
// Why: one (alpha, beta) pair cannot follow a real transport over six orders of magnitude. On shared memory Open
// MPI switches from an eager copy to a single-copy rendezvous at a few KiB (the per-message cost jumps by an order
// of magnitude), and the bandwidth falls once the buffers leave the caches. Like the parameterised LogP model
// (Kielmann et al., "Fast measurement of LogP parameters for message passing platforms", 2000), the profile then
// keeps the measured time per size, and the model reads it back:
//
//  * Seconds(m): log-log interpolation between the two measured sizes around m; beyond the largest one, linear
//    in m at the largest size's rate; below the smallest one, its time (a link: the latency) or, for a curve of
//    `proportional` kind (a reduction), its time scaled by m / smallest size.
//  * SecondsIn(m, w): a message of m bytes that is part of an operation touching w bytes per rank (the collective's
//    buffer) pays Seconds(m) plus, when w's per-byte cost Seconds(w) / w is higher than m's, the difference on its
//    m bytes. A 512 KiB pipeline chunk of a 64 MiB AllReduce is then priced at the 64 MiB rate (the data comes from
//    memory, not from the cache the isolated 512 KiB measurement ran in), while the latency of a small message is
//    not charged again.
//  * Where the points were measured matters as much as their sizes: a message or a reduction inside a collective
//    finds its lines in other caches than one repeated alone (the receive buffer was last read by the peer, the
//    sent bytes were just written by the sender's core, the reduction writes lines the peer has just read), and on
//    shared memory that can cost several times as much. The calibration therefore measures each size inside a
//    collective step (a two-rank ring AllReduce on a buffer of twice the message, calibration/calibrate.h), and the
//    curve records that ratio of buffer to message (`buffer_per_message`): SecondsIn(m, w) reads w's per-byte cost at
//    the size whose step had a buffer of w, w / buffer_per_message. A 2-rank ring AllReduce of S then costs exactly its
//    measured steps (messages of S / 2 in a buffer of S).
#ifndef KCOLL_MODELS_MEASURED_CURVE_H_
#define KCOLL_MODELS_MEASURED_CURVE_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kcoll {
namespace models {

struct CurvePoint {
  double bytes = 0;
  double seconds = 0;
};

struct MeasuredCurve {
  // Sizes strictly increasing and > 0, times > 0 and finite (ValidateCurve). Empty: no curve.
  std::vector<CurvePoint> points;
  // Below the smallest size: proportional to the size (a reduction) rather than flat (a message's latency).
  bool proportional = false;
  // The points were measured inside an operation on buffer_per_message times the point's size per rank (> 0; 1:
  // the size alone, as a ping-pong; below 1 where a point prices several ranks' messages at once, as a node's link
  // carrying the streams of all its ranks). SecondsIn scales the working set by it.
  double buffer_per_message = 1;

  bool empty() const { return points.empty(); }
  double Seconds(double bytes) const;
  double SecondsIn(double bytes, double working_set_bytes) const;
};

// InvalidArgument naming `name` (what the curve is: "profile intra.curve", "link probe curve") and the offending
// point: a curve needs at least two points, sizes strictly increasing and > 0, times finite and > 0, and
// buffer_per_message finite and > 0. An empty curve is valid (absent).
absl::Status ValidateCurve(const MeasuredCurve& curve, absl::string_view name);

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_MEASURED_CURVE_H_
