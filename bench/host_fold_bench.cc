// //bench:host_fold: the inline lane's fold (HostReduceInOrder, collectives/kernels/host_reduce.h), the reduction a
// small AllReduce runs on the calling thread after the exchange, timed alone: n inputs of S bytes of float32 summed in
// input order into a separate buffer, for S from 64 B to the 4 KiB a rank's inline lines hold. Each row reports ns per
// fold and GB/s of input read (n x S per fold), beside a memcpy of S in the same run (the least a pass over S costs).
// The inputs stay in cache: this is the arithmetic's cost, not the exchange's. Google Benchmark's flags apply.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "base/types.h"
#include "collectives/kernels/host_reduce.h"

namespace kcoll {
namespace {

void BM_HostFold(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const int n = static_cast<int>(state.range(1));
  const size_t count = bytes / sizeof(float);
  std::vector<std::vector<float>> inputs(n, std::vector<float>(count));
  for (int r = 0; r < n; ++r) {
    for (size_t i = 0; i < count; ++i) inputs[r][i] = 0.5f * static_cast<float>(r + 1) + static_cast<float>(i % 7);
  }
  std::vector<const unsigned char*> pointers;
  for (const auto& input : inputs) pointers.push_back(reinterpret_cast<const unsigned char*>(input.data()));
  std::vector<float> out(count);
  for (auto _ : state) {
    if (!HostReduceInOrder(ReduceOp::kSum, DataType::kFloat32, out.data(), pointers.data(), n, count)) {
      state.SkipWithError("HostReduceInOrder refused float32 sum");
      break;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes) * n);
}

void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<unsigned char> in(bytes, 1), out(bytes);
  for (auto _ : state) {
    std::memcpy(out.data(), in.data(), bytes);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
}

BENCHMARK(BM_HostFold)->ArgNames({"bytes", "inputs"})->ArgsProduct({{64, 256, 512, 1024, 2048, 4096}, {2, 4, 8}});
BENCHMARK(BM_Memcpy)->ArgName("bytes")->Arg(64)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->Arg(4096);

}  // namespace
}  // namespace kcoll

BENCHMARK_MAIN();
