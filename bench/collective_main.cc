// main() of //bench:<collective> and //bench:all: KCOLL_BENCH_COLLECTIVE names the collective (or "all").
#include <string>
#include <vector>

#include "base/names.h"
#include "bench/driver/collective_bench.h"

#ifndef KCOLL_BENCH_COLLECTIVE
#error "KCOLL_BENCH_COLLECTIVE must name the collective (set by bench/BUILD)"
#endif

#define KCOLL_STRINGIFY_INNER(x) #x
#define KCOLL_STRINGIFY(x) KCOLL_STRINGIFY_INNER(x)

int main(int argc, char** argv) {
  const std::string name = KCOLL_STRINGIFY(KCOLL_BENCH_COLLECTIVE);
  std::vector<kcoll::Collective> collectives;
  if (name == "all") {
    for (kcoll::Collective c : kcoll::AllCollectives()) {
      if (c != kcoll::Collective::kBarrier) collectives.push_back(c);
    }
  } else {
    collectives.push_back(*kcoll::ParseCollective(name));
  }
  return kcoll::bench::CollectiveBenchMain(argc, argv, name, collectives);
}
