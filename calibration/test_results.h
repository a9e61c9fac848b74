// Calibration results made by hand for the profile and report tests: series lying exactly on a line.
#ifndef KCOLL_CALIBRATION_TEST_RESULTS_H_
#define KCOLL_CALIBRATION_TEST_RESULTS_H_

#include <vector>

#include "base/topology.h"
#include "calibration/calibrate.h"

namespace kcoll {
namespace calibration {

// A series lying exactly on t = alpha + beta * bytes.
inline Series Line(double alpha, double beta, const std::vector<double>& sizes) {
  Series s;
  for (double b : sizes) {
    s.samples.push_back({b, alpha + beta * b});
    s.reps.push_back(10);
  }
  return s;
}

// An emulated topology of `nranks` in nodes of `ranks_per_node`, its first pair of each class measured.
inline CalibrationResult MakeResult(int nranks, int ranks_per_node) {
  const Topology topology = MakeEmulatedTopology(0, nranks, ranks_per_node);
  CalibrationResult r;
  r.nranks = nranks;
  r.nodes = topology.nnodes;
  r.ranks_per_node = ranks_per_node;
  r.emulated = true;
  r.host = "testhost";
  r.date = "today";
  r.intra.link_class = LinkClass::kIntra;
  r.inter.link_class = LinkClass::kInter;
  r.intra.pairs = PairsOfClass(topology, LinkClass::kIntra, false);
  r.inter.pairs = PairsOfClass(topology, LinkClass::kInter, false);
  const std::vector<double> sizes = {8, 1024, 1 << 20};
  if (!r.intra.pairs.empty()) r.intra.series = Line(1e-6, 2e-10, sizes);
  if (!r.inter.pairs.empty()) r.inter.series = Line(3e-6, 5e-10, sizes);
  r.reduce = Line(1e-7, 4e-10, sizes);
  r.copy_kernel = Line(1e-7, 1e-10, sizes);
  r.memcpy_series = Line(0, 1.25e-10, sizes);
  return r;
}

}  // namespace calibration
}  // namespace kcoll

#endif  // KCOLL_CALIBRATION_TEST_RESULTS_H_
