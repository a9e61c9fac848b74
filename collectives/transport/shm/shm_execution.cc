#include "collectives/transport/shm/shm_execution.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "collectives/byte_size.h"
#include "collectives/env.h"
#include "collectives/status_macros.h"
#include "collectives/transport/mpi/agreement.h"
#include "collectives/transport/shm/shm_transport.h"

namespace kcoll {
namespace {

// Whether every rank of `comm` is on this rank's host.
absl::Status CheckOneHost(MPI_Comm comm) {
  int size = 0, local_size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &local_size);
  MPI_Comm_free(&node);
  if (local_size == size) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("transport 'shm' needs every rank on one host, but ", size,
                                                    " ranks span several (", local_size,
                                                    " share this one); use KCOLL_TRANSPORT=mpi or auto"));
}

absl::StatusOr<size_t> SizeFromEnv(const char* name, size_t fallback) {
  const char* env = GetEnv(name);
  if (env == nullptr) return fallback;
  absl::StatusOr<size_t> parsed = ParseByteSize(env);
  if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat(name, ": ", parsed.status().message()));
  return *parsed;
}

// The segment's shape and the single-copy threshold: defaults, or KCOLL_SHM_SLOTS, KCOLL_SHM_SLOT_BYTES and
// KCOLL_SHM_SINGLE_COPY (0: never). Every rank reads the same environment.
absl::StatusOr<ShmOptions> OptionsFromEnv() {
  ShmOptions options;
  KCOLL_ASSIGN_OR_RETURN(size_t slots, SizeFromEnv("KCOLL_SHM_SLOTS", static_cast<size_t>(options.slots)));
  if (slots > 1024) return absl::InvalidArgumentError(absl::StrCat("KCOLL_SHM_SLOTS: ", slots, " is over 1024"));
  options.slots = static_cast<int>(slots);
  KCOLL_ASSIGN_OR_RETURN(options.slot_bytes, SizeFromEnv("KCOLL_SHM_SLOT_BYTES", options.slot_bytes));
  KCOLL_ASSIGN_OR_RETURN(options.single_copy_bytes, SizeFromEnv("KCOLL_SHM_SINGLE_COPY", options.single_copy_bytes));
  return options;
}

}  // namespace

absl::StatusOr<Execution> MakeShmExecution(ExecutionRequest request) {
  KCOLL_RETURN_IF_ERROR(AgreeAcrossRanks(request.mpi->comm(), CheckOneHost(request.mpi->comm()),
                                         "checking that the ranks share a host"));
  Execution out;
  KCOLL_ASSIGN_OR_RETURN(out.kernels, MakeKernels(request.backend, /*synchronous=*/true));
  KCOLL_ASSIGN_OR_RETURN(ShmOptions options, OptionsFromEnv());
  KCOLL_ASSIGN_OR_RETURN(std::unique_ptr<ShmTransport> shm, ShmTransport::Create(request.mpi->comm(), options));
  shm->set_timeout(request.timeout.timeout, request.timeout.source);
  out.description = absl::StrCat(shm->Describe(), ", ", out.kernels->name(), " kernels on host buffers");
  out.transport = std::move(shm);
  return out;
}

}  // namespace kcoll
