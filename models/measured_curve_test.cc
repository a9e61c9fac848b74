#include "models/measured_curve.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/test_util.h"

namespace kcoll {
namespace models {
namespace {

// A link that costs 1 us up to 1 KiB, then runs at 1 GB/s in cache and 0.25 GB/s once 1 MiB is exceeded.
MeasuredCurve Link() {
  return MeasuredCurve{{{1024, 1e-6}, {65536, 65536e-9}, {1 << 20, 1048576e-9}, {1 << 24, 16777216 * 4e-9}}, false};
}

TEST(MeasuredCurveTest, ExactAtTheMeasuredSizes) {
  const MeasuredCurve c = Link();
  for (const CurvePoint& p : c.points) EXPECT_DOUBLE_EQ(c.Seconds(p.bytes), p.seconds) << p.bytes;
}

TEST(MeasuredCurveTest, LogLogBetweenPoints) {
  // Between (65536, 65.536 us) and (1 MiB, 1048.576 us) time is proportional to size: the geometric midpoint of
  // the sizes gets the geometric midpoint of the times.
  const MeasuredCurve c = Link();
  EXPECT_NEAR(c.Seconds(262144), 262144e-9, 1e-15);
  // Between (1 KiB, 1 us) and (64 KiB, 65.536 us): t = 1 us * (b / 1024)^(log(65.536) / log(64)).
  const double b = 8192;
  EXPECT_NEAR(c.Seconds(b), 1e-6 * std::pow(b / 1024, std::log(65.536) / std::log(64.0)), 1e-15);
}

TEST(MeasuredCurveTest, OutsideTheMeasuredSizes) {
  MeasuredCurve c = Link();
  EXPECT_DOUBLE_EQ(c.Seconds(8), 1e-6);                    // a link: the latency
  EXPECT_DOUBLE_EQ(c.Seconds(0), 1e-6);                    // an empty message still costs the latency
  EXPECT_DOUBLE_EQ(c.Seconds(1 << 26), (1 << 26) * 4e-9);  // the largest size's rate
  c.proportional = true;                                   // a reduction
  EXPECT_DOUBLE_EQ(c.Seconds(512), 0.5e-6);
  EXPECT_EQ(c.Seconds(0), 0);
  EXPECT_EQ(MeasuredCurve().Seconds(100), 0);
}

TEST(MeasuredCurveTest, MonotoneInSize) {
  const MeasuredCurve c = Link();
  double last = 0;
  for (double b = 1; b < 1e9; b *= 1.3) {
    EXPECT_GE(c.Seconds(b), last) << b;
    last = c.Seconds(b);
  }
}

TEST(MeasuredCurveTest, AMessageInALargerWorkingSetPaysItsRate) {
  const MeasuredCurve c = Link();
  // 64 KiB alone runs at 1 GB/s; inside a 16 MiB operation the data comes at 0.25 GB/s.
  EXPECT_NEAR(c.SecondsIn(65536, 1 << 24), 65536 * 4e-9, 1e-15);
  // A working set no slower per byte than the message changes nothing.
  EXPECT_DOUBLE_EQ(c.SecondsIn(65536, 262144), c.Seconds(65536));
  EXPECT_DOUBLE_EQ(c.SecondsIn(65536, 0), c.Seconds(65536));
  // A latency-bound message is not charged the latency again: its per-byte cost is already the higher one.
  EXPECT_DOUBLE_EQ(c.SecondsIn(16, 1 << 24), c.Seconds(16));
}

TEST(MeasuredCurveTest, AStepCurveReadsTheWorkingSetAtTheSizeWhoseStepHadThatBuffer) {
  MeasuredCurve c = Link();
  c.buffer_per_message = 2;  // each point was measured inside a step on twice its size
  // 512 KiB in a 1 MiB buffer is the measured step itself: no extra.
  EXPECT_DOUBLE_EQ(c.SecondsIn(524288, 1 << 20), c.Seconds(524288));
  // 64 KiB in a 32 MiB buffer pays the rate of the 16 MiB point (0.25 GB/s), not of 32 MiB.
  EXPECT_NEAR(c.SecondsIn(65536, 1 << 25), 65536 * 4e-9, 1e-15);
  // 64 KiB in a 1 MiB buffer: the 512 KiB point runs at 1 GB/s, like 64 KiB: nothing to add.
  EXPECT_DOUBLE_EQ(c.SecondsIn(65536, 1 << 20), c.Seconds(65536));
  c.buffer_per_message = 1;
  EXPECT_GT(c.SecondsIn(65536, 1 << 21), c.Seconds(65536));  // alone, 2 MiB is out of cache
}

TEST(MeasuredCurveTest, Validation) {
  MeasuredCurve step = Link();
  step.buffer_per_message = 0;
  EXPECT_THAT(ValidateCurve(step, "profile intra.curve"),
              IsInvalidArgument("profile intra.curve buffer_per_message=0 must be finite and > 0"));
  step.buffer_per_message = -2;
  EXPECT_THAT(ValidateCurve(step, "profile intra.curve"), IsInvalidArgument("buffer_per_message=-2"));
  step.buffer_per_message = NAN;
  EXPECT_THAT(ValidateCurve(step, "profile intra.curve"), IsInvalidArgument("buffer_per_message=nan"));
  step.buffer_per_message = 0.5;  // a node's link carrying two ranks' messages of a step on twice the message
  EXPECT_TRUE(ValidateCurve(step, "profile inter.curve").ok());
  step.buffer_per_message = INFINITY;
  EXPECT_THAT(ValidateCurve(step, "profile gamma_curve"), IsInvalidArgument("gamma_curve buffer_per_message=inf"));
  EXPECT_TRUE(ValidateCurve(MeasuredCurve(), "profile intra.curve").ok());
  EXPECT_TRUE(ValidateCurve(Link(), "profile intra.curve").ok());
  EXPECT_THAT(ValidateCurve(MeasuredCurve{{{8, 1e-6}}, false}, "profile intra.curve"),
              IsInvalidArgument("profile intra.curve has 1 point; a curve needs at least 2"));
  EXPECT_THAT(ValidateCurve(MeasuredCurve{{{8, 1e-6}, {8, 2e-6}}, false}, "profile inter.curve"),
              IsInvalidArgument("inter.curve[1] bytes=8 must be finite, > 0 and above the previous point's"));
  EXPECT_THAT(ValidateCurve(MeasuredCurve{{{0, 1e-6}, {8, 2e-6}}, false}, "x"), IsInvalidArgument("x[0] bytes=0"));
  EXPECT_THAT(ValidateCurve(MeasuredCurve{{{8, 1e-6}, {16, 0}}, false}, "profile gamma_curve"),
              IsInvalidArgument("gamma_curve[1] seconds=0 must be finite and > 0"));
  EXPECT_THAT(ValidateCurve(MeasuredCurve{{{8, 1e-6}, {16, NAN}}, false}, "g"), IsInvalidArgument("g[1] seconds=nan"));
}

}  // namespace
}  // namespace models
}  // namespace kcoll
