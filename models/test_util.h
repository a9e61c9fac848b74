// Helpers shared by the models tests.
#ifndef KCOLL_MODELS_TEST_UTIL_H_
#define KCOLL_MODELS_TEST_UTIL_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/machine.h"

namespace kcoll {
namespace models {

// Test helpers live in kcoll::models itself so that every models test uses them unqualified (Unwrap and the Status
// matchers of base/status_matchers.h are found in kcoll).

// A link of `alpha_s` latency and `bytes_per_s` bandwidth.
inline LinkParams Link(double alpha_s, double bytes_per_s) { return LinkParams{alpha_s, 1.0 / bytes_per_s}; }

// Intra- and inter-node links alike.
inline Profile Uniform(double alpha_s, double bytes_per_s, double gamma_s_per_byte = 0) {
  Profile p;
  p.intra = p.inter = Link(alpha_s, bytes_per_s);
  p.gamma_s_per_byte = gamma_s_per_byte;
  return p;
}

inline Profile TwoLevel(double intra_alpha, double intra_bw, double inter_alpha, double inter_bw,
                        double gamma_s_per_byte = 0) {
  Profile p;
  p.intra = Link(intra_alpha, intra_bw);
  p.inter = Link(inter_alpha, inter_bw);
  p.gamma_s_per_byte = gamma_s_per_byte;
  return p;
}

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_TEST_UTIL_H_
