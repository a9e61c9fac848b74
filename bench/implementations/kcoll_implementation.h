// kcoll's collectives, through the public Communicator API, with the algorithm fixed (or kAuto: kcoll's choice).
#ifndef KCOLL_BENCH_IMPLEMENTATIONS_KCOLL_IMPLEMENTATION_H_
#define KCOLL_BENCH_IMPLEMENTATIONS_KCOLL_IMPLEMENTATION_H_

#include <memory>
#include <string>

#include "bench/implementations/implementation.h"
#include "collectives/communicator.h"

namespace kcoll {
namespace bench {

// `label`, if not empty, follows the algorithm in the row's name ("ring timeout=30s"). `registered`: the row runs on
// registered buffers ("auto registered"; `direct` runs only on them).
std::unique_ptr<Implementation> MakeKcollImplementation(Communicator* comm, Algorithm algorithm, std::string label = "",
                                                        bool registered = false);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_IMPLEMENTATIONS_KCOLL_IMPLEMENTATION_H_
