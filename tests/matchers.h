// The GoogleTest matchers kcoll's tests use, declared once in kcoll's namespace rather than at the top of every test
// file, with the absl::Status matchers of base/status_matchers.h. Every kcoll_test and mpi_test links it.
#ifndef KCOLL_TESTS_MATCHERS_H_
#define KCOLL_TESTS_MATCHERS_H_

#include "base/status_matchers.h"
#include "gmock/gmock.h"

namespace kcoll {

using ::testing::Contains;
using ::testing::DoubleEq;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Pair;
using ::testing::StartsWith;

}  // namespace kcoll

#endif  // KCOLL_TESTS_MATCHERS_H_
