// The public headers, compiled with nothing but themselves, base's public headers and the libraries kcoll builds on
// in reach (//collectives:public_headers): a public header that includes one of kcoll's internal headers does not
// build here. What they declare is then checked against what an application relies on.
#include "absl/status/status.h"
#include "collectives/bucket_fusion.h"
#include "collectives/communicator.h"
#include "collectives/counters.h"
#include "collectives/kcoll.h"
#include "collectives/options.h"
#include "collectives/views.h"
#include "gtest/gtest.h"

// tests/public_headers_c_test.c: kcoll.h compiled as C.
extern "C" int KcollHeaderStatusCodes(int* codes, int capacity);

namespace kcoll {
namespace {

TEST(PublicHeaders, CStatusCodesAreAbseilsInCAndInCxx) {
  const absl::StatusCode codes[] = {absl::StatusCode::kOk,
                                    absl::StatusCode::kInvalidArgument,
                                    absl::StatusCode::kDeadlineExceeded,
                                    absl::StatusCode::kFailedPrecondition,
                                    absl::StatusCode::kUnimplemented,
                                    absl::StatusCode::kInternal};
  const int cxx[] = {
      KCOLL_OK,      KCOLL_INVALID_ARGUMENT, KCOLL_DEADLINE_EXCEEDED, KCOLL_FAILED_PRECONDITION, KCOLL_UNIMPLEMENTED,
      KCOLL_INTERNAL};
  int c[6] = {};
  ASSERT_EQ(KcollHeaderStatusCodes(c, 6), 6);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(cxx[i], static_cast<int>(codes[i])) << i;
    EXPECT_EQ(c[i], cxx[i]) << i;
  }
}

TEST(PublicHeaders, OptionsDefaultToTheEnvironmentAndAuto) {
  const CommunicatorOptions options;
  EXPECT_FALSE(options.backend.has_value());
  EXPECT_FALSE(options.transport.has_value());
  EXPECT_FALSE(options.timeout.has_value());
  EXPECT_EQ(options.ranks_per_node, 0);
  EXPECT_EQ(CallOptions().algorithm, Algorithm::kAuto);
  EXPECT_EQ(Communicator::kAutoDirectMinBytes, size_t{8} << 20);
}

}  // namespace
}  // namespace kcoll
