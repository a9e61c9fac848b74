#include "collectives/transport/nccl/nccl_bootstrap.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/transport/backoff.h"
#include "collectives/transport/cuda/cuda_errors.h"
#include "collectives/transport/cuda/gpu_placement.h"
#include "collectives/transport/nccl/nccl_errors.h"

namespace kcoll {
namespace {

constexpr uint32_t kBootstrapMagic = 0x4b434e49;  // "KCNI"

void PutU32(char* at, uint32_t v) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<char>((v >> (8 * i)) & 0xffu);
}

uint32_t GetU32(const char* at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(at[i])) << (8 * i);
  return v;
}

std::string VersionString(int code) {
  // NCCL_VERSION(X, Y, Z) = X*10000 + Y*100 + Z since 2.9 (X*1000 + Y*100 + Z before).
  if (code >= 20900) return absl::StrCat(code / 10000, ".", (code / 100) % 100, ".", code % 100);
  return absl::StrCat(code / 1000, ".", (code / 100) % 10, ".", code % 100);
}

// Fails when two ranks of this node would drive the same GPU (NCCL does not support it and may hang), unless
// NCCL_MULTI_RANK_GPU_ENABLE=1 hands the decision to NCCL.
absl::Status CheckDistinctDevices(MPI_Comm comm, int device) {
  char bus_id[32] = {};
  absl::Status local = CudaStatus(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device), "cudaDeviceGetPCIBusId");
  MPI_Comm node = MPI_COMM_NULL;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) != MPI_SUCCESS) {
    return absl::InternalError("MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed");
  }
  int local_size = 1;
  MPI_Comm_size(node, &local_size);
  std::vector<char> all(sizeof(bus_id) * local_size);
  std::vector<int> ranks(local_size);
  MPI_Allgather(bus_id, sizeof(bus_id), MPI_CHAR, all.data(), sizeof(bus_id), MPI_CHAR, node);
  MPI_Allgather(&rank, 1, MPI_INT, ranks.data(), 1, MPI_INT, node);
  MPI_Comm_free(&node);
  std::vector<std::string> ids;
  for (int i = 0; i < local_size; ++i) ids.emplace_back(all.data() + i * sizeof(bus_id));
  if (local.ok() && !NcclMayShareGpus()) {
    if (auto shared = FindSharedDevice(ids)) {
      local = absl::FailedPreconditionError(absl::StrCat("ranks ", ranks[shared->first], " and ", ranks[shared->second],
                                                         " would both use the CUDA device at PCI ", ids[shared->first],
                                                         ": NCCL needs one device per rank (or "
                                                         "NCCL_MULTI_RANK_GPU_ENABLE=1 where NCCL allows it)"));
    }
  }
  return AgreeAcrossRanks(comm, local, "choosing one CUDA device per rank");
}

}  // namespace

std::string EncodeBootstrapMessage(int nccl_version, ncclResult_t result, const ncclUniqueId& id) {
  std::string message(kBootstrapMessageBytes, '\0');
  PutU32(&message[0], kBootstrapMagic);
  PutU32(&message[4], static_cast<uint32_t>(nccl_version));
  PutU32(&message[8], static_cast<uint32_t>(result));
  std::memcpy(&message[12], id.internal, sizeof(id.internal));
  return message;
}

absl::StatusOr<ncclUniqueId> DecodeBootstrapMessage(absl::string_view message, int local_nccl_version) {
  if (message.size() != kBootstrapMessageBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("NCCL bootstrap message has ", message.size(), " bytes, expected ", kBootstrapMessageBytes));
  }
  if (GetU32(message.data()) != kBootstrapMagic) {
    return absl::InvalidArgumentError("NCCL bootstrap message does not start with kcoll's magic word");
  }
  const int root_version = static_cast<int>(GetU32(message.data() + 4));
  const auto result = static_cast<ncclResult_t>(GetU32(message.data() + 8));
  if (result != ncclSuccess) {
    return absl::FailedPreconditionError(
        absl::StrCat("rank 0 could not create the NCCL unique id: ", NcclStatus(result, "ncclGetUniqueId").message()));
  }
  if (root_version != local_nccl_version) {
    return absl::FailedPreconditionError(absl::StrCat("rank 0 runs NCCL ", VersionString(root_version),
                                                      " but this rank runs NCCL ", VersionString(local_nccl_version),
                                                      ": every rank must load the same NCCL library"));
  }
  ncclUniqueId id;
  std::memcpy(id.internal, message.data() + 12, sizeof(id.internal));
  return id;
}

absl::Status AwaitNccl(ncclComm_t comm, absl::Duration timeout, absl::string_view what) {
  const absl::Time deadline = absl::Now() + timeout;
  Backoff backoff;
  while (true) {
    ncclResult_t state = ncclSuccess;
    const ncclResult_t query = ncclCommGetAsyncError(comm, &state);
    if (query != ncclSuccess) return NcclStatus(query, "ncclCommGetAsyncError", comm);
    if (state == ncclSuccess) return absl::OkStatus();
    if (state != ncclInProgress) return NcclStatus(state, what, comm);
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat(what, " did not finish within ", absl::FormatDuration(timeout)));
    }
    backoff.Pause();
  }
}

absl::StatusOr<ncclComm_t> CreateNcclComm(MPI_Comm comm, const NcclCommOptions& options) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  int version = 0;
  absl::Status local = NcclStatus(ncclGetVersion(&version), "ncclGetVersion");
  if (local.ok() && version < kMinNcclVersion) {
    local = absl::FailedPreconditionError(absl::StrCat("NCCL ", VersionString(version), " is too old: kcoll needs ",
                                                       VersionString(kMinNcclVersion), " or newer"));
  }
  if (local.ok()) {
    local = CudaStatus(cudaSetDevice(options.device), absl::StrCat("cudaSetDevice(", options.device, ")"));
  }
  if (absl::Status s = AgreeAcrossRanks(comm, local, "selecting the CUDA device"); !s.ok()) return s;
  if (absl::Status s = CheckDistinctDevices(comm, options.device); !s.ok()) return s;

  std::string message(kBootstrapMessageBytes, '\0');
  if (rank == 0) {
    ncclUniqueId id;
    std::memset(&id, 0, sizeof(id));
    const ncclResult_t result = ncclGetUniqueId(&id);
    message = EncodeBootstrapMessage(version, result, id);
  }
  MPI_Bcast(&message[0], static_cast<int>(message.size()), MPI_BYTE, 0, comm);
  absl::StatusOr<ncclUniqueId> id = DecodeBootstrapMessage(message, version);
  if (absl::Status s = AgreeAcrossRanks(comm, id.status(), "receiving the NCCL unique id"); !s.ok()) return s;

  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = options.nonblocking ? 0 : 1;
  ncclComm_t nccl = nullptr;
  const ncclResult_t init = ncclCommInitRankConfig(&nccl, nranks, *id, rank, &config);
  if (init == ncclInProgress) {
    local = AwaitNccl(
        nccl, options.timeout,
        absl::StrCat("ncclCommInitRankConfig on rank ", rank, " (waiting for all ", nranks, " ranks to join)"));
  } else {
    local = NcclStatus(init, "ncclCommInitRankConfig", nccl);
  }
  if (!local.ok() && nccl != nullptr) {
    ncclCommAbort(nccl);
    nccl = nullptr;
  }
  if (absl::Status s = AgreeAcrossRanks(comm, local, "creating the NCCL communicator"); !s.ok()) {
    if (nccl != nullptr) ncclCommAbort(nccl);
    return s;
  }
  return nccl;
}

}  // namespace kcoll
