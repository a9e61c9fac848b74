#include "bench/options/options.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace bench {
namespace {

ParseContext Context(bool gloo = true) {
  ParseContext pc;
  pc.gloo_available = gloo;
  pc.exec_available = {"serial", "openmp"};
  return pc;
}

// A CUDA build with NCCL: cuda is an execution space and nccl a peer.
ParseContext CudaContext() {
  ParseContext pc = Context();
  pc.nccl_available = true;
  pc.exec_available.push_back("cuda");
  return pc;
}

absl::StatusOr<BenchOptions> Parse(std::vector<std::string> args, bool gloo = true) {
  return ParseBenchOptions(args, Context(gloo));
}

// The message of a failed parse (empty when the parse succeeded, which fails the caller's expectations).
std::string Error(std::vector<std::string> args, bool gloo = true) {
  auto r = Parse(std::move(args), gloo);
  return r.ok() ? std::string() : std::string(r.status().message());
}

TEST(OptionsTest, DefaultsMirrorNcclTestsExceptTheSizeRangeAndTimeAcrossRanks) {
  auto o = Parse({});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->min_bytes, 8u);
  EXPECT_EQ(o->max_bytes, size_t{128} << 20);
  EXPECT_EQ(o->step_factor, 2u);
  EXPECT_EQ(o->iters, 20);
  EXPECT_EQ(o->warmup_iters, 5);
  EXPECT_EQ(o->agg_iters, 1);
  EXPECT_EQ(o->check, 1);
  EXPECT_EQ(o->ops, std::vector<ReduceOp>{ReduceOp::kSum});
  EXPECT_EQ(o->types, std::vector<DataType>{DataType::kFloat32});
  EXPECT_EQ(o->root, 0);
  EXPECT_EQ(o->time_across, TimeAcrossRanks::kMax);
  EXPECT_TRUE(o->algos.all);
  EXPECT_EQ(o->exec, "serial");
  EXPECT_EQ(o->ranks, 2);
  EXPECT_FALSE(o->ranks_given);
}

TEST(OptionsTest, AcceptsEveryValueSpelling) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"-b", "1K"}, {"-b1K"}, {"--minbytes", "1K"}, {"--minbytes=1K"}, {"-b", "1024"}}) {
    auto o = Parse(args);
    ASSERT_TRUE(o.ok()) << o.status();
    EXPECT_EQ(o->min_bytes, 1024u);
  }
}

TEST(OptionsTest, ModelFlagTakesNoValue) {
  auto o = Parse({"--model", "-b", "8"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->model);
  EXPECT_EQ(o->min_bytes, 8u);
  auto d = Parse({});
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->model);
}

TEST(OptionsTest, Nonblocking) {
  EXPECT_EQ(Parse({})->nonblocking_pct, 0);
  EXPECT_EQ(Parse({"--nonblocking", "150"})->nonblocking_pct, 150);
  EXPECT_THAT(Error({"--nonblocking", "10001"}), HasSubstr("--nonblocking '10001': must be in [0, 10000]"));
  EXPECT_THAT(Error({"--nonblocking", "x"}), HasSubstr("--nonblocking 'x'"));
  EXPECT_THAT(Error({"--nonblocking", "150", "--model"}), HasSubstr("--nonblocking and --model both given"));
}

TEST(OptionsTest, FloorIsARowOnlyWhenNamed) {
  EXPECT_FALSE(Parse({})->algos.floor);
  EXPECT_FALSE(Parse({"--algo", "all"})->algos.floor);
  const auto o = Parse({"--algo", "auto,mpi,floor"});
  EXPECT_TRUE(o->algos.floor);
  EXPECT_TRUE(o->algos.mpi);
  EXPECT_EQ(o->algos.algorithms, std::vector<Algorithm>{Algorithm::kAuto});
}

TEST(OptionsTest, PeerCopyIsARowOnlyWhenNamed) {
  EXPECT_FALSE(Parse({})->algos.copy);
  EXPECT_FALSE(Parse({"--algo", "all,floor"})->algos.copy);
  const auto o = Parse({"--algo", "auto,copy,floor"});
  EXPECT_TRUE(o->algos.copy);
  EXPECT_TRUE(o->algos.floor);
  EXPECT_FALSE(o->algos.mpi);
  EXPECT_EQ(o->algos.algorithms, std::vector<Algorithm>{Algorithm::kAuto});
}

TEST(OptionsTest, CalibrateTouchInputAndRounds) {
  auto d = Parse({});
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->calibrate_path.empty());
  EXPECT_TRUE(d->touch_input);
  auto o = Parse({"--calibrate", "here.json", "--touch_input", "0"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->calibrate_path, "here.json");
  EXPECT_FALSE(o->touch_input);
  EXPECT_THAT(Error({"--calibrate="}), HasSubstr("--calibrate '': empty file name"));
  EXPECT_THAT(Error({"--touch_input", "2"}), HasSubstr("--touch_input '2': must be in [0, 1]"));
  EXPECT_EQ(d->rounds, 1);
  EXPECT_EQ(Parse({"--rounds", "3"})->rounds, 3);
  EXPECT_THAT(Error({"--rounds", "0"}), HasSubstr("--rounds '0': must be in [1, 100]"));
  EXPECT_THAT(Error({"--rounds", "101"}), HasSubstr("--rounds '101': must be in [1, 100]"));
  EXPECT_THAT(Error({"--rounds", "two"}), HasSubstr("--rounds 'two'"));
  EXPECT_THAT(Error({"--calibrate", "a.json", "--profile", "b.json"}), HasSubstr("--calibrate and --profile"));
  EXPECT_THAT(Error({"--calibrate", "a.json", "--intra_bw", "5"}), HasSubstr("--calibrate and --profile"));
  EXPECT_EQ(d->calibrate_ms, 200);
  EXPECT_EQ(Parse({"--calibrate", "a.json", "--calibrate_ms", "10"})->calibrate_ms, 10);
  EXPECT_THAT(Error({"--calibrate", "a.json", "--calibrate_ms", "0"}),
              HasSubstr("--calibrate_ms '0': must be in [1, 10000]"));
  EXPECT_THAT(Error({"--calibrate_ms", "10"}), HasSubstr("--calibrate_ms and --calibrate_max need --calibrate FILE"));
  EXPECT_EQ(d->calibrate_max_bytes, size_t{64} << 20);
  EXPECT_EQ(Parse({"--calibrate", "a.json", "--calibrate_max", "1M"})->calibrate_max_bytes, size_t{1} << 20);
  EXPECT_THAT(Error({"--calibrate", "a.json", "--calibrate_max", "4K"}),
              HasSubstr("--calibrate_max '4K': must be at least 64K"));
  EXPECT_THAT(Error({"--calibrate_max", "1M"}), HasSubstr("need --calibrate FILE"));
}

TEST(OptionsTest, RecalibrateNeedsCalibrateAndModel) {
  EXPECT_EQ(Parse({})->recalibrate, 0);
  auto o = Parse({"--calibrate", "a.json", "--model", "--recalibrate", "2"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->recalibrate, 2);
  EXPECT_THAT(Error({"--recalibrate", "2", "--model"}),
              HasSubstr("--recalibrate '2' needs --calibrate FILE and --model"));
  EXPECT_THAT(Error({"--recalibrate", "1", "--calibrate", "a.json"}), HasSubstr("needs --calibrate FILE and --model"));
  EXPECT_THAT(Error({"--recalibrate", "11"}), HasSubstr("--recalibrate '11': must be in [0, 10]"));
  EXPECT_THAT(Error({"--recalibrate", "-1"}), HasSubstr("--recalibrate '-1'"));
  EXPECT_TRUE(Parse({"--recalibrate", "0"}).ok());  // 0: never, alone
}

TEST(OptionsTest, WithTimeoutTakesADuration) {
  EXPECT_FALSE(Parse({})->with_timeout.has_value());
  auto o = Parse({"--with_timeout", "30s"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(*o->with_timeout, absl::Seconds(30));
  EXPECT_EQ(*Parse({"--with_timeout=2.5"})->with_timeout, absl::Milliseconds(2500));
  EXPECT_THAT(Error({"--with_timeout", "soon"}), HasSubstr("--with_timeout: 'soon' is not a duration"));
  EXPECT_THAT(Error({"--with_timeout", "-1s"}), HasSubstr("--with_timeout: '-1s'"));
  EXPECT_THAT(Error({"--with_timeout", "0"}), HasSubstr("--with_timeout '0': not a timeout (0 is no limit"));
}

TEST(OptionsTest, TransportListsCommunicators) {
  EXPECT_THAT(Parse({})->transports, ElementsAre("auto"));
  EXPECT_THAT(Parse({"--transport", "SHM, mpi"})->transports, ElementsAre("shm", "mpi"));
  EXPECT_THAT(Parse({"--transport=auto,nccl"})->transports, ElementsAre("auto", "nccl"));
  EXPECT_THAT(Parse({"--transport=cuda_ipc,mpi"})->transports, ElementsAre("cuda_ipc", "mpi"));
  EXPECT_THAT(Error({"--transport", "shm,tcp"}),
              HasSubstr("--transport 'shm,tcp': 'tcp' is not a transport (auto, mpi, shm, nccl, cuda_ipc)"));
  EXPECT_THAT(Error({"--transport", "mpi,mpi"}), HasSubstr("'mpi' is listed twice"));
}

TEST(OptionsTest, NumericsListsCommunicators) {
  EXPECT_THAT(Parse({})->numerics, ElementsAre(Numerics::kFast));
  EXPECT_THAT(Parse({"--numerics", "fast, DETERMINISTIC"})->numerics,
              ElementsAre(Numerics::kFast, Numerics::kDeterministic));
  EXPECT_THAT(Parse({"--numerics=deterministic"})->numerics, ElementsAre(Numerics::kDeterministic));
  EXPECT_THAT(Error({"--numerics", "fast,exactish"}), HasSubstr("--numerics 'fast,exactish'"));
  EXPECT_THAT(Error({"--numerics", "fast,exactish"}), HasSubstr("exactish"));
  EXPECT_THAT(Error({"--numerics", "fast,fast"}), HasSubstr("'fast' is listed twice"));
}

TEST(OptionsTest, StartIsFreeOrAligned) {
  EXPECT_FALSE(Parse({})->aligned_start);
  EXPECT_TRUE(Parse({"--start", "Aligned"})->aligned_start);
  EXPECT_FALSE(Parse({"--start=free"})->aligned_start);
  EXPECT_THAT(Error({"--start", "together"}), HasSubstr("--start 'together': not a start (free, aligned)"));
  EXPECT_THAT(Error({"--start"}), HasSubstr("--start: missing value"));
}

TEST(OptionsTest, StepInBytesMayStartAtZero) {
  // An additive step grows from 0, so the check that a step factor never grows from 0 does not apply.
  auto o = Parse({"-b", "0", "-e", "16", "-i", "8"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->step_factor, 1u);
  EXPECT_EQ(o->step_bytes, 8u);
}

TEST(OptionsTest, ParsesEveryOption) {
  auto o = Parse({"-b",
                  "8",
                  "-e",
                  "128M",
                  "-i",
                  "1M",
                  "-n",
                  "7",
                  "-w",
                  "0",
                  "-m",
                  "3",
                  "-c",
                  "0",
                  "-o",
                  "all",
                  "-d",
                  "all",
                  "-r",
                  "all",
                  "-a",
                  "1",
                  "-T",
                  "30",
                  "-I",
                  "1",
                  "--json",
                  "out.json",
                  "--algo",
                  "ring,mpi,gloo,auto",
                  "--exec",
                  "openmp",
                  "--ranks",
                  "4",
                  "--ranks_per_node",
                  "2",
                  "--intra_bw",
                  "12.5",
                  "--inter_bw",
                  "3",
                  "--benchmark_filter=ring",
                  "--kokkos-num-threads=1"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->max_bytes, size_t{128} << 20);
  EXPECT_EQ(o->step_bytes, size_t{1} << 20);
  EXPECT_EQ(o->step_factor, 1u);
  EXPECT_EQ(o->iters, 7);
  EXPECT_EQ(o->warmup_iters, 0);
  EXPECT_EQ(o->agg_iters, 3);
  EXPECT_EQ(o->check, 0);
  EXPECT_EQ(o->ops.size(), AllReduceOps().size());
  EXPECT_EQ(o->types.size(), AllDataTypes().size());
  EXPECT_FALSE(o->root.has_value());
  EXPECT_EQ(o->time_across, TimeAcrossRanks::kAverage);
  EXPECT_EQ(o->timeout_s, 30);
  EXPECT_TRUE(o->per_iter_timing);
  EXPECT_EQ(o->json_path, "out.json");
  EXPECT_FALSE(o->algos.all);
  EXPECT_TRUE(o->algos.mpi);
  EXPECT_TRUE(o->algos.gloo);
  EXPECT_EQ(o->algos.algorithms, (std::vector<Algorithm>{Algorithm::kRing, Algorithm::kAuto}));
  EXPECT_EQ(o->exec, "openmp");
  EXPECT_EQ(o->ranks, 4);
  EXPECT_TRUE(o->ranks_given);
  EXPECT_EQ(o->ranks_per_node, 2);
  EXPECT_DOUBLE_EQ(o->intra_bw_gbps, 12.5);
  EXPECT_DOUBLE_EQ(o->inter_bw_gbps, 3);
}

TEST(OptionsTest, CudaBuildTakesExecCudaAndTheNcclPeer) {
  auto o = ParseBenchOptions({"--exec", "cuda", "--algo", "ring,nccl"}, CudaContext());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->exec, "cuda");
  EXPECT_TRUE(o->algos.nccl);
  EXPECT_FALSE(o->algos.mpi);
  EXPECT_EQ(o->algos.algorithms, (std::vector<Algorithm>{Algorithm::kRing}));
  EXPECT_THAT(Usage("all_reduce", CudaContext()), HasSubstr("NCCL peer: built in (with --exec cuda)"));
  EXPECT_THAT(Usage("all_reduce", Context()), HasSubstr("NCCL peer: not built"));
}

TEST(OptionsTest, NcclTestsTypeAndOpSpellings) {
  auto o = Parse({"-d", "half", "-o", "max"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->types, std::vector<DataType>{DataType::kFloat16});
  EXPECT_EQ(o->ops, std::vector<ReduceOp>{ReduceOp::kMax});
  EXPECT_EQ(Parse({"-d", "double"})->types, std::vector<DataType>{DataType::kFloat64});
  EXPECT_TRUE(Parse({"-h"})->help);
  EXPECT_TRUE(Parse({"--help"})->help);
}

TEST(OptionsTest, UnknownOrMalformedArguments) {
  EXPECT_THAT(Error({"--bogus"}), HasSubstr("unknown option '--bogus'"));
  EXPECT_THAT(Error({"-z", "1"}), HasSubstr("unknown option '-z'"));
  EXPECT_THAT(Error({"stray"}), HasSubstr("unexpected argument 'stray'"));
  EXPECT_THAT(Error({"-b"}), HasSubstr("-b/--minbytes: missing value"));
  EXPECT_THAT(Error({"--help=1"}), HasSubstr("takes no value"));
}

TEST(OptionsTest, BadSizes) {
  EXPECT_THAT(Error({"-b", "12Q"}), HasSubstr("-b/--minbytes '12Q'"));
  EXPECT_THAT(Error({"-b", "12Q"}), HasSubstr("unknown suffix"));
  EXPECT_THAT(Error({"-e", "lots"}), HasSubstr("-e/--maxbytes 'lots'"));
  EXPECT_THAT(Error({"-e", "-8"}), HasSubstr("negative"));
  EXPECT_THAT(Error({"-i", "0"}), HasSubstr("-i/--stepbytes '0'"));
  EXPECT_THAT(Error({"-b", "1M", "-e", "8K"}), HasSubstr("-b/--minbytes 1048576 is larger than -e/--maxbytes 8192"));
  EXPECT_THAT(Error({"-b", "0"}), HasSubstr("-b/--minbytes '0' with a step factor never grows"));
  EXPECT_THAT(Error({"-f", "2", "-i", "8"}), HasSubstr("-f/--stepfactor and -i/--stepbytes both given"));
}

TEST(OptionsTest, BadCounts) {
  EXPECT_THAT(Error({"-f", "1"}), HasSubstr("-f/--stepfactor '1': must be in [2,"));
  EXPECT_THAT(Error({"-f", "two"}), HasSubstr("-f/--stepfactor 'two': not an integer"));
  EXPECT_THAT(Error({"-n", "0"}), HasSubstr("-n/--iters '0': must be in [1,"));
  EXPECT_THAT(Error({"-w", "-1"}), HasSubstr("-w/--warmup_iters '-1'"));
  EXPECT_THAT(Error({"-m", "0"}), HasSubstr("-m/--agg_iters '0'"));
  EXPECT_THAT(Error({"-c", "-1"}), HasSubstr("-c/--check '-1'"));
  EXPECT_THAT(Error({"-a", "4"}), HasSubstr("-a/--average '4': must be in [0, 3]"));
  EXPECT_THAT(Error({"-T", "-5"}), HasSubstr("-T/--timeout '-5'"));
  EXPECT_THAT(Error({"-I", "2"}), HasSubstr("-I/--per_iter_timing '2'"));
  EXPECT_THAT(Error({"--ranks", "0"}), HasSubstr("--ranks '0'"));
  EXPECT_THAT(Error({"--ranks_per_node", "0"}), HasSubstr("--ranks_per_node '0'"));
}

TEST(OptionsTest, BadNames) {
  EXPECT_THAT(Error({"-o", "mean"}), HasSubstr("-o/--op 'mean'"));
  EXPECT_THAT(Error({"-d", "float128"}), HasSubstr("-d/--datatype 'float128'"));
  EXPECT_THAT(Error({"-r", "x"}), HasSubstr("-r/--root 'x': not a rank"));
  EXPECT_THAT(Error({"-r", "-1"}), HasSubstr("-r/--root '-1'"));
  EXPECT_THAT(Error({"--algo", "ringx"}), HasSubstr("--algo 'ringx'"));
  EXPECT_THAT(Error({"--algo", "flor"}), HasSubstr("or all, mpi, gloo, nccl, floor, copy"));
  EXPECT_THAT(Error({"--algo", ","}), HasSubstr("--algo ',': empty list"));
  EXPECT_THAT(Error({"--algo", "gloo"}, /*gloo=*/false), HasSubstr("this build has no Gloo"));
  EXPECT_THAT(Error({"--algo", "nccl"}), HasSubstr("--algo 'nccl': this build has no NCCL"));
  EXPECT_THAT(Error({"--exec", "cuda"}), HasSubstr("--exec 'cuda': not an execution space of this build"));
  EXPECT_THAT(Error({"--json="}), HasSubstr("-J/--json '': empty file name"));
  EXPECT_THAT(Error({"--profile="}), HasSubstr("--profile '': empty file name"));
}

TEST(OptionsTest, BadBandwidthsAndCombinations) {
  EXPECT_THAT(Error({"--intra_bw", "fast"}), HasSubstr("--intra_bw 'fast': not a number of GB/s"));
  EXPECT_THAT(Error({"--inter_bw", "-1"}), HasSubstr("--inter_bw '-1': must be > 0 GB/s"));
  EXPECT_THAT(Error({"--profile", "p.json", "--intra_bw", "5"}), HasSubstr("--profile and --intra_bw/--inter_bw"));
  EXPECT_THAT(Error({"--ranks", "6", "--ranks_per_node", "4"}), HasSubstr("--ranks_per_node '4' does not divide"));
  EXPECT_THAT(Error({"--ranks", "2", "-r", "2"}), HasSubstr("-r/--root '2': must be < --ranks 2"));
  EXPECT_THAT(Error({"--ranks", "6", "--hosts", "4"}), HasSubstr("--hosts '4' with --ranks 6: the ranks must split"));
  EXPECT_THAT(Error({"--hosts", "9"}), HasSubstr("--hosts '9'"));
  EXPECT_THAT(Error({"--ranks", "4", "--hosts", "2", "--ranks_per_node", "2"}),
              HasSubstr("real hosts or emulated nodes, not both"));
}

TEST(OptionsTest, ValidateForRanks) {
  BenchOptions o;
  EXPECT_TRUE(ValidateForRanks(o, 2, true).ok());
  o.ranks = 4;
  o.ranks_given = true;
  EXPECT_THAT(std::string(ValidateForRanks(o, 2, /*launched_by_us=*/false).message()),
              HasSubstr("--ranks '4' but mpirun started 2 ranks"));
  o.ranks_given = false;
  o.root = 3;
  EXPECT_THAT(std::string(ValidateForRanks(o, 2, true).message()), HasSubstr("-r/--root '3': must be < the number"));
  o.root = 0;
  o.ranks_per_node = 3;
  EXPECT_THAT(std::string(ValidateForRanks(o, 4, true).message()), HasSubstr("--ranks_per_node '3' does not divide"));
}

TEST(OptionsTest, UsageListsEveryFlag) {
  const std::string usage = Usage("all_reduce", Context());
  for (const char* flag :
       {"--minbytes",       "--maxbytes",        "--stepfactor",  "--stepbytes",    "--iters",      "--warmup_iters",
        "--agg_iters",      "--check",           "--op",          "--datatype",     "--root",       "--average",
        "--timeout",        "--per_iter_timing", "--json",        "--algo",         "--exec",       "--ranks",
        "--ranks_per_node", "--intra_bw",        "--inter_bw",    "--profile",      "--model",      "--calibrate",
        "--touch_input",    "--rounds",          "--recalibrate", "--with_timeout", "--nonblocking"}) {
    EXPECT_THAT(usage, HasSubstr(flag));
  }
}

}  // namespace
}  // namespace bench
}  // namespace kcoll
