// A communicator over MPI_COMM_WORLD for a test: null, with the test failed, when it cannot be created.
#ifndef KCOLL_TESTS_MAKE_COMMUNICATOR_H_
#define KCOLL_TESTS_MAKE_COMMUNICATOR_H_

#include <mpi.h>

#include <memory>
#include <utility>

#include "absl/time/time.h"

#include "collectives/communicator.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace testing {

inline std::unique_ptr<Communicator> MakeCommunicator(const CommunicatorOptions& options = {}) {
  auto comm = Communicator::Create(MPI_COMM_WORLD, options);
  EXPECT_TRUE(comm.ok()) << comm.status();
  return comm.ok() ? std::move(comm).value() : nullptr;
}

inline std::unique_ptr<Communicator> MakeCommunicator(ExecBackend backend) {
  CommunicatorOptions options;
  options.backend = backend;
  return MakeCommunicator(options);
}

// Serial kernels (one thread per rank) and a timeout (none by default).
inline std::unique_ptr<Communicator> MakeSerialCommunicator(absl::Duration timeout = absl::InfiniteDuration()) {
  CommunicatorOptions options;
  options.backend = ExecBackend::kSerial;
  options.timeout = timeout;
  return MakeCommunicator(options);
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_MAKE_COMMUNICATOR_H_
