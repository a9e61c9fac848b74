// GoogleTest main for single-process tests that use Kokkos: initialises Kokkos once (with every backend it has),
// runs the tests, finalises.
#include <Kokkos_Core.hpp>

#include "gtest/gtest.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::initialize(argc, argv);
  const int result = RUN_ALL_TESTS();
  Kokkos::finalize();
  return result;
}
