/* The C API from a C program: every collective once with exact integer results (AllReduce and the scans also
 * against MPI), nonblocking calls completed by kcoll_test, kcoll_wait and kcoll_waitall, sub-communicators from
 * kcoll_comm_split and kcoll_comm_dup, and the error paths (a bad root, a bad type, a NULL communicator) with their
 * messages. Run as N ranks: mpi_launch.sh N c_api_test. Exits non-zero when a check fails on any rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "collectives/kcoll.h"

static int failures = 0;
static int rank = 0;

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "[rank %d] %s:%d: check failed: %s\n", rank, __FILE__, __LINE__, #cond); \
      ++failures;                                                                              \
    }                                                                                          \
  } while (0)

#define CHECK_OK(call)                                                                          \
  do {                                                                                          \
    int status_ = (call);                                                                       \
    if (status_ != KCOLL_OK) {                                                                  \
      fprintf(stderr, "[rank %d] %s:%d: %s returned %s: %s\n", rank, __FILE__, __LINE__, #call, \
              kcoll_status_name(status_), kcoll_error_string());                                \
      ++failures;                                                                               \
    }                                                                                           \
  } while (0)

enum { kCount = 5 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CHECK_OK(kcoll_initialize(&argc, &argv));
  kcoll_comm comm = NULL;
  CHECK_OK(kcoll_comm_create(MPI_COMM_WORLD, &comm));
  int n = 0;
  CHECK_OK(kcoll_comm_rank(comm, &rank));
  CHECK_OK(kcoll_comm_size(comm, &n));

  int32_t send[kCount * 16], recv[kCount * 16], want[kCount * 16];
  /* AllReduce: element i of rank r is r + i; the sum is n(n-1)/2 + n i. */
  for (int i = 0; i < kCount; ++i) send[i] = rank + i;
  CHECK_OK(kcoll_allreduce(comm, send, recv, kCount, KCOLL_INT32, KCOLL_SUM));
  MPI_Allreduce(send, want, kCount, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < kCount; ++i) CHECK(recv[i] == n * (n - 1) / 2 + n * i && recv[i] == want[i]);

  /* In place, max. */
  for (int i = 0; i < kCount; ++i) recv[i] = rank * 10 + i;
  CHECK_OK(kcoll_allreduce(comm, recv, recv, kCount, KCOLL_INT32, KCOLL_MAX));
  for (int i = 0; i < kCount; ++i) CHECK(recv[i] == (n - 1) * 10 + i);

  /* ReduceScatter: block r of the sum lands on rank r. */
  for (int i = 0; i < kCount * n; ++i) send[i] = i + rank;
  CHECK_OK(kcoll_reduce_scatter(comm, send, recv, kCount, KCOLL_INT32, KCOLL_SUM));
  for (int i = 0; i < kCount; ++i) CHECK(recv[i] == n * (rank * kCount + i) + n * (n - 1) / 2);

  /* AllGather, Gather to the last rank. */
  for (int i = 0; i < kCount; ++i) send[i] = rank * 100 + i;
  CHECK_OK(kcoll_allgather(comm, send, recv, kCount, KCOLL_INT32));
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < kCount; ++i) CHECK(recv[r * kCount + i] == r * 100 + i);
  memset(recv, 0, sizeof(recv));
  CHECK_OK(kcoll_gather(comm, send, recv, kCount, KCOLL_INT32, n - 1));
  if (rank == n - 1)
    for (int r = 0; r < n; ++r)
      for (int i = 0; i < kCount; ++i) CHECK(recv[r * kCount + i] == r * 100 + i);

  /* Broadcast from the last rank, Reduce (prod) to rank 0, Scatter from rank 0. */
  for (int i = 0; i < kCount; ++i) send[i] = rank == n - 1 ? 7 + i : -1;
  CHECK_OK(kcoll_broadcast(comm, send, recv, kCount, KCOLL_INT32, n - 1));
  for (int i = 0; i < kCount; ++i) CHECK(recv[i] == 7 + i);
  for (int i = 0; i < kCount; ++i) send[i] = 2;
  CHECK_OK(kcoll_reduce(comm, send, recv, kCount, KCOLL_INT32, KCOLL_PROD, 0));
  if (rank == 0)
    for (int i = 0; i < kCount; ++i) CHECK(recv[i] == (1 << n));
  for (int i = 0; i < kCount * n; ++i) send[i] = i;
  CHECK_OK(kcoll_scatter(comm, send, recv, kCount, KCOLL_INT32, 0));
  for (int i = 0; i < kCount; ++i) CHECK(recv[i] == rank * kCount + i);

  /* AllToAll: block j of rank i lands as block i of rank j. SendRecv: from the left neighbour. */
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < kCount; ++i) send[j * kCount + i] = rank * 1000 + j * 10 + i;
  CHECK_OK(kcoll_alltoall(comm, send, recv, kCount, KCOLL_INT32));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < kCount; ++i) CHECK(recv[j * kCount + i] == j * 1000 + rank * 10 + i);
  for (int i = 0; i < kCount; ++i) send[i] = rank;
  CHECK_OK(kcoll_sendrecv(comm, send, recv, kCount, KCOLL_INT32));
  for (int i = 0; i < kCount; ++i) CHECK(recv[i] == (rank + n - 1) % n);
  CHECK_OK(kcoll_barrier(comm));

  /* Scan (sum of ranks 0..r of r + i) and ExScan (max over 0..r-1, rank 0's buffer untouched), both against MPI;
   * then a nonblocking scan. */
  for (int i = 0; i < kCount; ++i) send[i] = rank + i;
  CHECK_OK(kcoll_scan(comm, send, recv, kCount, KCOLL_INT32, KCOLL_SUM));
  MPI_Scan(send, want, kCount, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < kCount; ++i) CHECK(recv[i] == rank * (rank + 1) / 2 + (rank + 1) * i && recv[i] == want[i]);
  for (int i = 0; i < kCount; ++i) recv[i] = -7;
  CHECK_OK(kcoll_exscan(comm, send, recv, kCount, KCOLL_INT32, KCOLL_MAX));
  MPI_Exscan(send, want, kCount, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
  for (int i = 0; i < kCount; ++i) CHECK(rank == 0 ? recv[i] == -7 : recv[i] == rank - 1 + i && recv[i] == want[i]);
  {
    kcoll_request scan_request = NULL;
    CHECK_OK(kcoll_iscan(comm, send, recv, kCount, KCOLL_INT32, KCOLL_MIN, &scan_request));
    CHECK_OK(kcoll_wait(&scan_request));
    for (int i = 0; i < kCount; ++i) CHECK(recv[i] == i);
    CHECK_OK(kcoll_iexscan(comm, send, recv, kCount, KCOLL_INT32, KCOLL_SUM, &scan_request));
    CHECK_OK(kcoll_wait(&scan_request));
    if (rank > 0)
      for (int i = 0; i < kCount; ++i) CHECK(recv[i] == rank * (rank - 1) / 2 + rank * i);
  }

  /* AllGatherV: rank r sends r + 1 elements (value 10 r + i), placed in reverse rank order; AllToAllV: rank r sends
   * j + 1 elements to rank j; both against MPI, then AllGatherV nonblocking. */
  {
    size_t counts[16], displs[16], sendcounts[16], senddispls[16], recvcounts[16], recvdispls[16];
    int icounts[16], idispls[16], isc[16], isd[16], irc[16], ird[16];
    size_t at = 0;
    for (int j = n - 1; j >= 0; --j) {
      counts[j] = (size_t)j + 1;
      displs[j] = at;
      at += counts[j];
    }
    int32_t mine[16], gathered[16 * 17], mpi_gathered[16 * 17];
    for (int i = 0; i <= rank; ++i) mine[i] = 10 * rank + i;
    CHECK_OK(kcoll_allgatherv(comm, mine, (size_t)rank + 1, gathered, counts, displs, KCOLL_INT32));
    for (int j = 0; j < n; ++j) {
      icounts[j] = (int)counts[j];
      idispls[j] = (int)displs[j];
    }
    MPI_Allgatherv(mine, rank + 1, MPI_INT32_T, mpi_gathered, icounts, idispls, MPI_INT32_T, MPI_COMM_WORLD);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i <= j; ++i)
        CHECK(gathered[displs[j] + i] == 10 * j + i && gathered[displs[j] + i] == mpi_gathered[displs[j] + i]);
    size_t sat = 0, rat = 0;
    for (int j = 0; j < n; ++j) {
      sendcounts[j] = (size_t)j + 1;
      senddispls[j] = sat;
      sat += sendcounts[j];
      recvcounts[j] = (size_t)rank + 1;
      recvdispls[j] = rat;
      rat += recvcounts[j];
      isc[j] = (int)sendcounts[j];
      isd[j] = (int)senddispls[j];
      irc[j] = (int)recvcounts[j];
      ird[j] = (int)recvdispls[j];
    }
    int32_t out[16 * 17], in[16 * 17], mpi_in[16 * 17];
    for (size_t k = 0; k < sat; ++k) out[k] = rank * 1000 + (int32_t)k;
    CHECK_OK(kcoll_alltoallv(comm, out, sendcounts, senddispls, in, recvcounts, recvdispls, KCOLL_INT32));
    MPI_Alltoallv(out, isc, isd, MPI_INT32_T, mpi_in, irc, ird, MPI_INT32_T, MPI_COMM_WORLD);
    for (size_t k = 0; k < rat; ++k) CHECK(in[k] == mpi_in[k]);
    kcoll_request gatherv_request = NULL;
    memset(gathered, 0, sizeof(gathered));
    CHECK_OK(kcoll_iallgatherv(comm, mine, (size_t)rank + 1, gathered, counts, displs, KCOLL_INT32, &gatherv_request));
    CHECK_OK(kcoll_wait(&gatherv_request));
    for (int j = 0; j < n; ++j)
      for (int i = 0; i <= j; ++i) CHECK(gathered[displs[j] + i] == 10 * j + i);
    /* ReduceScatterV: rank j gets j + 1 elements of the sum; GatherV to the last rank and ScatterV back from it,
     * nonblocking, with the counts on the root only. */
    int32_t all_blocks[16 * 17], reduced[17];
    size_t rs_counts[16], total = 0;
    for (int j = 0; j < n; ++j) total += (rs_counts[j] = (size_t)j + 1);
    for (size_t k = 0; k < total; ++k) all_blocks[k] = rank + (int32_t)k;
    CHECK_OK(kcoll_reduce_scatterv(comm, all_blocks, reduced, rs_counts, KCOLL_INT32, KCOLL_SUM));
    const int first = rank * (rank + 1) / 2; /* offset of this rank's block */
    for (int i = 0; i <= rank; ++i) CHECK(reduced[i] == n * (first + i) + n * (n - 1) / 2);
    const int root = n - 1;
    int32_t at_root[16 * 17], back[17];
    kcoll_request rooted = NULL;
    CHECK_OK(kcoll_igatherv(comm, mine, (size_t)rank + 1, rank == root ? at_root : NULL,
                            rank == root ? counts : NULL, rank == root ? displs : NULL, KCOLL_INT32, root, &rooted));
    CHECK_OK(kcoll_wait(&rooted));
    if (rank == root)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i <= j; ++i) CHECK(at_root[displs[j] + i] == 10 * j + i);
    CHECK_OK(kcoll_scatterv(comm, rank == root ? at_root : NULL, rank == root ? counts : NULL,
                            rank == root ? displs : NULL, back, (size_t)rank + 1, KCOLL_INT32, root));
    for (int i = 0; i <= rank; ++i) CHECK(back[i] == 10 * rank + i);
    CHECK(kcoll_allgatherv(comm, mine, (size_t)rank + 1, gathered, NULL, displs, KCOLL_INT32) ==
          KCOLL_INVALID_ARGUMENT);
    CHECK(strstr(kcoll_error_string(), "all_gatherv: recvcounts is null") != NULL);
  }

  /* Doubles through a communicator made from a Fortran handle. */
  kcoll_comm from_fortran = NULL;
  CHECK_OK(kcoll_comm_create_f(MPI_Comm_c2f(MPI_COMM_WORLD), &from_fortran));
  double x = 0.5 * (rank + 1), sum = 0;
  CHECK_OK(kcoll_allreduce(from_fortran, &x, &sum, 1, KCOLL_FLOAT64, KCOLL_SUM));
  CHECK(sum == 0.25 * n * (n + 1));
  CHECK_OK(kcoll_comm_free(from_fortran));

  /* Sub-communicators: even and odd ranks (the last rank joins none), and a duplicate. */
  kcoll_comm half = NULL, dup = NULL;
  const int color = rank == n - 1 && n > 2 ? MPI_UNDEFINED : rank % 2;
  CHECK_OK(kcoll_comm_split(comm, color, -rank, &half));
  if (color == MPI_UNDEFINED) {
    CHECK(half == NULL);
  } else {
    int sub_rank = -1, sub_size = 0, want_size = 0, want_sum = 0;
    for (int r = 0; r < n; ++r) {
      if (r % 2 == color && !(r == n - 1 && n > 2)) {
        ++want_size;
        want_sum += r;
        if (r > rank) ++sub_rank; /* key -rank: the highest rank comes first */
      }
    }
    ++sub_rank;
    int mine = rank, total_of_half = -1;
    int got_rank = -1;
    CHECK_OK(kcoll_comm_rank(half, &got_rank));
    CHECK(got_rank == sub_rank);
    CHECK_OK(kcoll_comm_size(half, &sub_size));
    CHECK(sub_size == want_size);
    CHECK_OK(kcoll_allreduce(half, &mine, &total_of_half, 1, KCOLL_INT32, KCOLL_SUM));
    CHECK(total_of_half == want_sum);
    CHECK_OK(kcoll_comm_free(half));
  }
  CHECK_OK(kcoll_comm_dup(comm, &dup));
  int one = 1, ranks_in_dup = 0;
  CHECK_OK(kcoll_allreduce(dup, &one, &ranks_in_dup, 1, KCOLL_INT32, KCOLL_SUM));
  CHECK(ranks_in_dup == n);
  CHECK_OK(kcoll_comm_free(dup));
  CHECK(kcoll_comm_split(comm, -5, 0, &half) == KCOLL_INVALID_ARGUMENT && half == NULL);
  CHECK(strstr(kcoll_error_string(), "Split: color -5 is negative") != NULL);

  /* Nonblocking: three calls in flight (completed by kcoll_test, kcoll_wait and kcoll_waitall), each as its
   * blocking form gives it; a request the call completed is NULL. */
  {
    int32_t a_send[kCount], a_recv[kCount], g_recv[16], b_data[kCount], m_send = rank, m_recv = -1;
    for (int i = 0; i < kCount; ++i) {
      a_send[i] = rank + i;
      b_data[i] = rank == n - 1 ? 100 + i : -1;
    }
    kcoll_request reqs[3] = {NULL, NULL, NULL};
    kcoll_request max_req = NULL;
    CHECK_OK(kcoll_iallreduce(comm, a_send, a_recv, kCount, KCOLL_INT32, KCOLL_SUM, &reqs[0]));
    CHECK_OK(kcoll_iallgather(comm, &rank, g_recv, 1, KCOLL_INT32, &reqs[1]));
    CHECK_OK(kcoll_ibroadcast(comm, b_data, b_data, kCount, KCOLL_INT32, n - 1, &reqs[2]));
    CHECK_OK(kcoll_iallreduce(comm, &m_send, &m_recv, 1, KCOLL_INT32, KCOLL_MAX, &max_req));
    CHECK(reqs[0] != NULL && max_req != NULL);
    int done = 0;
    for (int polls = 0; !done && polls < 100000000; ++polls) CHECK_OK(kcoll_test(&reqs[0], &done));
    CHECK(done == 1 && reqs[0] == NULL);
    CHECK_OK(kcoll_wait(&max_req));
    CHECK(max_req == NULL && m_recv == n - 1);
    CHECK_OK(kcoll_waitall(3, reqs));
    CHECK(reqs[1] == NULL && reqs[2] == NULL);
    for (int i = 0; i < kCount; ++i) CHECK(a_recv[i] == n * (n - 1) / 2 + n * i && b_data[i] == 100 + i);
    for (int r = 0; r < n; ++r) CHECK(g_recv[r] == r);
    CHECK_OK(kcoll_wait(NULL));
    /* A type that is not kcoll's, on every rank: refused here, no request. */
    kcoll_request bad = NULL;
    CHECK(kcoll_iallreduce(comm, a_send, a_recv, kCount, (kcoll_datatype)77, KCOLL_SUM, &bad) ==
              KCOLL_INVALID_ARGUMENT &&
          bad == NULL);
    CHECK(strstr(kcoll_error_string(), "type: 77") != NULL);
    /* A bad root on every rank: the request fails from kcoll_wait, with the message. */
    CHECK_OK(kcoll_ibroadcast(comm, a_send, a_recv, kCount, KCOLL_INT32, n + 3, &bad));
    CHECK(kcoll_wait(&bad) == KCOLL_INVALID_ARGUMENT && bad == NULL);
    CHECK(strstr(kcoll_error_string(), "root") != NULL);
    CHECK(kcoll_ibarrier(comm, NULL) == KCOLL_INVALID_ARGUMENT);
    CHECK(strstr(kcoll_error_string(), "request: NULL") != NULL);
  }

  /* Errors: the code and the C++ Status's message. */
  int status = kcoll_broadcast(comm, send, recv, kCount, KCOLL_INT32, n);
  CHECK(status == KCOLL_INVALID_ARGUMENT);
  CHECK(strstr(kcoll_error_string(), "root") != NULL);
  CHECK(strcmp(kcoll_status_name(status), "INVALID_ARGUMENT") == 0);
  status = kcoll_allreduce(comm, send, recv, kCount, (kcoll_datatype)999, KCOLL_SUM);
  CHECK(status == KCOLL_INVALID_ARGUMENT);
  CHECK(strstr(kcoll_error_string(), "type: 999 is not a kcoll_datatype") != NULL);
  /* A count whose byte size wraps: the same error through every door, never the inline lane's agreement. */
  double wide_one = 1, wide_got = 0;
  status = kcoll_allreduce(comm, &wide_one, &wide_got, SIZE_MAX / 8 + 1, KCOLL_FLOAT64, KCOLL_SUM);
  CHECK(status == KCOLL_INVALID_ARGUMENT);
  CHECK(strstr(kcoll_error_string(), "overflows the byte size") != NULL);
  status = kcoll_scan(comm, &wide_one, &wide_got, SIZE_MAX / 8 + 1, KCOLL_FLOAT64, KCOLL_SUM);
  CHECK(status == KCOLL_INVALID_ARGUMENT);
  CHECK(strstr(kcoll_error_string(), "overflows the byte size") != NULL);
  status = kcoll_allreduce(NULL, send, recv, kCount, KCOLL_INT32, KCOLL_SUM);
  CHECK(status == KCOLL_INVALID_ARGUMENT);
  CHECK(strstr(kcoll_error_string(), "comm: NULL is not a communicator") != NULL);
  CHECK(kcoll_comm_create(MPI_COMM_NULL, &from_fortran) == KCOLL_INVALID_ARGUMENT && from_fortran == NULL);
  CHECK(strstr(kcoll_error_string(), "MPI_COMM_NULL") != NULL);

  CHECK_OK(kcoll_comm_free(comm));
  CHECK_OK(kcoll_finalize());
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("c_api_test on %d ranks: %s (%d failed checks)\n", n, total == 0 ? "PASSED" : "FAILED", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
