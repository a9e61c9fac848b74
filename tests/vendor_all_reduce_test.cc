// The vendor AllReduce (collectives/algorithms/all_reduce/vendor.cc): MPI's own collective behind kcoll's API, and
// `auto` handing it the sizes a profile measured faster in MPI (calibration/vendor_sizes.h).
//
// Every type and op, out of place and in place, at counts from 1 to past a slot, bit for bit against the exact
// reference and (the types MPI reduces) against MPI_Allreduce called directly; the same under a timeout, where it
// runs as MPI_Iallreduce polled; KCOLL_ALGO=vendor routing auto calls to it (the counters say); `auto` never taking it
// by price; and a nonblocking call: run where MPI may be called from the thread that runs it, refused with the reason
// where it may not (a progress thread under less than MPI_THREAD_MULTIPLE), the communicator still usable after.
// With a profile's vendor sizes: `auto` calls of those sizes (inline-sized ones too) run it and no other does; a
// numerics mode other than fast, a named algorithm or KCOLL_ALGO keep kcoll's schedules; a nonblocking call takes it
// only where its thread may call MPI; the description says which sizes; SetProfile to a profile without them ends it.
#include <mpi.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "choice/auto_choice.h"
#include "collectives/communicator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/profile_json.h"
#include "tests/all_reduce_check.h"
#include "tests/collective_test_util.h"
#include "tests/make_communicator.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"
#include "tests/scoped_env.h"
#include "tests/test_files.h"

namespace kcoll {
namespace testing {
namespace {

using ::testing::HasSubstr;

uint64_t VendorCalls(const Communicator& comm) {
  const CollectiveCounts* entry = comm.counters().Find(Collective::kAllReduce, Algorithm::kVendor);
  return entry == nullptr ? 0 : entry->calls;
}

// One AllReduce asked of `algorithm` (vendor, or auto under KCOLL_ALGO), checked against the reference and MPI.
void ExpectExact(Communicator& comm, DataType type, ReduceOp op, size_t count, bool in_place, Algorithm algorithm) {
  CallOptions options;
  options.algorithm = algorithm;
  EXPECT_TRUE(AllReduceMatches(comm, options, type, op, count, in_place));
}

void ExpectEveryTypeAndOp(Communicator& comm) {
  for (DataType type : AllDataTypes()) {
    for (ReduceOp op : AllReduceOps()) {
      for (size_t count : {size_t{1}, size_t{7}, size_t{1000}, size_t{70000}}) {
        for (bool in_place : {false, true}) ExpectExact(comm, type, op, count, in_place, Algorithm::kVendor);
      }
    }
    ASSERT_TRUE(AllRanks(!::testing::Test::HasFailure())) << DataTypeName(type);
  }
}

TEST(VendorAllReduce, EveryTypeAndOpIsBitExact) {
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  ExpectEveryTypeAndOp(*comm);
  EXPECT_EQ(VendorCalls(*comm), AllDataTypes().size() * AllReduceOps().size() * 4 * 2);
  EXPECT_EQ(comm->counters().total.send.calls, 0u) << "kcoll's transport moved data for MPI's collective";
}

TEST(VendorAllReduce, UnderATimeoutItIsPolledAndStillExact) {
  auto comm = MakeSerialCommunicator(absl::Seconds(60));
  ASSERT_TRUE(AllRanks(comm != nullptr));
  ExpectEveryTypeAndOp(*comm);
}

TEST(VendorAllReduce, KcollAlgoRoutesAutoCallsAndAutoNeverPricesIt) {
  {
    auto comm = MakeSerialCommunicator();
    ASSERT_TRUE(AllRanks(comm != nullptr));
    for (size_t bytes : {size_t{8}, size_t{4096}, size_t{1} << 20, size_t{1} << 30}) {
      absl::StatusOr<Algorithm> chosen = comm->ResolveAlgorithm(Collective::kAllReduce, bytes, Algorithm::kAuto);
      ASSERT_TRUE(chosen.ok()) << chosen.status();
      EXPECT_NE(*chosen, Algorithm::kVendor) << bytes << " B";
    }
  }
  ScopedEnv algo("KCOLL_ALGO", "all_reduce=vendor");
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  ExpectExact(*comm, DataType::kFloat64, ReduceOp::kSum, 5000, false, Algorithm::kAuto);
  ExpectExact(*comm, DataType::kInt32, ReduceOp::kMax, 3, true, Algorithm::kAuto);
  EXPECT_EQ(VendorCalls(*comm), 2u);
}

TEST(VendorAllReduce, ANonblockingCallRunsOnlyWhereItsThreadMayCallMpi) {
  auto comm = MakeSerialCommunicator();
  ASSERT_TRUE(AllRanks(comm != nullptr));
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  const bool refused = comm->progress().rfind("thread", 0) == 0 && level < MPI_THREAD_MULTIPLE;
  const int n = WorldSize();
  std::vector<double> send(300, 1.5), recv(300, 0.0);
  CallOptions options;
  options.algorithm = Algorithm::kVendor;
  Request request =
      comm->IAllReduce(send.data(), recv.data(), send.size(), DataType::kFloat64, ReduceOp::kSum, options);
  const absl::Status status = request.Wait();
  if (refused) {
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
    EXPECT_THAT(status.message(), HasSubstr("MPI_THREAD_MULTIPLE"));
  } else {
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(recv, std::vector<double>(300, 1.5 * n));
  }
  // Refused before any traffic: the communicator goes on.
  ExpectExact(*comm, DataType::kFloat32, ReduceOp::kSum, 33, false, Algorithm::kVendor);
  EXPECT_EQ(VendorCalls(*comm), 2u);  // a refused call counts as a call
}

// The shipped profile with `ranges` as its vendor sizes, in a file of this rank's.
std::string ProfileWithVendorSizes(const std::string& name, std::vector<std::pair<int64_t, int64_t>> ranges) {
  models::Profile profile = BuiltInProfileChoice().profile;
  profile.vendor_all_reduce_bytes = std::move(ranges);
  const std::string path = absl::StrCat(TempDir(), "/", name, "_rank", WorldRank(), ".json");
  EXPECT_TRUE(models::SaveProfile(profile, path).ok());
  return path;
}

std::unique_ptr<Communicator> WithProfile(const std::string& path) {
  CommunicatorOptions options;
  options.backend = ExecBackend::kSerial;
  options.profile_path = path;
  return MakeCommunicator(options);
}

// One float sum of `bytes` per rank asked of `auto` (with `numerics`), checked; whether it ran the vendor path.
bool RanVendor(Communicator& comm, size_t bytes, Numerics numerics = Numerics::kFast) {
  const uint64_t before = VendorCalls(comm);
  CallOptions options;
  options.numerics = numerics;
  EXPECT_TRUE(AllReduceMatches(comm, options, DataType::kFloat32, ReduceOp::kSum, bytes / 4, false)) << bytes;
  return VendorCalls(comm) > before;
}

TEST(VendorAllReduce, AutoHandsTheProfilesSizesToIt) {
  // The lane may take up to 4 KiB: a vendor size it could take goes to MPI all the same.
  ScopedEnv lane("KCOLL_INLINE_MAX_BYTES", "4096");
  auto comm = WithProfile(ProfileWithVendorSizes("vendor", {{4096, 65536}, {1 << 20, 1 << 20}}));
  ASSERT_TRUE(AllRanks(comm != nullptr));
  for (size_t bytes : {size_t{4096}, size_t{8192}, size_t{65536}, size_t{1} << 20}) {
    EXPECT_TRUE(RanVendor(*comm, bytes)) << bytes;
  }
  for (size_t bytes : {size_t{8}, size_t{2048}, size_t{65540}, size_t{262144}, (size_t{1} << 20) + 4}) {
    EXPECT_FALSE(RanVendor(*comm, bytes)) << bytes;
  }
  // Only numerics=fast: deterministic and exact keep kcoll's orders.
  for (Numerics numerics : {Numerics::kDeterministic, Numerics::kExact}) {
    EXPECT_FALSE(RanVendor(*comm, 8192, numerics)) << NumericsName(numerics);
  }
  const std::string described = absl::StrJoin(comm->Describe(), "\n");
  EXPECT_THAT(described, HasSubstr("auto hands AllReduce to MPI's own collective at: 4K-64K, 1M per rank"));
  EXPECT_THAT(comm->DescribeJson(), HasSubstr(R"("vendor_all_reduce":"4K-64K, 1M")"));
  // A named algorithm is run as named.
  CallOptions ring;
  ring.algorithm = Algorithm::kRing;
  const uint64_t before = VendorCalls(*comm);
  EXPECT_TRUE(AllReduceMatches(*comm, ring, DataType::kFloat32, ReduceOp::kSum, 2048, true));
  EXPECT_EQ(VendorCalls(*comm), before);
  // A profile without vendor sizes ends it.
  ASSERT_TRUE(AllRanks(comm->SetProfile(ProfileWithVendorSizes("none", {})).ok()));
  EXPECT_FALSE(RanVendor(*comm, 8192));
  EXPECT_THAT(absl::StrJoin(comm->Describe(), "\n"), ::testing::Not(HasSubstr("MPI's own collective")));
}

TEST(VendorAllReduce, KcollAlgoKeepsItsAlgorithmOverTheProfilesSizes) {
  ScopedEnv algo("KCOLL_ALGO", "all_reduce=ring");
  auto comm = WithProfile(ProfileWithVendorSizes("vendor_algo", {{4096, 65536}}));
  ASSERT_TRUE(AllRanks(comm != nullptr));
  EXPECT_FALSE(RanVendor(*comm, 8192));
}

TEST(VendorAllReduce, ANonblockingAutoCallTakesItOnlyWhereItsThreadMayCallMpi) {
  auto comm = WithProfile(ProfileWithVendorSizes("vendor_nonblocking", {{4096, 65536}}));
  ASSERT_TRUE(AllRanks(comm != nullptr));
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  const bool on_thread = comm->progress().rfind("thread", 0) == 0;
  const int n = WorldSize();
  std::vector<float> send(2048, 0.5f), recv(2048, 0.0f);
  Request request = comm->IAllReduce(send.data(), recv.data(), send.size(), DataType::kFloat32, ReduceOp::kSum);
  ASSERT_TRUE(AllRanks(request.Wait().ok()));
  EXPECT_EQ(recv, std::vector<float>(2048, 0.5f * n));
  EXPECT_EQ(VendorCalls(*comm), on_thread && level < MPI_THREAD_MULTIPLE ? 0u : 1u)
      << comm->progress() << ", thread level " << level;
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
