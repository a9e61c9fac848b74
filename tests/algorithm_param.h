// The name GoogleTest gives a test instantiated over algorithms: the algorithm's own ("ring", "tree", ...).
#ifndef KCOLL_TESTS_ALGORITHM_PARAM_H_
#define KCOLL_TESTS_ALGORITHM_PARAM_H_

#include <string>

#include "base/names.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace testing {

inline std::string AlgorithmParamName(const ::testing::TestParamInfo<Algorithm>& info) {
  return std::string(AlgorithmName(info.param));
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_ALGORITHM_PARAM_H_
