// The vendor AllReduce (collectives/algorithms/all_reduce/vendor.cc): MPI's own collective behind kcoll's API.
//
// Every type and op, out of place and in place, at counts from 1 to past a slot, bit for bit against the exact
// reference and (the types MPI reduces) against MPI_Allreduce called directly; the same under a timeout, where it
// runs as MPI_Iallreduce polled; KCOLL_ALGO=vendor routing auto calls to it (the counters say); `auto` never taking it
// by price; and a nonblocking call: run where MPI may be called from the thread that runs it, refused with the reason
// where it may not (a progress thread under less than MPI_THREAD_MULTIPLE), the communicator still usable after.
#include <mpi.h>

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "collectives/communicator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/all_reduce_check.h"
#include "tests/collective_test_util.h"
#include "tests/make_communicator.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"
#include "tests/scoped_env.h"

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

}  // namespace
}  // namespace testing
}  // namespace kcoll
