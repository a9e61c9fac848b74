#include "tools/verify/grid.h"

#include <mpi.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/kernels/backend.h"

namespace kcoll {
namespace verify {
namespace {

template <class T>
bool Selected(const std::vector<T>& chosen, T value) {
  return chosen.empty() || std::find(chosen.begin(), chosen.end(), value) != chosen.end();
}

}  // namespace

std::vector<Row> MakeRows(const VerifyOptions& options) {
  std::vector<Row> rows;
  for (Collective c : AllCollectives()) {
    if (!Selected(options.collectives, c)) continue;
    std::vector<Algorithm> algorithms = {Algorithm::kAuto};
    for (Algorithm a : AlgorithmsFor(c)) algorithms.push_back(a);
    for (Algorithm a : algorithms) rows.push_back({c, a, absl::StrCat(CollectiveName(c), "/", AlgorithmName(a))});
  }
  return rows;
}

std::vector<Setup> MakeSetups(const VerifyOptions& options, std::vector<std::string>* skipped) {
  std::vector<Setup> setups;
  for (ExecBackend exec : {ExecBackend::kSerial, ExecBackend::kOpenMP, ExecBackend::kCuda}) {
    if (!Selected(options.execs, exec)) continue;
    if (!IsAvailable(exec)) {
      skipped->push_back(absl::StrCat(ExecBackendName(exec), ": not in this Kokkos (",
                                      exec == ExecBackend::kCuda ? "no CUDA backend: docs/gpu.md" : "not enabled",
                                      ")"));
      continue;
    }
    const bool device = exec == ExecBackend::kCuda;
    for (TransportKind transport :
         {TransportKind::kShm, TransportKind::kMpi, TransportKind::kNccl, TransportKind::kCudaIpc}) {
      if (!Selected(options.transports, transport)) continue;
      // shm moves host memory, NCCL and CUDA IPC device memory; MPI moves either (staged through the host, or
      // CUDA-aware).
      const TransportMemory moves = MemoryMovedBy(transport);
      if ((moves == TransportMemory::kHost && device) || (moves == TransportMemory::kDevice && !device)) continue;
      setups.push_back({transport, exec, absl::StrCat(TransportKindName(transport), "/", ExecBackendName(exec))});
    }
  }
  return setups;
}

std::vector<Column> MakeColumns(const VerifyOptions& options, const std::vector<Setup>& setups) {
  std::vector<Column> columns;
  for (int s = 0; s < static_cast<int>(setups.size()); ++s) {
    for (Numerics numerics : {Numerics::kFast, Numerics::kDeterministic, Numerics::kExact}) {
      if (Selected(options.numerics, numerics)) columns.push_back({s, numerics});
    }
  }
  return columns;
}

std::string NotApplicable(const Row& row, const Setup& setup, Numerics numerics) {
  if (numerics != Numerics::kFast && !Reduces(row.collective)) return "(data)";
  const AlgorithmNeeds needs = FactsOf(row.algorithm).needs;
  const bool node_shm = SharesNodeMemory(setup.transport) && setup.exec != ExecBackend::kCuda;
  if (needs == AlgorithmNeeds::kOneNodeShm && !node_shm) return "(shm)";
  if (needs == AlgorithmNeeds::kVendorMpi && setup.exec == ExecBackend::kCuda) return "(host)";
  // Each cell also runs its calls nonblocking, which a progress thread may run: MPI's collective needs
  // MPI_THREAD_MULTIPLE there (verify asks for it; an MPI that does not give it leaves the row out).
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (needs == AlgorithmNeeds::kVendorMpi && level < MPI_THREAD_MULTIPLE) return "(thread)";
  // Registered buffers are device memory with CUDA kernels, mapped through CUDA IPC whatever the transport.
  if (needs == AlgorithmNeeds::kRegisteredBuffers && !node_shm && setup.exec != ExecBackend::kCuda) return "(shm)";
  return "";
}

std::vector<std::pair<std::string, std::string>> NotApplicableLegend() {
  return {
      {"(data)", "moves data, reduces nothing: the numerics modes change reductions only (the fast column checks it)"},
      {"(shm)",
       "needs every rank on one node over the shm transport, on host buffers (inline; direct also "
       "registered buffers, which with cuda kernels are device memory on any transport)"},
      {"(host)", "MPI's own collective (vendor) runs on host buffers"},
      {"(thread)",
       "MPI's own collective (vendor) run nonblocking needs MPI_THREAD_MULTIPLE, which this MPI did not give"},
      {"(order)",
       "integer data passed; floating-point calls refused as documented: a named algorithm combines in an "
       "order of its own (docs/numerics.md)"},
      {"(setup)", "the column's communicator could not be created (the reason is printed above)"},
  };
}

}  // namespace verify
}  // namespace kcoll
