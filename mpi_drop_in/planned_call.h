// The MPI collectives whose buffers the library may have to pack (data movement, the v-collectives and the
// reduce-scatters) as kcoll calls, shared by their blocking and nonblocking forms: a Plan function reads the MPI
// arguments on this rank and gives kcoll's call over contiguous bytes (the caller's buffers, or packed copies of them),
// the buffers it holds, and what completes it on this rank once kcoll's call succeeded (unpacking a receive buffer,
// moving an in-place result to where MPI puts it). RunPlanned runs it as a blocking call, StartPlanned as an MPI
// request (nonblocking.h); an argument this rank cannot describe is returned at once as the call's error.
#ifndef KCOLL_MPI_DROP_IN_PLANNED_CALL_H_
#define KCOLL_MPI_DROP_IN_PLANNED_CALL_H_

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "collectives/collective_call.h"
#include "collectives/communicator.h"
#include "mpi_drop_in/byte_buffer.h"
#include "mpi_drop_in/call_stats.h"
#include "mpi_drop_in/host_mirror.h"

namespace kcoll::drop_in {

// Move-only: `call` points into the buffers held here, which a move keeps where they are (vectors' heap storage).
class PlannedCall {
 public:
  PlannedCall() = default;
  PlannedCall(PlannedCall&&) = default;
  PlannedCall& operator=(PlannedCall&&) = default;
  PlannedCall(const PlannedCall&) = delete;
  PlannedCall& operator=(const PlannedCall&) = delete;

  // Not OK: an argument this rank cannot describe; nothing runs.
  absl::Status error;
  CollectiveCall call;
  std::optional<ByteBuffer> send, recv;
  std::optional<BlockBuffer> send_blocks, recv_blocks;
  ReductionMirror reduce;       // the reduce-scatters' buffers
  std::vector<char> sent_copy;  // MPI_Alltoallv in place: the blocks sent
  std::vector<size_t> counts;   // MPI_Reduce_scatter: the counts, as kcoll takes them
  // The result's move to where MPI wants it once the call is done: kcoll's in-place reduce-scatters leave it at the
  // rank's own block of the buffer, MPI's at its start.
  char* move_from = nullptr;
  char* move_to = nullptr;
  size_t move_bytes = 0;

  // Before kcoll's call: `error`, else the first buffer whose copy from device memory failed.
  absl::Status Ready() const;
  // After kcoll's call succeeded: moves the result, unpacks the receive buffer and copies what the call wrote back to
  // device memory.
  absl::Status Finish();
};

// The arguments as MPI passes them; `c` is the call's kcoll communicator.
PlannedCall PlanBcast(MpiFunction f, const Communicator& c, void* buffer, int count, MPI_Datatype datatype, int root);
// MPI_Allgather (`send_every_block` false: the send buffer holds one block) and MPI_Alltoall (true: n blocks).
PlannedCall PlanMovement(MpiFunction f, const Communicator& c, bool send_every_block, const void* sendbuf,
                         int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype);
PlannedCall PlanGather(MpiFunction f, const Communicator& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, int root);
PlannedCall PlanScatter(MpiFunction f, const Communicator& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, int recvcount, MPI_Datatype recvtype, int root);
PlannedCall PlanAllgatherv(MpiFunction f, const Communicator& c, const void* sendbuf, int sendcount,
                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[],
                           MPI_Datatype recvtype);
PlannedCall PlanAlltoallv(MpiFunction f, const Communicator& c, const void* sendbuf, const int sendcounts[],
                          const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                          const int rdispls[], MPI_Datatype recvtype);
PlannedCall PlanGatherv(MpiFunction f, const Communicator& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root);
PlannedCall PlanScatterv(MpiFunction f, const Communicator& c, const void* sendbuf, const int sendcounts[],
                         const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                         int root);
// The reduce-scatters, on kcoll's type and op of the call's datatype and op (ReductionOf).
PlannedCall PlanReduceScatterBlock(MpiFunction f, const Communicator& c, const void* sendbuf, void* recvbuf,
                                   int recvcount, DataType type, ReduceOp op);
PlannedCall PlanReduceScatter(MpiFunction f, const Communicator& c, const void* sendbuf, void* recvbuf,
                              const int recvcounts[], DataType type, ReduceOp op);

// Runs `planned` on `c` and returns the call's MPI code (Done).
int RunPlanned(MpiFunction f, MPI_Comm comm, Communicator* c, PlannedCall planned);
// Starts `planned` on `c` as the MPI request *request (StartMpiRequest), which holds its buffers until it completes.
int StartPlanned(MpiFunction f, MPI_Comm comm, Communicator* c, PlannedCall planned, MPI_Request* request);

}  // namespace kcoll::drop_in

#endif  // KCOLL_MPI_DROP_IN_PLANNED_CALL_H_
