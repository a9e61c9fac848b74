// The calibration's one-stream step across nodes: where the inter-node step runs several pairs through each node's
// link, Calibrate() also times the first pair alone, and MakeProfile() turns it into the inter link's
// one_stream_curve. Nodes are declared real here (4 ranks on one host, nodes {0, 1} and {2, 3} of a hand-made
// topology): the measurement's logic is what is tested, not a network.
#include <mpi.h>

#include <memory>
#include <utility>
#include <vector>

#include "base/topology.h"
#include "calibration/calibrate.h"
#include "calibration/profile.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/mpi/mpi_transport.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

calibration::CalibrationOptions Tiny() {
  calibration::CalibrationOptions o;
  o.min_bytes = 8;
  o.max_bytes = 32768;
  o.step_factor = 8;
  o.min_local_bytes = 4096;
  o.min_reps = 3;
  o.max_reps = 20;
  o.seconds_per_size = 0.001;
  o.passes = 2;
  return o;
}

absl::StatusOr<calibration::CalibrationResult> CalibrateOn(bool emulated) {
  Topology topology = MakeEmulatedTopology(WorldRank(), WorldSize(), 2);
  topology.emulated = emulated;
  auto transport = MpiTransport::Create(MPI_COMM_WORLD);
  if (!transport.ok()) return transport.status();
  auto kernels = MakeKernels(ExecBackend::kSerial);
  if (!kernels.ok()) return kernels.status();
  return calibration::Calibrate(**transport, **kernels, MPI_COMM_WORLD, topology, Tiny());
}

TEST(CalibrationOneStream, RealNodesTimeTheFirstCrossingPairAlone) {
  ASSERT_EQ(WorldSize(), 4) << "the test runs 2 nodes of 2 ranks";
  auto result = CalibrateOn(/*emulated=*/false);
  ASSERT_TRUE(result.ok()) << result.status();
  // Every rank knows which pairs ran; only rank 0 holds the series.
  EXPECT_EQ(result->inter.streams_per_node, 2);
  EXPECT_THAT(result->inter.one_stream_pairs, ElementsAre(Pair(0, 2)));
  EXPECT_TRUE(result->intra.one_stream_pairs.empty());
  EXPECT_TRUE(result->intra.one_stream.samples.empty());
  if (WorldRank() != 0) return;
  const std::vector<double> sizes = calibration::SweepSizes(8, 32768, 8);
  ASSERT_EQ(result->inter.one_stream.samples.size(), sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(result->inter.one_stream.samples[i].bytes, sizes[i]);
    EXPECT_GT(result->inter.one_stream.samples[i].seconds, 0);
    EXPECT_GE(result->inter.one_stream.reps[i], 3);
  }
  const absl::Status fitted = calibration::FitAll(*result);
  ASSERT_TRUE(fitted.ok()) << fitted;
  auto profile = calibration::MakeProfile(*result);
  ASSERT_TRUE(profile.ok()) << profile.status();
  // One stream's point is its message (not streams_per_node times it, as the all-pairs curve's), inside the step's
  // buffer of twice the message.
  ASSERT_EQ(profile->inter.one_stream_curve.points.size(), sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(profile->inter.one_stream_curve.points[i].bytes, sizes[i]);
    EXPECT_EQ(profile->inter.one_stream_curve.points[i].seconds, result->inter.one_stream.samples[i].seconds);
  }
  EXPECT_EQ(profile->inter.one_stream_curve.buffer_per_message, calibration::kStepBufferPerMessage);
  EXPECT_EQ(profile->inter.curve.points.front().bytes, 2 * sizes.front());
}

TEST(CalibrationOneStream, EmulatedNodesDoNotMeasureIt) {
  ASSERT_EQ(WorldSize(), 4) << "the test runs 2 nodes of 2 ranks";
  auto result = CalibrateOn(/*emulated=*/true);
  ASSERT_TRUE(result.ok()) << result.status();
  // Emulated nodes' ranks copy their own messages through shared memory: no node link to price.
  EXPECT_TRUE(result->inter.one_stream_pairs.empty());
  EXPECT_TRUE(result->inter.one_stream.samples.empty());
  if (WorldRank() != 0) return;
  const absl::Status fitted = calibration::FitAll(*result);
  ASSERT_TRUE(fitted.ok()) << fitted;
  auto profile = calibration::MakeProfile(*result);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_TRUE(profile->inter.one_stream_curve.empty());
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
