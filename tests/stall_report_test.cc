// The report a timed-out rank appends after comparing positions with the ranks that answered
// (collectives/transport/mpi/stall_report.h): which rank it names as the cause, from positions built here.
#include "collectives/transport/mpi/stall_report.h"

#include <map>
#include <string>

#include "absl/status/status.h"
#include "collectives/transport/call_tracking.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr absl::Duration kWindow = absl::Milliseconds(500);

RankPosition At(int rank, uint64_t call, std::vector<int> waiting_on, std::vector<int> heard_from = {}) {
  RankPosition p;
  p.rank = rank;
  p.call = call;
  p.collective = "all_reduce";
  p.step = 1;
  p.waiting_on = std::move(waiting_on);
  p.heard_from = std::move(heard_from);
  p.began_at = 100.0;
  p.timed_out_at = 101.0;
  return p;
}

// Ranks 0-1 on host n0, 2-3 on n1.
std::string HostOf(int rank) { return rank < 2 ? "n0" : "n1"; }

std::map<int, RankPosition> Answers(std::initializer_list<RankPosition> positions) {
  std::map<int, RankPosition> answers;
  for (const RankPosition& p : positions) answers[p.rank] = p;
  return answers;
}

TEST(StallReportTest, NamesTheSilentRankBehindTheNeighbour) {
  // Rank 3 waits for rank 0, which answered and waits for rank 2, which did not answer.
  const RankPosition mine = At(3, 7, {0});
  const auto answers = Answers({mine, At(0, 7, {2})});
  EXPECT_TRUE(ReportComplete(mine, Answers({mine, At(0, 7, {})})));
  EXPECT_FALSE(ReportComplete(mine, answers));  // rank 2 is still awaited
  const std::string report = ExplainStall(mine, answers, HostOf, kWindow);
  EXPECT_THAT(report, HasSubstr("answered within 500ms (0) at call 7 (all_reduce)"));
  EXPECT_THAT(report, HasSubstr("the cause is rank 2 (host n1) never entered this call"));
  EXPECT_THAT(report, HasSubstr("this rank waits for rank 0, which waits for rank 2"));
  EXPECT_THAT(report, Not(HasSubstr("rank 0 (host")));  // the neighbour is not blamed
}

TEST(StallReportTest, ARankSomeoneHeardFromStoppedInTheCall) {
  const RankPosition mine = At(0, 3, {1});
  const auto answers = Answers({mine, At(2, 3, {1}, {1})});  // rank 2 received from rank 1 in this call
  EXPECT_THAT(ExplainStall(mine, answers, HostOf, kWindow),
              HasSubstr("the cause is rank 1 (host n0) stopped in this call"));
}

TEST(StallReportTest, ARankInAnotherCall) {
  const RankPosition mine = At(0, 5, {1});
  const auto answers = Answers({mine, At(1, 4, {0})});
  EXPECT_THAT(ExplainStall(mine, answers, HostOf, kWindow),
              HasSubstr("rank 1 (host n0) gave up on call 4 (all_reduce, step 1), which this rank got through"));
  EXPECT_THAT(ExplainStall(mine, Answers({mine, At(1, 6, {0})}), HostOf, kWindow),
              HasSubstr("rank 1 (host n0) timed out in call 6 (all_reduce, step 1), past this one (5)"));
}

TEST(StallReportTest, ARankThatGaveUpOnAnEarlierCallLeadsToWhomItWaitedFor) {
  // Rank 0 got through call 4 and waits in call 5 for rank 1, which gave up on call 4 waiting for rank 2 (silent).
  const RankPosition mine = At(0, 5, {1});
  const auto answers = Answers({mine, At(1, 4, {2}, {3})});
  EXPECT_FALSE(ReportComplete(mine, answers));  // rank 2, reached through rank 1's call 4, is awaited
  const std::string report = ExplainStall(mine, answers, HostOf, kWindow);
  EXPECT_THAT(report, HasSubstr("the cause is rank 2 (host n1) never entered call 4"));
  EXPECT_THAT(report, HasSubstr("this rank waits for rank 1, which gave up on call 4 waiting for rank 2"));
  EXPECT_THAT(report, Not(HasSubstr("rank 1 (host")));  // the rank on the way is not blamed
  // A rank of call 4 heard from rank 2 there: it stopped in that call.
  EXPECT_THAT(ExplainStall(mine, Answers({mine, At(1, 4, {2}, {2})}), HostOf, kWindow),
              HasSubstr("the cause is rank 2 (host n1) stopped in call 4"));
}

TEST(StallReportTest, RanksWaitingForEachOther) {
  const RankPosition mine = At(0, 2, {1});
  const auto answers = Answers({mine, At(1, 2, {2}), At(2, 2, {0})});
  EXPECT_TRUE(ReportComplete(mine, answers));
  EXPECT_THAT(ExplainStall(mine, answers, HostOf, kWindow),
              HasSubstr("ranks 1, 2 are in this call too and wait for each other"));
}

TEST(StallReportTest, TheLateRankIsToldItCameLate) {
  RankPosition mine = At(1, 2, {0});
  mine.began_at = 104.0;  // the others gave up at 101
  const auto answers = Answers({mine, At(0, 2, {2}), At(2, 2, {1})});
  EXPECT_THAT(ExplainStall(mine, answers, HostOf, kWindow),
              HasSubstr("this rank is the cause: it began this call 3.000 s after ranks 0, 2 had given up on it"));
}

TEST(StallReportTest, AHostThatHearsFromNoOtherHostMayBeCutOff) {
  const RankPosition mine = At(2, 9, {0, 1});
  const auto answers = Answers({mine, At(3, 9, {0})});  // only its own host's rank answered
  const std::string report = ExplainStall(mine, answers, HostOf, kWindow);
  EXPECT_THAT(report, HasSubstr("the causes are rank 0 (host n0)"));
  EXPECT_THAT(report, HasSubstr("this rank's host n1 may itself be cut off"));
  // When a rank of another host answered, the silent ones are to blame.
  EXPECT_THAT(ExplainStall(mine, Answers({mine, At(1, 9, {0})}), HostOf, kWindow), Not(HasSubstr("cut off")));
}

TEST(StallReportTest, NothingToAddWithoutWaits) {
  const RankPosition mine = At(0, 1, {});
  EXPECT_EQ(ExplainStall(mine, Answers({mine}), HostOf, kWindow), "");
}

TEST(StallReportTest, TimeoutErrorsCarryTheirWaits) {
  TimedOutCall call;
  call.collective = "all_reduce";
  call.algorithm = "ring";
  call.step = 4;
  const absl::Status error = TransfersTimedOut(call, {{false, 2, 8}, {true, 5, 8}, {false, 2, 8}}, "");
  int step = -1;
  std::vector<int> peers;
  ASSERT_TRUE(WaitedPeers(error, &step, &peers));
  EXPECT_EQ(step, 4);
  EXPECT_EQ(peers, (std::vector<int>{2, 5}));
  EXPECT_FALSE(WaitedPeers(absl::DeadlineExceededError("other"), &step, &peers));
}

}  // namespace
}  // namespace kcoll
