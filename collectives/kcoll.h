/* kcoll's C API, for C codes and for Fortran through ISO_C_BINDING. The same library as the C++ API
 * (collectives/communicator.h): every call returns a status code, KCOLL_OK or one of the error codes below, and
 * kcoll_error_string() gives the failed call's message, the same text as the C++ absl::Status.
 *
 *   MPI_Init(&argc, &argv);
 *   kcoll_initialize(&argc, &argv);          // Kokkos, if the application does not initialise it itself
 *   kcoll_comm comm;
 *   if (kcoll_comm_create(MPI_COMM_WORLD, &comm) != KCOLL_OK) fprintf(stderr, "%s\n", kcoll_error_string());
 *   kcoll_allreduce(comm, send, recv, count, KCOLL_FLOAT64, KCOLL_SUM);
 *   kcoll_comm_free(comm);                   // collective, before kcoll_finalize and MPI_Finalize
 *   kcoll_finalize();
 *   MPI_Finalize();
 *
 * Semantics (counts, roots, in place) are NCCL's, as in the C++ API. `algorithm` arguments do not exist here:
 * kcoll chooses (or KCOLL_ALGO says); kcoll_comm_create_with reads the other settings from the environment. */
#ifndef KCOLL_COLLECTIVES_KCOLL_H_
#define KCOLL_COLLECTIVES_KCOLL_H_

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kcoll_comm_s* kcoll_comm;
/* A nonblocking call in flight (kcoll_iallreduce ...), until kcoll_wait, kcoll_test or kcoll_waitall completes it. */
typedef struct kcoll_request_s* kcoll_request;

/* Status codes: absl::StatusCode's values. */
enum {
  KCOLL_OK = 0,
  KCOLL_CANCELLED = 1,
  KCOLL_UNKNOWN = 2,
  KCOLL_INVALID_ARGUMENT = 3,
  KCOLL_DEADLINE_EXCEEDED = 4, /* a peer did not answer within the timeout (KCOLL_TIMEOUT) */
  KCOLL_NOT_FOUND = 5,
  KCOLL_ALREADY_EXISTS = 6,
  KCOLL_PERMISSION_DENIED = 7,
  KCOLL_RESOURCE_EXHAUSTED = 8,
  KCOLL_FAILED_PRECONDITION = 9, /* e.g. the communicator is broken by an earlier error */
  KCOLL_ABORTED = 10,
  KCOLL_OUT_OF_RANGE = 11,
  KCOLL_UNIMPLEMENTED = 12,
  KCOLL_INTERNAL = 13,
  KCOLL_UNAVAILABLE = 14,
  KCOLL_DATA_LOSS = 15,
  KCOLL_UNAUTHENTICATED = 16
};

typedef enum {
  KCOLL_INT8,
  KCOLL_UINT8,
  KCOLL_INT32,
  KCOLL_UINT32,
  KCOLL_INT64,
  KCOLL_UINT64,
  KCOLL_FLOAT16, /* IEEE binary16 */
  KCOLL_BFLOAT16,
  KCOLL_FLOAT32,
  KCOLL_FLOAT64
} kcoll_datatype;

typedef enum { KCOLL_SUM, KCOLL_PROD, KCOLL_MIN, KCOLL_MAX, KCOLL_AVG } kcoll_op;

/* The message of the last call that failed on this thread ("" if none has): what the C++ Status said. */
const char* kcoll_error_string(void);
/* The name of a status code: "OK", "INVALID_ARGUMENT", ... */
const char* kcoll_status_name(int status);

/* Initialises Kokkos unless it already is (an application that uses Kokkos itself initialises it as usual);
 * argc/argv may be NULL. kcoll_finalize finalises Kokkos only if kcoll_initialize initialised it. */
int kcoll_initialize(int* argc, char*** argv);
int kcoll_finalize(void);

/* Collective over `comm` (duplicated: the application keeps `comm` and may free it). */
int kcoll_comm_create(MPI_Comm comm, kcoll_comm* out);
/* From a Fortran MPI handle (MPI_Comm_f2c), for `use mpi` / `use mpi_f08` codes (comm%MPI_VAL). */
int kcoll_comm_create_f(MPI_Fint comm, kcoll_comm* out);
/* Collective over `comm`: the ranks that pass the same `color` (>= 0) form a new communicator, ordered by `key`
 * (MPI_Comm_split's rule); a rank that passes MPI_UNDEFINED gets NULL. Free each with kcoll_comm_free. */
int kcoll_comm_split(kcoll_comm comm, int color, int key, kcoll_comm* out);
/* Collective over `comm`: the same ranks in a communicator of their own. */
int kcoll_comm_dup(kcoll_comm comm, kcoll_comm* out);
/* Collective. Releases the communicator; NULL is accepted. */
int kcoll_comm_free(kcoll_comm comm);
int kcoll_comm_rank(kcoll_comm comm, int* rank);
int kcoll_comm_size(kcoll_comm comm, int* size);

int kcoll_allreduce(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op);
int kcoll_reduce_scatter(kcoll_comm comm, const void* send, void* recv, size_t recvcount, kcoll_datatype type,
                         kcoll_op op);
int kcoll_allgather(kcoll_comm comm, const void* send, void* recv, size_t sendcount, kcoll_datatype type);
int kcoll_broadcast(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, int root);
int kcoll_reduce(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op,
                 int root);
int kcoll_alltoall(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type);
int kcoll_gather(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, int root);
int kcoll_scatter(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, int root);
int kcoll_sendrecv(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type);
int kcoll_barrier(kcoll_comm comm);
/* MPI_Scan and MPI_Exscan: recv = op over ranks 0..rank (scan) or 0..rank-1 (exscan; rank 0's recv is not written). */
int kcoll_scan(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op);
int kcoll_exscan(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op);
/* MPI_Allgatherv and MPI_Alltoallv with element counts and displacements (size_t, one per rank). */
int kcoll_allgatherv(kcoll_comm comm, const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                     const size_t* recvdispls, kcoll_datatype type);
int kcoll_alltoallv(kcoll_comm comm, const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv,
                    const size_t* recvcounts, const size_t* recvdispls, kcoll_datatype type);
/* MPI_Reduce_scatter, MPI_Gatherv and MPI_Scatterv (the rooted ones' counts are read on the root only). */
int kcoll_reduce_scatterv(kcoll_comm comm, const void* send, void* recv, const size_t* recvcounts, kcoll_datatype type,
                          kcoll_op op);
int kcoll_gatherv(kcoll_comm comm, const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                  const size_t* recvdispls, kcoll_datatype type, int root);
int kcoll_scatterv(kcoll_comm comm, const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv,
                   size_t recvcount, kcoll_datatype type, int root);

/* Nonblocking forms (collectives/request.h): each starts the call and sets *request; the call's result comes from
 * kcoll_wait, kcoll_test or kcoll_waitall, which free the request (and set it to NULL). Until then the call's
 * buffers belong to kcoll. A call this rank refuses at once (a NULL comm, a type or op that is not kcoll's) returns
 * the error here and leaves *request NULL; the other ranks' requests then fail too. Every rank issues its calls in
 * the same order; blocking and nonblocking calls mix. How they progress: KCOLL_PROGRESS (docs/environment.md). */
int kcoll_iallreduce(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op,
                     kcoll_request* request);
int kcoll_ireduce_scatter(kcoll_comm comm, const void* send, void* recv, size_t recvcount, kcoll_datatype type,
                          kcoll_op op, kcoll_request* request);
int kcoll_iallgather(kcoll_comm comm, const void* send, void* recv, size_t sendcount, kcoll_datatype type,
                     kcoll_request* request);
int kcoll_ibroadcast(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, int root,
                     kcoll_request* request);
int kcoll_ireduce(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op,
                  int root, kcoll_request* request);
int kcoll_ialltoall(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type,
                    kcoll_request* request);
int kcoll_igather(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, int root,
                  kcoll_request* request);
int kcoll_iscatter(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, int root,
                   kcoll_request* request);
int kcoll_isendrecv(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type,
                    kcoll_request* request);
int kcoll_ibarrier(kcoll_comm comm, kcoll_request* request);
int kcoll_iscan(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op,
                kcoll_request* request);
int kcoll_iexscan(kcoll_comm comm, const void* send, void* recv, size_t count, kcoll_datatype type, kcoll_op op,
                  kcoll_request* request);
/* The counts and displacements, like the buffers, are kcoll's until the request completed. */
int kcoll_iallgatherv(kcoll_comm comm, const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                      const size_t* recvdispls, kcoll_datatype type, kcoll_request* request);
int kcoll_ialltoallv(kcoll_comm comm, const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv,
                     const size_t* recvcounts, const size_t* recvdispls, kcoll_datatype type, kcoll_request* request);
int kcoll_ireduce_scatterv(kcoll_comm comm, const void* send, void* recv, const size_t* recvcounts, kcoll_datatype type,
                           kcoll_op op, kcoll_request* request);
int kcoll_igatherv(kcoll_comm comm, const void* send, size_t sendcount, void* recv, const size_t* recvcounts,
                   const size_t* recvdispls, kcoll_datatype type, int root, kcoll_request* request);
int kcoll_iscatterv(kcoll_comm comm, const void* send, const size_t* sendcounts, const size_t* senddispls, void* recv,
                    size_t recvcount, kcoll_datatype type, int root, kcoll_request* request);
/* Waits for the call and returns its status; NULL (or a NULL request) is complete, with KCOLL_OK. */
int kcoll_wait(kcoll_request* request);
/* *done = 1 once the call completed: then the call's status is returned, as kcoll_wait returns it; else 0 and OK. */
int kcoll_test(kcoll_request* request, int* done);
/* Waits for each of `count` requests; the first failed one's status (kcoll_error_string() gives its message). */
int kcoll_waitall(size_t count, kcoll_request* requests);

#ifdef __cplusplus
}
#endif

#endif /* KCOLL_COLLECTIVES_KCOLL_H_ */
