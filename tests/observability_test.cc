// What a Communicator tells about itself: the KCOLL_DEBUG=INFO block at creation and the counters at finalize (read
// back from the per-rank log files), the TRACE line of each call, the JSON description, the gathered RankInfos, the
// communicator id (equal on every rank, different per communicator), and the errors of bad settings.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "collectives/communicator.h"
#include "collectives/topology/discover.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/make_communicator.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"
#include "tests/scoped_env.h"
#include "tests/test_files.h"

namespace kcoll {
namespace testing {
namespace {

// The log lines name the algorithm: run the ring explicitly so they do not depend on what `auto` picks.
CallOptions RingCall() {
  CallOptions options;
  options.algorithm = Algorithm::kRing;
  return options;
}

// Emulated nodes of 2 ranks when the rank count is even, else one node of all ranks.
int TestRanksPerNode() { return WorldSize() % 2 == 0 ? 2 : WorldSize(); }

bool AllEqual(uint64_t value) {
  uint64_t lo = value, hi = value;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

TEST(InfoLog, PrintsTheTopologyBlockAtCreationAndTheCountersAtFinalize) {
  const int rank = WorldRank(), n = WorldSize(), rpn = TestRanksPerNode();
  ScopedEnv level("KCOLL_DEBUG", "INFO");
  ScopedEnv file("KCOLL_DEBUG_FILE", TempDir() + "/info.%r.log");
  CommunicatorOptions options;
  options.ranks_per_node = rpn;
  options.nchannels = 2;  // both channels' rings in the block
  auto comm = MakeCommunicator(options);
  ASSERT_TRUE(AllRanks(comm != nullptr));
  std::vector<float> data(3 * n + 1, 1.0f);
  ASSERT_TRUE(AllRanks(
      comm->AllReduce(data.data(), data.data(), data.size(), DataType::kFloat32, ReduceOp::kSum, RingCall()).ok()));
  const std::string id = FormatCommId(comm->topology().comm_id);
  ASSERT_TRUE(comm->Finalize().ok());

  const std::vector<std::string> lines = ReadLines(absl::StrCat(TempDir(), "/info.", rank, ".log"));
  ASSERT_FALSE(lines.empty());
  const std::regex prefix(
      absl::StrCat("^", Host(), ":", getpid(), ":[0-9]+ \\[", rank, "\\] KCOLL INFO comm ", id, " .*"));
  std::vector<std::string> bodies;  // the text after "comm <id> "
  for (const std::string& line : lines) {
    EXPECT_TRUE(std::regex_match(line, prefix)) << line;
    bodies.push_back(line.substr(line.find(id) + id.size() + 1));
  }
  if (rank == 0) {
    EXPECT_EQ(bodies[0], absl::StrCat("nranks ", n, " nnodes ", n / rpn, " ranks_per_node ", rpn,
                                      " (emulated on 1 host) nchannels 2 backend serial transport ",
                                      n / rpn == 1 ? "shm" : "shm+mpi"));  // auto: shared memory within a node
    for (int r = 0; r < n; ++r) {
      EXPECT_THAT(bodies, Contains(HasSubstr(absl::StrCat("rank ", r, " node ", r / rpn, " local_rank ", r % rpn,
                                                          " host ", Host(), " pid "))));
    }
    // Which path each kind of link takes, and what it runs on.
    EXPECT_EQ(
        bodies[1].rfind(n / rpn == 1 ? "paths intra-node shm: shm: " : "paths intra-node shm inter-node mpi: shm: ", 0),
        0u)
        << bodies[1];
    EXPECT_THAT(bodies, Contains(HasSubstr("interface lo up loopback: ")));
    EXPECT_THAT(bodies, Contains(HasSubstr("channel 00/02 ring 0 ")));
    EXPECT_THAT(bodies, Contains(HasSubstr("channel 01/02 ring ")));
    EXPECT_THAT(bodies, Contains(HasSubstr("tree binomial root 0 depth ")));
    EXPECT_THAT(bodies, Contains(HasSubstr("tree double_binary/1 root ")));
    EXPECT_THAT(bodies, Contains(std::string("auto prices with: built-in (shm)")));  // the shipped profile was found
    EXPECT_THAT(bodies, Contains(HasSubstr("nonblocking calls progress: ")));
  } else {
    EXPECT_THAT(bodies[0], HasSubstr(absl::StrCat("rank ", rank, " node ", rank / rpn, " local_rank ", rank % rpn)));
  }
  ASSERT_GE(bodies.size(), 2u);
  EXPECT_THAT(bodies[bodies.size() - 2],
              HasSubstr(absl::StrCat("counters all_reduce/ring calls 1 bytes ", 4 * data.size())));
  EXPECT_THAT(bodies.back(), HasSubstr("counters total | send calls"));
}

TEST(TraceLog, PrintsOneLinePerCall) {
  const int rank = WorldRank();
  ScopedEnv level("KCOLL_DEBUG", "trace");
  ScopedEnv file("KCOLL_DEBUG_FILE", TempDir() + "/trace.%r.log");
  auto comm = MakeCommunicator({});
  ASSERT_TRUE(AllRanks(comm != nullptr));
  std::vector<int32_t> data(100, 1);
  for (size_t count : {size_t{1}, size_t{17}, size_t{100}}) {
    ASSERT_TRUE(
        AllRanks(comm->AllReduce(data.data(), data.data(), count, DataType::kInt32, ReduceOp::kMax, RingCall()).ok()));
  }
  comm.reset();
  std::vector<std::string> calls;
  for (const std::string& line : ReadLines(absl::StrCat(TempDir(), "/trace.", rank, ".log"))) {
    if (line.find("KCOLL TRACE") != std::string::npos && line.find(" call ") != std::string::npos)
      calls.push_back(line);
  }
  ASSERT_EQ(calls.size(), 3u);
  size_t i = 0;
  for (size_t count : {size_t{1}, size_t{17}, size_t{100}}) {
    EXPECT_THAT(calls[i], HasSubstr(absl::StrCat("KCOLL TRACE comm ")));
    EXPECT_THAT(calls[i], HasSubstr(absl::StrCat(" call all_reduce algo ring count ", count,
                                                 " type int32 op max root 0 bytes ", 4 * count, " time ")));
    EXPECT_THAT(calls[i], HasSubstr("status OK"));
    ++i;
  }
}

TEST(Topology, GathersEveryRanksMachine) {
  auto comm = MakeCommunicator({});
  ASSERT_TRUE(AllRanks(comm != nullptr));
  const Topology& t = comm->topology();
  ASSERT_EQ(static_cast<int>(t.ranks.size()), WorldSize());
  EXPECT_EQ(t.ranks[WorldRank()].pid, getpid());
  std::set<int64_t> pids;
  for (const RankInfo& info : t.ranks) {
    EXPECT_EQ(info.host, Host());  // the launcher starts every rank here
    EXPECT_FALSE(info.cpus.empty());
    EXPECT_FALSE(info.interfaces.empty());
    EXPECT_FALSE(info.gpu.has_value());
    pids.insert(info.pid);
  }
  EXPECT_EQ(static_cast<int>(pids.size()), WorldSize());
  EXPECT_FALSE(t.emulated);
  EXPECT_EQ(t.nnodes, 1);  // one machine: MPI puts every rank on one node
}

TEST(Topology, CommIdIsTheSameOnEveryRankAndNewForEveryCommunicator) {
  auto a = MakeCommunicator({});
  auto b = MakeCommunicator({});
  ASSERT_TRUE(AllRanks(a != nullptr && b != nullptr));
  EXPECT_TRUE(AllEqual(a->topology().comm_id));
  EXPECT_TRUE(AllEqual(b->topology().comm_id));
  EXPECT_NE(a->topology().comm_id, b->topology().comm_id);
  EXPECT_NE(a->topology().comm_id, 0u);
}

TEST(Topology, ChannelCountComesFromOptionsThenEnvironment) {
  {
    auto comm = MakeCommunicator({});
    ASSERT_TRUE(AllRanks(comm != nullptr));
    EXPECT_EQ(comm->topology().nchannels(), 1);  // the MPI transport's default (topology/discover.h)
    // NCCL's default, as its communicator asks for it (no GPU here to build one).
    EXPECT_EQ(ChooseChannelCount(0, kDefaultChannels).value(), 2);
  }
  ScopedEnv env("KCOLL_NCHANNELS", "5");
  {
    auto comm = MakeCommunicator({});
    ASSERT_TRUE(AllRanks(comm != nullptr));
    EXPECT_EQ(comm->topology().nchannels(), 5);
  }
  CommunicatorOptions options;
  options.nchannels = 32;
  auto comm = MakeCommunicator(options);
  ASSERT_TRUE(AllRanks(comm != nullptr));
  EXPECT_EQ(comm->topology().nchannels(), 32);
}

TEST(Settings, BadValuesAreInvalidArgumentNamingThem) {
  for (const char* bad : {"0", "33", "many", "-1"}) {
    ScopedEnv env("KCOLL_NCHANNELS", bad);
    auto comm = Communicator::Create(MPI_COMM_WORLD);
    ASSERT_TRUE(AllRanks(!comm.ok())) << bad;
    EXPECT_THAT(comm, IsInvalidArgument(absl::StrCat("KCOLL_NCHANNELS: '", bad, "'")));
    EXPECT_THAT(comm.status().message(), HasSubstr("1 to 32"));
  }
  for (int bad : {-3, 33}) {
    CommunicatorOptions options;
    options.nchannels = bad;
    auto comm = Communicator::Create(MPI_COMM_WORLD, options);
    ASSERT_TRUE(AllRanks(!comm.ok())) << bad;
    EXPECT_THAT(comm.status().message(), HasSubstr(absl::StrCat("nchannels: '", bad, "'")));
  }
  {
    ScopedEnv env("KCOLL_DEBUG", "LOUD");
    auto comm = Communicator::Create(MPI_COMM_WORLD);
    ASSERT_TRUE(AllRanks(!comm.ok()));
    EXPECT_THAT(comm.status().message(), HasSubstr("KCOLL_DEBUG: log level 'LOUD'"));
  }
  {
    ScopedEnv env("KCOLL_DEBUG", "INFO");
    ScopedEnv file("KCOLL_DEBUG_FILE", "/nonexistent-dir/kcoll.%r");
    auto comm = Communicator::Create(MPI_COMM_WORLD);
    ASSERT_TRUE(AllRanks(!comm.ok()));
    EXPECT_THAT(comm.status().message(),
                HasSubstr(absl::StrCat("KCOLL_DEBUG_FILE: cannot open '/nonexistent-dir/kcoll.", WorldRank(), "'")));
  }
  auto comm = MakeCommunicator({});  // still in step
  ASSERT_TRUE(AllRanks(comm != nullptr));
  int32_t one = 1, total = 0;
  ASSERT_TRUE(comm->AllReduce(&one, &total, 1, DataType::kInt32, ReduceOp::kSum).ok());
  EXPECT_EQ(total, WorldSize());
}

TEST(DescribeJson, MatchesTheTopologyAndCounters) {
  const int n = WorldSize(), rpn = TestRanksPerNode();
  CommunicatorOptions options;
  options.ranks_per_node = rpn;
  options.nchannels = 3;
  auto comm = MakeCommunicator(options);
  ASSERT_TRUE(AllRanks(comm != nullptr));
  std::vector<double> data(2 * n + 1, 2.0);
  ASSERT_TRUE(
      AllRanks(comm->AllReduce(data.data(), data.data(), data.size(), DataType::kFloat64, ReduceOp::kSum).ok()));
  const nlohmann::json j = nlohmann::json::parse(comm->DescribeJson());
  const Topology& t = comm->topology();
  EXPECT_EQ(j["comm_id"], FormatCommId(t.comm_id));
  EXPECT_EQ(j["nranks"], n);
  EXPECT_EQ(j["nnodes"], n / rpn);
  EXPECT_EQ(j["ranks_per_node"], rpn);
  EXPECT_EQ(j["emulated"], true);
  EXPECT_EQ(j["backend"], "serial");
  EXPECT_EQ(j["transport"], n / rpn == 1 ? "shm" : "shm+mpi");  // auto: shared memory within a node
  ASSERT_EQ(j["ranks"].size(), static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(j["ranks"][r]["node"], r / rpn);
    EXPECT_EQ(j["ranks"][r]["pid"], t.ranks[r].pid);
  }
  ASSERT_EQ(j["hosts"].size(), 1u);
  EXPECT_EQ(j["hosts"][0]["host"], Host());
  ASSERT_EQ(j["channels"].size(), 3u);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(j["channels"][c]["ring"].get<std::vector<int>>(), t.channels[c]);
    EXPECT_EQ(j["channels"][c]["inter_node_links"].size(), static_cast<size_t>(n / rpn > 1 ? n / rpn : 0));
  }
  EXPECT_EQ(j["trees"]["binomial"]["parent"].get<std::vector<int>>(), t.binomial_tree.parent);
  EXPECT_EQ(j["trees"]["double_binary"][1]["parent"].get<std::vector<int>>(), t.DoubleTree(1).parent);
  const nlohmann::json& ring = j["counters"]["collectives"][0];
  EXPECT_EQ(ring["collective"], "all_reduce");
  EXPECT_EQ(ring["calls"], 1);
  EXPECT_EQ(ring["bytes"], 8 * data.size());
  EXPECT_EQ(ring["primitives"]["send"]["bytes"], j["counters"]["total"]["send"]["bytes"]);
}

TEST(Counters, AccumulateAndReset) {
  auto comm = MakeCommunicator({});
  ASSERT_TRUE(AllRanks(comm != nullptr));
  int32_t x[4] = {1, 2, 3, 4};
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(comm->AllReduce(x, x, 4, DataType::kInt32, ReduceOp::kMin, RingCall()).ok());
  const CollectiveCounts* ring = comm->counters().Find(Collective::kAllReduce, Algorithm::kRing);
  ASSERT_NE(ring, nullptr);
  EXPECT_EQ(ring->calls, 3u);
  EXPECT_EQ(ring->bytes, 48u);
  EXPECT_TRUE(ring->primitives == comm->counters().total);
  EXPECT_GT(ring->seconds, 0);
  const TrafficPerCall per_call = SummarizeTraffic(comm->counters(), Collective::kAllReduce);
  EXPECT_EQ(per_call.calls, 3u);
  EXPECT_DOUBLE_EQ(per_call.sent_bytes, static_cast<double>(ring->primitives.send.bytes) / 3);
  comm->ResetCounters();
  EXPECT_TRUE(comm->counters().collectives.empty());
  EXPECT_TRUE(comm->counters().total == PrimitiveCounts());
  ASSERT_TRUE(comm->AllReduce(x, x, 4, DataType::kInt32, ReduceOp::kMin, RingCall()).ok());
  EXPECT_EQ(comm->counters().Find(Collective::kAllReduce, Algorithm::kRing)->calls, 1u);
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
