// kcoll's collectives, through the public Communicator API, with the algorithm fixed (or kAuto: kcoll's choice).
#ifndef KCOLL_BENCH_KCOLL_IMPLEMENTATION_H_
#define KCOLL_BENCH_KCOLL_IMPLEMENTATION_H_

#include <memory>

#include "bench/implementation.h"
#include "collectives/communicator.h"

namespace kcoll {
namespace bench {

std::unique_ptr<Implementation> MakeKcollImplementation(Communicator* comm, Algorithm algorithm);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_KCOLL_IMPLEMENTATION_H_
