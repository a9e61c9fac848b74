// The table and JSON reporters on a synthetic run: nccl-tests' structure (header lines, columns, footers) and JSON
// keys, kcoll's additions, and the pairing of out-of-place and in-place halves into rows.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "bench/reports/json_report.h"
#include "bench/reports/results.h"
#include "bench/reports/table_report.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/matchers.h"

namespace kcoll {
namespace bench {
namespace {

RunInfo Info() {
  RunInfo info;
  info.program = "all_reduce";
  info.collectives = {Collective::kAllReduce};
  info.min_bytes = 1024;
  info.max_bytes = 2048;
  info.step_factor = 2;
  info.warmup_iters = 1;
  info.iters = 3;
  info.agg_iters = 1;
  info.check = 1;
  info.time_across = "max";
  info.nranks = 2;
  info.ranks_per_node = 2;
  info.exec = "serial";
  info.exec_note = "one thread per rank";
  info.launch = "mpirun -np 2";
  info.ranks = {{0, 0, 100, "host"}, {1, 0, 101, "host"}};
  info.ideal_busbw_gbps = 10.0;
  info.ideal_note = "intra 10 GB/s";
  info.args = {"all_reduce", "-b", "1K"};
  info.start_time = "2024-01-01 00:00:00";
  info.versions = "test";
  return info;
}

Row Identity(const std::string& impl, const std::string& kind, size_t bytes) {
  Row r;
  r.collective = Collective::kAllReduce;
  r.implementation = impl;
  r.kind = kind;
  r.bytes = bytes;
  r.count = bytes / 4;
  r.type = DataType::kFloat32;
  r.op = ReduceOp::kSum;
  r.root = -1;
  r.ideal_busbw_gbps = 10.0;
  return r;
}

Measurement M(double time_us, double busbw, int64_t wrong) {
  Measurement m;
  m.time_us = time_us;
  m.algbw_gbps = busbw;
  m.busbw_gbps = busbw;
  m.wrong = wrong;
  m.iterations = 3;
  return m;
}

// kcoll rows of 1024 B, one per (implementation, out-of-place microseconds), in that order.
std::vector<Row> TimedKcollRows(const std::vector<std::pair<std::string, double>>& times) {
  std::vector<Row> rows;
  for (const auto& [impl, us] : times) {
    Row r = Identity(impl, "kcoll", 1024);
    r.out_of_place = M(us, 4.0, 0);
    rows.push_back(r);
  }
  return rows;
}

// Feeds a run of two blocks (MPI peer then kcoll ring) of two sizes each.
void FeedRun(ResultSink& sink, int64_t wrong_in_ring = 0) {
  sink.Start();
  for (size_t bytes : {1024, 2048}) {
    sink.Record(Identity("MPI_Allreduce", "mpi", bytes), false, M(10, 2.0, 0));
    sink.Record(Identity("MPI_Allreduce", "mpi", bytes), true, M(11, 1.5, 0));
  }
  sink.Note(Collective::kAllReduce, "gloo", "gloo", "skipped (not implemented): no float16");
  for (size_t bytes : {1024, 2048}) {
    sink.Record(Identity("ring", "kcoll", bytes), false, M(5, 4.0, wrong_in_ring));
    sink.Record(Identity("ring", "kcoll", bytes), true, M(6, 3.0, 0));
  }
  sink.Finish();
}

std::vector<std::string> Lines(const std::string& text) { return absl::StrSplit(text, '\n', absl::SkipEmpty()); }

TEST(FormatTest, NcclNumberWidths) {
  EXPECT_EQ(FormatNcclNumber(1.234, 7), "   1.23");
  EXPECT_EQ(FormatNcclNumber(12345.6, 7), "12345.6");
  EXPECT_EQ(FormatNcclNumber(1234567, 7), "1234567");
  EXPECT_EQ(FormatNcclNumber(123456789, 7), "1.2e+08");
  EXPECT_EQ(FormatNcclNumber(0.004, 6), "  0.00");
  EXPECT_EQ(FormatNcclNumber(999.99, 6), "999.99");
}

// Ranks on device buffers show the CUDA device they run on: two ranks sharing a node's one GPU both show device 0.
TEST(TableTest, RanksOnDeviceBuffersShowTheirCudaDevice) {
  std::ostringstream out;
  TableWriter table(out);
  RunInfo info = Info();
  info.exec = "cuda";
  info.ranks = {{0, 0, 100, "host", 0}, {1, 0, 101, "host", 0}};
  ResultSink sink(info);
  sink.AddListener(&table);
  FeedRun(sink);
  EXPECT_THAT(out.str(), HasSubstr("#  Rank  1 Group  0 Pid    101 on       host device  0 [node 0] CPU cuda\n"));
}

TEST(TableTest, HeaderRowsAndFootersHaveNcclTestsStructure) {
  std::ostringstream out;
  TableWriter table(out);
  ResultSink sink(Info());
  sink.AddListener(&table);
  FeedRun(sink);
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("# Collective test starting: all_reduce\n"));
  EXPECT_THAT(text, HasSubstr("# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 1 "
                              "iters: 3 agg iters: 1 validation: 1 graph: 0\n"));
  EXPECT_THAT(text, HasSubstr("#  Rank  0 Group  0 Pid    100 on       host device  0 [node 0] CPU serial\n"));
  EXPECT_THAT(text, HasSubstr("#  Rank  1 Group  0 Pid    101 on       host device  1 [node 0] CPU serial\n"));
  EXPECT_THAT(text, HasSubstr("# all_reduce: MPI_Allreduce (mpi peer)\n"));
  EXPECT_THAT(text, HasSubstr("# all_reduce: ring (kcoll algorithm)\n"));
  EXPECT_THAT(text, HasSubstr("# skipped (not implemented): no float16\n"));
  EXPECT_THAT(text, HasSubstr("# Out of bounds values : 0 OK\n"));
  EXPECT_THAT(text, HasSubstr("# Avg bus bandwidth    : 1.75 \n"));  // MPI block: (2 + 1.5 + 2 + 1.5) / 4
  EXPECT_THAT(text, HasSubstr("# Avg bus bandwidth    : 3.5 \n"));   // ring block
  EXPECT_THAT(text, HasSubstr("# Collective test concluded: all_reduce\n"));

  // nccl-tests' column header, then kcoll's columns after it.
  const std::vector<std::string> header = TableWriter::ColumnHeader(false);
  ASSERT_EQ(header.size(), 3u);
  EXPECT_THAT(header[1], StartsWith("#       size         count      type   redop    root     time   algbw   busbw "
                                    " #wrong     time   algbw   busbw  #wrong"));
  EXPECT_THAT(header[2], StartsWith("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"));

  // Each data line: 13 nccl-tests fields then ideal, two efficiencies, and the ratio to MPI.
  int data_lines = 0;
  for (const std::string& line : Lines(text)) {
    if (line[0] == '#') continue;
    ++data_lines;
    std::vector<std::string> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    ASSERT_EQ(f.size(), 17u) << line;
    EXPECT_EQ(f[2], "float");
    EXPECT_EQ(f[3], "sum");
    EXPECT_EQ(f[4], "-1");
    EXPECT_EQ(f[13], "10.00");  // ideal
    if (f[0] == "1024" && line.find("  4.00") != std::string::npos) {
      EXPECT_EQ(f[14], "40.00");  // 4 of 10 GB/s out of place
      EXPECT_EQ(f[15], "30.00");
      EXPECT_EQ(f[16], "2.00");  // 4.0 / MPI's 2.0
    }
  }
  EXPECT_EQ(data_lines, 4);
  EXPECT_THAT(text, HasSubstr("Best kcoll algorithm against the MPI peer"));
}

TEST(TableTest, TheHeaderSaysWhatTheRowsWaitWith) {
  RunInfo info = Info();
  {
    std::ostringstream out;
    TableWriter table(out);
    ResultSink sink(info);
    sink.AddListener(&table);
    FeedRun(sink);
    EXPECT_THAT(out.str(), Not(HasSubstr("# Timeout:")));
  }
  info.timeout_note = "rows named '<algorithm> timeout=30s' run on a communicator whose waits poll";
  std::ostringstream out;
  TableWriter table(out);
  ResultSink sink(info);
  sink.AddListener(&table);
  FeedRun(sink);
  EXPECT_THAT(out.str(), HasSubstr("# Timeout: rows named '<algorithm> timeout=30s' run on a communicator whose "
                                   "waits poll\n"));
}

TEST(TableTest, PerIterationColumnsAndMissingChecks) {
  Row row = Identity("ring", "kcoll", 1024);
  Measurement m = M(5, 4, 0);
  m.wrong.reset();
  m.stats = ComputeIterationStats({4, 5, 6});
  row.out_of_place = m;
  row.in_place = m;
  const std::string line = TableWriter::FormatRow(row, /*per_iter_timing=*/true);
  std::vector<std::string> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
  ASSERT_EQ(f.size(), 25u) << line;  // 5 + 2 * (4 + 4) + 4
  EXPECT_EQ(f[8], "N/A");            // #wrong without -c
  EXPECT_EQ(f[9], "4.00");           // i_min
  EXPECT_EQ(f[10], "6.00");          // i_max
  EXPECT_EQ(TableWriter::ColumnHeader(true).size(), 3u);
  EXPECT_THAT(TableWriter::ColumnHeader(true)[1], HasSubstr("i_min"));
}

// --model: two more columns (model time, error against the out-of-place time), auto's priced algorithm, the footer
// with the median |error| per algorithm, and the JSON fields.
TEST(TableTest, ModelColumnsAndFooter) {
  RunInfo info = Info();
  info.model = true;
  info.model_note = "alpha-beta on 1 node x 2 ranks";
  std::ostringstream out;
  TableWriter table(out);
  ResultSink sink(info);
  sink.AddListener(&table);
  sink.Start();
  const double errors[] = {10, -30, 50};
  size_t bytes = 1024;
  for (double error : errors) {
    Row id = Identity("auto", "kcoll", bytes);
    id.model_algorithm = Algorithm::kRing;
    Measurement m = M(5, 4.0, 0);
    m.model_us = 5 * (1 + error / 100);
    m.model_error_pct = error;
    sink.Record(id, false, m);
    sink.Record(id, true, M(6, 3.0, 0));
    bytes *= 2;
  }
  sink.Record(Identity("MPI_Allreduce", "mpi", 1024), false, M(10, 2.0, 0));
  sink.Record(Identity("MPI_Allreduce", "mpi", 1024), true, M(10, 2.0, 0));
  sink.Finish();
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("# Model: alpha-beta on 1 node x 2 ranks\n"));
  EXPECT_THAT(text, HasSubstr("      model    error"));
  EXPECT_THAT(text, HasSubstr("# Model against measurement: median |error| of the out-of-place time per algorithm"));
  EXPECT_THAT(text, HasSubstr("#     all_reduce  ring                      30.0%  over 3 size(s)\n"));
  for (const std::string& line : Lines(text)) {
    if (line[0] == '#') continue;
    std::vector<std::string> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (f[0] == "1024" && f.size() == 21) {  // the auto row: 17 fields, model, error, link probe, priced algorithm
      EXPECT_EQ(f[17], "5.50");
      EXPECT_EQ(f[18], "+10%");
      EXPECT_EQ(f[19], "-");  // no probe in this run
      EXPECT_EQ(f[20], "ring");
    } else if (f[0] == "1024") {  // the MPI row: no model
      ASSERT_EQ(f.size(), 20u) << line;
      EXPECT_EQ(f[17], "-");
      EXPECT_EQ(f[18], "-");
      EXPECT_EQ(f[19], "-");
    }
  }
  const std::vector<models::AlgorithmError> summary = ModelErrors(sink.rows());
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(summary[0].rows, 3);
  EXPECT_DOUBLE_EQ(summary[0].median_abs_error_percent, 30);
}

// An auto row whose rounds ran different algorithms (--recalibrate) says which, in the table and the JSON.
TEST(TableTest, AutoRowSaysWhatItsRoundsRan) {
  Row row = Identity("auto", "kcoll", 1024);
  EXPECT_EQ(AutoRanText(row), "");
  row.model_algorithm = Algorithm::kRing;
  row.out_of_place = M(5, 4.0, 0);
  EXPECT_EQ(AutoRanText(row), "ring");
  row.out_of_place->round_algorithms = {Algorithm::kRing, Algorithm::kRing, Algorithm::kRing};
  EXPECT_EQ(AutoRanText(row), "ring");
  row.out_of_place->round_algorithms = {
      Algorithm::kHierarchical, Algorithm::kRing,         Algorithm::kRecursiveDoubling,
      Algorithm::kRing,         Algorithm::kHierarchical, Algorithm::kRing,
      Algorithm::kRing};
  EXPECT_EQ(AutoRanText(row), "ring (hierarchical in 2, recursive_doubling in 1 of 7 rounds)");

  RunInfo info = Info();
  info.model = true;
  std::ostringstream out;
  TableWriter table(out);
  const std::string path = ::testing::TempDir() + "/auto_rounds.json";
  JsonReport json(path);
  ASSERT_TRUE(json.Open().ok());
  ResultSink sink(info);
  sink.AddListener(&table);
  sink.AddListener(&json);
  sink.Start();
  Measurement m = *row.out_of_place;
  m.model_us = 5;
  m.model_error_pct = 0;
  Row id = row;
  id.out_of_place.reset();
  sink.Record(id, false, m);
  sink.Record(id, true, M(6, 3.0, 0));
  sink.Finish();
  ASSERT_TRUE(json.status().ok()) << json.status();
  EXPECT_THAT(out.str(), HasSubstr("  ring (hierarchical in 2, recursive_doubling in 1 of 7 rounds)\n"));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(text.str());
  ASSERT_EQ(doc["results"].size(), 1u);
  EXPECT_EQ(doc["results"][0]["model_algorithm"], "ring");
  EXPECT_EQ(doc["results"][0]["model_round_algorithms"],
            nlohmann::json({"hierarchical", "ring", "recursive_doubling", "ring", "hierarchical", "ring", "ring"}));
}

// The link probe's ratio per row; the model errors over the rows in the calibrated state; auto against the fastest
// algorithm that ran in the same state.
TEST(TableTest, LinkProbeSplitsModelErrorsAndAutoComparison) {
  RunInfo info = Info();
  info.model = true;
  std::ostringstream out;
  TableWriter table(out);
  ResultSink sink(info);
  sink.AddListener(&table);
  sink.Start();
  // (implementation, time us, model error %, link ratio): ring ran in the calibrated state, tree in a 3x slower one
  // (and looks slow), auto ran ring in the calibrated state.
  struct Case {
    const char* impl;
    Algorithm algorithm;
    size_t bytes;
    double us, error, link;
  };
  const Case cases[] = {{"ring", Algorithm::kRing, 1024, 10, 20, 1.1},
                        {"tree", Algorithm::kTree, 1024, 9, -60, 3.0},
                        {"tree", Algorithm::kTree, 2048, 30, -80, 0.5},
                        {"auto", Algorithm::kRing, 1024, 11, 5, 0.9}};
  for (const Case& c : cases) {
    Row id = Identity(c.impl, "kcoll", c.bytes);
    id.model_algorithm = c.algorithm;
    Measurement m = M(c.us, 4.0, 0);
    m.model_us = c.us * (1 + c.error / 100);
    m.model_error_pct = c.error;
    m.link_ratio = c.link;
    sink.Record(id, false, m);
    sink.Record(id, true, M(c.us, 4.0, 0));
  }
  sink.Finish();
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("    link\n"));
  EXPECT_THAT(text, HasSubstr(" 3.00x"));
  EXPECT_TRUE(InCalibratedState(1.1));
  EXPECT_TRUE(InCalibratedState(1 / 1.25));
  EXPECT_FALSE(InCalibratedState(1.31));
  EXPECT_FALSE(InCalibratedState(0.5));
  EXPECT_FALSE(InCalibratedState(0));
  const std::vector<models::AlgorithmError> all = ModelErrors(sink.rows());
  const std::vector<models::AlgorithmError> calibrated = ModelErrors(sink.rows(), /*calibrated_state_only=*/true);
  auto find = [](const std::vector<models::AlgorithmError>& v, Algorithm a) -> const models::AlgorithmError* {
    for (const models::AlgorithmError& e : v) {
      if (e.algorithm == a) return &e;
    }
    return nullptr;
  };
  ASSERT_NE(find(all, Algorithm::kTree), nullptr);
  EXPECT_EQ(find(all, Algorithm::kTree)->rows, 2);
  EXPECT_EQ(find(calibrated, Algorithm::kTree), nullptr);  // both tree rows ran in another state
  ASSERT_NE(find(calibrated, Algorithm::kRing), nullptr);
  EXPECT_EQ(find(calibrated, Algorithm::kRing)->rows, 2);  // ring and auto's ring
  EXPECT_THAT(text, HasSubstr("# The same over the sizes whose link probe was within 1.30x"));
  // auto (11 us) against ring (10 us), not the 9 us tree that ran with the links 3x slower.
  const std::vector<AutoVsFastest> autos = ComputeAutoVsFastest(sink.rows());
  ASSERT_EQ(autos.size(), 1u);
  EXPECT_EQ(autos[0].fastest, "ring");
  EXPECT_EQ(autos[0].auto_ran, "ring");
  EXPECT_DOUBLE_EQ(autos[0].ratio, 1.1);
  EXPECT_TRUE(autos[0].calibrated_state);
  EXPECT_THAT(text, HasSubstr("# auto against the fastest other kcoll algorithm"));
  EXPECT_THAT(text, HasSubstr("1.10x"));
}

// With --rounds, the calibrated-state comparisons use the rounds that ran in the calibrated state, whatever the
// median round's probe says.
TEST(TableTest, CalibratedStateRoundsDecideTheStateComparisons) {
  auto row = [](const char* impl, Algorithm priced, double all_p50_us, double error_pct, double link,
                StateRounds state) {
    Row r = Identity(impl, "kcoll", 1024);
    r.model_algorithm = priced;
    Measurement m = M(all_p50_us, 4.0, 0);
    m.stats = ComputeIterationStats({all_p50_us});
    m.model_us = all_p50_us * (1 + error_pct / 100);
    m.model_error_pct = error_pct;
    m.link_ratio = link;
    m.calibrated_rounds = state;
    r.out_of_place = m;
    return r;
  };
  // ring: the median round ran 1.4x slow (out of the state), one round in it, 5% off there.
  // tree: no round in the state, though the median round's probe says 1.0 (between a 0.7 and a 1.4 round).
  // halving_doubling: fastest over all rounds (8 us) but 12 us in the calibrated state.
  // auto (ran ring): 11 us in the calibrated state.
  const std::vector<Row> rows = {
      row("ring", Algorithm::kRing, 14, 40, 1.4, {1, 10, 5}),
      row("tree", Algorithm::kTree, 9, -60, 1.0, {0, 0, std::nullopt}),
      row("halving_doubling", Algorithm::kHalvingDoubling, 8, 30, 1.0, {2, 12, -10}),
      row("auto", Algorithm::kRing, 13, 20, 1.1, {2, 11, -2}),
  };
  EXPECT_TRUE(InCalibratedState(*rows[0].out_of_place));
  EXPECT_FALSE(InCalibratedState(*rows[1].out_of_place));
  EXPECT_EQ(CalibratedStateTimeUs(*rows[0].out_of_place), 10);
  EXPECT_EQ(CalibratedStateTimeUs(*rows[1].out_of_place), 9);  // no calibrated round: the median iteration
  const std::vector<models::AlgorithmError> calibrated = ModelErrors(rows, /*calibrated_state_only=*/true);
  std::map<Algorithm, double> median;
  for (const models::AlgorithmError& e : calibrated) median[e.algorithm] = e.median_abs_error_percent;
  EXPECT_EQ(median.count(Algorithm::kTree), 0u);
  EXPECT_DOUBLE_EQ(median[Algorithm::kHalvingDoubling], 10);
  EXPECT_DOUBLE_EQ(median[Algorithm::kRing], 2);  // ring's 5% and auto's 2%: the median of two is the lower
  const std::vector<AutoVsFastest> autos = ComputeAutoVsFastest(rows);
  ASSERT_EQ(autos.size(), 1u);
  EXPECT_EQ(autos[0].fastest, "ring");
  EXPECT_DOUBLE_EQ(autos[0].ratio, 1.1);
  EXPECT_TRUE(autos[0].calibrated_state);
  ASSERT_TRUE(autos[0].choice_ratio.has_value());  // auto ran ring, the fastest: its own row is the fastest
  EXPECT_DOUBLE_EQ(*autos[0].choice_ratio, 1.0);
}

// The choice ratio times auto's algorithm in its own row: auto ran tree (13 us in auto's row, 12 us in tree's).
TEST(TableTest, ChoiceRatioUsesTheChosenAlgorithmsOwnRow) {
  std::vector<Row> rows = TimedKcollRows({{"ring", 10}, {"tree", 12}, {"auto", 13}});
  rows.back().model_algorithm = Algorithm::kTree;
  const std::vector<AutoVsFastest> autos = ComputeAutoVsFastest(rows);
  ASSERT_EQ(autos.size(), 1u);
  EXPECT_EQ(autos[0].auto_ran, "tree");
  EXPECT_DOUBLE_EQ(autos[0].ratio, 1.3);
  ASSERT_TRUE(autos[0].choice_ratio.has_value());
  EXPECT_DOUBLE_EQ(*autos[0].choice_ratio, 1.2);
}

// Without a probe auto is compared with every algorithm.
TEST(TableTest, AutoAgainstFastestWithoutProbe) {
  const std::vector<Row> rows = TimedKcollRows({{"ring", 10}, {"tree", 8}, {"auto", 12}});
  const std::vector<AutoVsFastest> autos = ComputeAutoVsFastest(rows);
  ASSERT_EQ(autos.size(), 1u);
  EXPECT_EQ(autos[0].fastest, "tree");
  EXPECT_DOUBLE_EQ(autos[0].ratio, 1.5);
  EXPECT_FALSE(autos[0].calibrated_state);
  EXPECT_FALSE(autos[0].choice_ratio.has_value());  // --model did not say what auto ran
}

TEST(PairedRatioTest, MedianOfRoundByRoundRatios) {
  EXPECT_DOUBLE_EQ(*PairedRatio({10, 30, 12}, {10, 20, 10}), 1.2);  // ratios 1, 1.5, 1.2
  EXPECT_DOUBLE_EQ(*PairedRatio({11, 40}, {10, 20}), 1.1);          // even count: the lower middle
  EXPECT_FALSE(PairedRatio({10, 20}, {10, 20, 30}).has_value());    // not the same rounds
  EXPECT_FALSE(PairedRatio({10}, {10}).has_value());                // one round: nothing to pair
  EXPECT_FALSE(PairedRatio({10, 0}, {10, 20}).has_value());         // a round without a time
  EXPECT_FALSE(PairedRatio({}, {}).has_value());
}

// Round by round: the machine was 3x slower during rounds 2 and 3, and again from the middle of round 4 (after tree's
// row, before ring's and auto's). Pooled, auto (which ran ring) looks 3.3x slower than tree, whose median round ran
// in the fast state while auto's did not; paired, auto takes 1.1x tree's time in four rounds of five.
TEST(TableTest, PairedAutoComparisonCancelsDriftBetweenRounds) {
  std::vector<Row> rows = TimedKcollRows({{"ring", 36}, {"tree", 10}, {"auto", 33}});
  rows[0].out_of_place->round_p50_us = {12, 36, 36, 36, 12};
  rows[1].out_of_place->round_p50_us = {10, 30, 30, 10, 10};
  rows[2].out_of_place->round_p50_us = {11, 33, 33, 33, 11};
  rows[2].model_algorithm = Algorithm::kRing;
  const std::vector<AutoVsFastest> autos = ComputeAutoVsFastest(rows);
  ASSERT_EQ(autos.size(), 1u);
  EXPECT_EQ(autos[0].fastest, "tree");
  EXPECT_DOUBLE_EQ(autos[0].ratio, 3.3);
  ASSERT_TRUE(autos[0].paired_ratio.has_value());
  EXPECT_DOUBLE_EQ(*autos[0].paired_ratio, 1.1);
  EXPECT_EQ(autos[0].paired_against, "tree");
  EXPECT_EQ(autos[0].paired_rounds, 5);

  std::ostringstream out;
  TableWriter table(out);
  ResultSink sink(Info());
  sink.AddListener(&table);
  sink.Start();
  for (const Row& r : rows) {
    sink.Record(r, false, *r.out_of_place);
    sink.Record(r, true, *r.out_of_place);
  }
  sink.Finish();
  EXPECT_THAT(out.str(), HasSubstr("paired (--rounds)"));
  EXPECT_THAT(out.str(), HasSubstr(" 1.10x  tree"));
}

// Without rounds there is nothing to pair.
TEST(TableTest, NoPairedComparisonWithoutRounds) {
  const std::vector<AutoVsFastest> autos = ComputeAutoVsFastest(TimedKcollRows({{"ring", 10}, {"auto", 12}}));
  ASSERT_EQ(autos.size(), 1u);
  EXPECT_FALSE(autos[0].paired_ratio.has_value());
  EXPECT_TRUE(autos[0].paired_against.empty());
}

TEST(TableTest, WrongElementsFailTheFooter) {
  std::ostringstream out;
  TableWriter table(out);
  ResultSink sink(Info());
  sink.AddListener(&table);
  FeedRun(sink, /*wrong_in_ring=*/3);
  EXPECT_THAT(out.str(), HasSubstr("# Out of bounds values : 6 FAILED\n"));  // two sizes, 3 each
  EXPECT_EQ(sink.wrong(), 6);
}

TEST(IterationStatsTest, NearestRankPercentilesAndCv) {
  std::vector<double> t;
  for (int i = 1; i <= 100; ++i) t.push_back(i);
  IterationStats s = ComputeIterationStats(t);
  EXPECT_EQ(s.min_us, 1);
  EXPECT_EQ(s.max_us, 100);
  EXPECT_EQ(s.p50_us, 50);
  EXPECT_EQ(s.p95_us, 95);
  EXPECT_EQ(s.p99_us, 99);
  EXPECT_DOUBLE_EQ(s.avg_us, 50.5);
  IterationStats flat = ComputeIterationStats({2, 2, 2});
  EXPECT_EQ(flat.cv_pct, 0);
  IterationStats two = ComputeIterationStats({1, 3});  // mean 2, population stdev 1
  EXPECT_DOUBLE_EQ(two.cv_pct, 50);
}

TEST(ResultSinkTest, PairsHalvesAndComputesTheRatioToMpi) {
  ResultSink sink(Info());
  FeedRun(sink);
  ASSERT_EQ(sink.rows().size(), 4u);
  const Row& ring = sink.rows()[2];
  EXPECT_EQ(ring.implementation, "ring");
  ASSERT_TRUE(ring.out_of_place.has_value());
  ASSERT_TRUE(ring.in_place.has_value());
  ASSERT_TRUE(ring.vs_mpi.has_value());
  EXPECT_DOUBLE_EQ(*ring.vs_mpi, 2.0);
  EXPECT_FALSE(sink.rows()[0].vs_mpi.has_value());  // the MPI row itself
  std::vector<BestVsMpi> best = ComputeBestVsMpi(sink.rows());
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].best_algorithm, "ring");
  EXPECT_DOUBLE_EQ(best[0].ratio, 2.0);
}

TEST(ResultSinkTest, AHalfWithoutItsPartnerStillMakesARow) {
  ResultSink sink(Info());
  sink.Start();
  sink.Record(Identity("ring", "kcoll", 1024), false, M(5, 4, 0));  // in-place filtered out
  sink.Record(Identity("ring", "kcoll", 2048), true, M(5, 4, 0));   // out-of-place filtered out
  sink.Finish();
  ASSERT_EQ(sink.rows().size(), 2u);
  EXPECT_TRUE(sink.rows()[0].out_of_place.has_value());
  EXPECT_FALSE(sink.rows()[0].in_place.has_value());
  EXPECT_FALSE(sink.rows()[1].out_of_place.has_value());
  EXPECT_TRUE(sink.rows()[1].in_place.has_value());
}

TEST(JsonTest, FileHasNcclTestsKeysAndKcollFields) {
  const std::string path = ::testing::TempDir() + "/report.json";
  JsonReport json(path);
  ASSERT_TRUE(json.Open().ok());
  ResultSink sink(Info());
  sink.AddListener(&json);
  FeedRun(sink);
  ASSERT_TRUE(json.status().ok()) << json.status();

  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(text.str());
  EXPECT_EQ(doc["version"], 3);
  for (const char* key : {"start_time", "args", "env", "config", "results", "out_of_bounds", "average_bus_bandwidth",
                          "errors", "end_time", "kcoll"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  for (const char* key : {"nthreads", "ngpus", "minimum_bytes", "maximum_bytes", "step_factor", "warmup_iters",
                          "iterations", "aggregated_iterations", "validation", "devices"}) {
    EXPECT_TRUE(doc["config"].contains(key)) << key;
  }
  EXPECT_EQ(doc["config"]["devices"].size(), 2u);
  ASSERT_EQ(doc["results"].size(), 4u);
  for (const auto& r : doc["results"]) {
    for (const char* key : {"size", "count", "type", "redop", "root", "out_of_place", "in_place", "actual_iterations",
                            "experiment_name", "collective", "algorithm", "implementation", "ideal_bus_bw",
                            "out_of_place_efficiency", "in_place_efficiency", "bus_bw_vs_mpi"}) {
      EXPECT_TRUE(r.contains(key)) << key;
    }
    for (const char* key : {"time", "alg_bw", "bus_bw", "nwrong"}) {
      EXPECT_TRUE(r["out_of_place"].contains(key)) << key;
      EXPECT_TRUE(r["in_place"].contains(key)) << key;
    }
    EXPECT_EQ(r["type"], "float");
    EXPECT_EQ(r["root"], "    -1");  // nccl-tests writes the root as a "%6i" string
  }
  EXPECT_EQ(doc["results"][0]["implementation"], "mpi");
  EXPECT_EQ(doc["results"][0]["algorithm"], "MPI_Allreduce");
  EXPECT_EQ(doc["results"][2]["algorithm"], "ring");
  EXPECT_DOUBLE_EQ(doc["results"][2]["bus_bw_vs_mpi"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(doc["results"][2]["out_of_place_efficiency"].get<double>(), 40.0);
  EXPECT_EQ(doc["out_of_bounds"]["count"], 0);
  EXPECT_EQ(doc["out_of_bounds"]["okay"], "true");
  EXPECT_DOUBLE_EQ(doc["average_bus_bandwidth"]["bandwidth"].get<double>(), 3.5);  // kcoll rows
  EXPECT_EQ(doc["kcoll"]["complete"], true);
  EXPECT_EQ(doc["kcoll"]["blocks"].size(), 3u);
  EXPECT_EQ(doc["kcoll"]["blocks"][1]["notes"][0], "skipped (not implemented): no float16");
  EXPECT_EQ(doc["kcoll"]["best_vs_mpi"].size(), 2u);
}

// --start aligned: the rows' late starts add up in their block's footer and show in the JSON; a run without it
// (Measurement::late_starts empty) prints no such line.
TEST(ReportTest, AlignedStartsCountLateIterations) {
  const std::string path = ::testing::TempDir() + "/aligned.json";
  JsonReport json(path);
  ASSERT_TRUE(json.Open().ok());
  std::ostringstream out;
  TableWriter table(out);
  ResultSink sink(Info());
  sink.AddListener(&table);
  sink.AddListener(&json);
  sink.Start();
  for (size_t bytes : {1024, 2048}) {
    for (bool in_place : {false, true}) {
      Measurement m = M(5, 4.0, 0);
      m.late_starts = bytes == 1024 && in_place ? 2 : 0;
      sink.Record(Identity("ring", "kcoll", bytes), in_place, m);
    }
  }
  sink.Finish();
  EXPECT_THAT(out.str(), HasSubstr("# Late starts          : 2 of 12 timed iterations (--start aligned: some rank began "
                                   "after the agreed instant; those times include the lateness)\n"));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(text.str());
  EXPECT_EQ(doc["results"][0]["in_place"]["late_starts"], 2);
  EXPECT_EQ(doc["results"][0]["out_of_place"]["late_starts"], 0);

  std::ostringstream free_run;
  TableWriter free_table(free_run);
  ResultSink free_sink(Info());
  free_sink.AddListener(&free_table);
  FeedRun(free_sink);
  EXPECT_THAT(free_run.str(), Not(HasSubstr("Late starts")));
}

TEST(JsonTest, FileIsValidAfterEveryRow) {
  const std::string path = ::testing::TempDir() + "/partial.json";
  JsonReport json(path);
  ASSERT_TRUE(json.Open().ok());
  ResultSink sink(Info());
  sink.AddListener(&json);
  sink.Start();
  sink.Record(Identity("ring", "kcoll", 1024), false, M(5, 4, 0));
  sink.Record(Identity("ring", "kcoll", 1024), true, M(5, 4, 0));
  // No Finish(): as if the sweep were interrupted here.
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(text.str());
  EXPECT_EQ(doc["results"].size(), 1u);
  EXPECT_EQ(doc["kcoll"]["complete"], false);
}

TEST(JsonTest, UnwritablePathIsAnError) {
  JsonReport json("/nonexistent-dir/x.json");
  EXPECT_THAT(std::string(json.Open().message()), HasSubstr("--json '/nonexistent-dir/x.json': cannot be written"));
}

}  // namespace
}  // namespace bench
}  // namespace kcoll
