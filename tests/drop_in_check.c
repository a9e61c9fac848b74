/* A plain MPI program (it knows nothing of kcoll) that checks each MPI collective the drop-in library defines against
 * the MPI underneath: every call is made twice, through its MPI_ name (kcoll's, when libkcoll_mpi.so is preloaded)
 * and through its PMPI_ name (the MPI library's own), and the results must be equal bit for bit. The data are small
 * integers in every type, so any order of reduction gives the same bits. Covers MPI_IN_PLACE, derived datatypes that
 * differ between ranks with the same signature, split, dup and Cartesian communicators, and calls the library
 * forwards (16-bit integers, bitwise ops, MAXLOC, user ops, MPI_COMM_SELF), and the nonblocking collectives completed
 * by MPI's completion functions beside point-to-point requests. With --expect-kcoll, an invalid root
 * must come back under MPI_ERRORS_RETURN as an error whose string is kcoll's message.
 *
 * drop_in_check [--expect-kcoll]; prints "drop_in_check on N ranks: PASSED" from rank 0 and exits 0 when all hold. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int world_rank = 0;

#define CHECK(cond, what)                                                                           \
  do {                                                                                              \
    if (!(cond)) {                                                                                  \
      ++failures;                                                                                   \
      fprintf(stderr, "rank %d: check failed: %s (%s:%d)\n", world_rank, what, __FILE__, __LINE__); \
    }                                                                                               \
  } while (0)

/* `blocking`'s call, or with `nonblocking` its I-form `immediate` completed by MPI_Wait: the same arguments, the
 * request added last. */
#define BLOCKING_OR_NOT(nonblocking, blocking, immediate, ...) \
  do {                                                         \
    if (nonblocking) {                                         \
      MPI_Request request_;                                    \
      immediate(__VA_ARGS__, &request_);                       \
      MPI_Wait(&request_, MPI_STATUS_IGNORE);                  \
    } else {                                                   \
      blocking(__VA_ARGS__);                                   \
    }                                                          \
  } while (0)

enum { kMax = 64 };

static void Fill(void* buf, MPI_Datatype type, int count, int seed) {
  for (int i = 0; i < count; ++i) {
    const int v = (seed * 7 + i * 3) % 11 - (type == MPI_UNSIGNED_CHAR || type == MPI_UNSIGNED ? 0 : 4);
    if (type == MPI_INT)
      ((int*)buf)[i] = v;
    else if (type == MPI_UNSIGNED)
      ((unsigned*)buf)[i] = (unsigned)(v < 0 ? -v : v);
    else if (type == MPI_LONG_LONG)
      ((long long*)buf)[i] = (long long)v << 33;
    else if (type == MPI_DOUBLE)
      ((double*)buf)[i] = v * 0.5;
    else if (type == MPI_FLOAT)
      ((float*)buf)[i] = (float)v * 0.25f;
    else if (type == MPI_UNSIGNED_CHAR)
      ((unsigned char*)buf)[i] = (unsigned char)(v & 0x7);
    else if (type == MPI_SHORT)
      ((short*)buf)[i] = (short)v;
    else if (type == MPI_INTEGER)
      ((int*)buf)[i] = v;
  }
}

static int SizeOf(MPI_Datatype type) {
  int size = 0;
  MPI_Type_size(type, &size);
  return size;
}

/* Reductions: MPI_Allreduce, MPI_Reduce, MPI_Scan, MPI_Exscan, MPI_Reduce_scatter_block (and
 * MPI_Ireduce_scatter_block), out of place and in place. */
static void CheckReductions(MPI_Comm comm, MPI_Datatype type, MPI_Op op, const char* name) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  const int count = 13, size = SizeOf(type);
  char send[kMax * 8 * 16], got[kMax * 8 * 16], want[kMax * 8 * 16];
  char what[160];
  Fill(send, type, count * n, rank + 1);
  for (int in_place = 0; in_place <= 1; ++in_place) {
    snprintf(what, sizeof(what), "MPI_Allreduce %s%s", name, in_place ? " in place" : "");
    memset(got, 0x5a, sizeof(got));
    memset(want, 0x5a, sizeof(want));
    if (in_place) memcpy(got, send, (size_t)count * size);
    MPI_Allreduce(in_place ? MPI_IN_PLACE : send, got, count, type, op, comm);
    PMPI_Allreduce(send, want, count, type, op, comm);
    CHECK(memcmp(got, want, (size_t)count * size) == 0, what);

    for (int root = 0; root<n; root += n> 2 ? n - 1 : 1) {
      snprintf(what, sizeof(what), "MPI_Reduce %s root %d%s", name, root, in_place ? " in place" : "");
      memset(got, 0x5a, sizeof(got));
      memset(want, 0x5a, sizeof(want));
      const int here = in_place && rank == root;
      if (here) memcpy(got, send, (size_t)count * size);
      MPI_Reduce(here ? MPI_IN_PLACE : send, got, count, type, op, root, comm);
      PMPI_Reduce(send, want, count, type, op, root, comm);
      if (rank == root) CHECK(memcmp(got, want, (size_t)count * size) == 0, what);
    }

    snprintf(what, sizeof(what), "MPI_Scan %s%s", name, in_place ? " in place" : "");
    memset(got, 0x5a, sizeof(got));
    if (in_place) memcpy(got, send, (size_t)count * size);
    MPI_Scan(in_place ? MPI_IN_PLACE : send, got, count, type, op, comm);
    PMPI_Scan(send, want, count, type, op, comm);
    CHECK(memcmp(got, want, (size_t)count * size) == 0, what);

    snprintf(what, sizeof(what), "MPI_Exscan %s%s", name, in_place ? " in place" : "");
    memset(got, 0x5a, sizeof(got));
    if (in_place) memcpy(got, send, (size_t)count * size);
    MPI_Exscan(in_place ? MPI_IN_PLACE : send, got, count, type, op, comm);
    PMPI_Exscan(send, want, count, type, op, comm);
    if (rank > 0) CHECK(memcmp(got, want, (size_t)count * size) == 0, what);

    PMPI_Reduce_scatter_block(send, want, count, type, op, comm);
    for (int nonblocking = 0; nonblocking <= 1; ++nonblocking) {
      snprintf(what, sizeof(what), "MPI_Reduce_scatter_block %s%s%s", name, in_place ? " in place" : "",
               nonblocking ? " (nonblocking form)" : "");
      memset(got, 0x5a, sizeof(got));
      if (in_place) memcpy(got, send, (size_t)count * n * size);
      BLOCKING_OR_NOT(nonblocking, MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, in_place ? MPI_IN_PLACE : send,
                      got, count, type, op, comm);
      CHECK(memcmp(got, want, (size_t)count * size) == 0, what);
    }
  }
}

/* `count` ints at every other int, an element spanning 2 * count ints: the signature of `count` MPI_INTs in a layout
 * the library must pack. Committed; the caller frees it. */
static MPI_Datatype EveryOtherInt(int count) {
  MPI_Datatype strided, resized;
  MPI_Type_vector(count, 1, 2, MPI_INT, &strided);
  MPI_Type_create_resized(strided, 0, (MPI_Aint)(2 * count * sizeof(int)), &resized);
  MPI_Type_commit(&resized);
  MPI_Type_free(&strided);
  return resized;
}

/* Data movement with MPI_INT blocks of `count`; `odd` ranks describe their buffers with a vector type of the same
 * signature (stride 2), which the library packs on those ranks only. With `nonblocking`, the I-forms. */
static void CheckMovement(MPI_Comm comm, int nonblocking) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  enum { kCount = 6 };
  MPI_Datatype resized = EveryOtherInt(kCount); /* strided blocks of kCount ints laid end to end */
  const int odd = rank % 2 == 1;
  MPI_Datatype type = odd ? resized : MPI_INT;
  const int per = odd ? 1 : kCount;           /* elements of `type` per block */
  const int span = odd ? 2 * kCount : kCount; /* ints a block spans in memory */
  int send[16 * 2 * kCount], got[16 * 2 * kCount], want[16 * 2 * kCount];
  for (int i = 0; i < 16 * 2 * kCount; ++i) send[i] = rank * 1000 + i;
  char what[160];

  for (int root = 0; root<n; root += n> 2 ? n - 1 : 1) {
    snprintf(what, sizeof(what), "MPI_Bcast root %d%s", root, nonblocking ? " (nonblocking form)" : "");
    memcpy(got, send, sizeof(got));
    memcpy(want, send, sizeof(want));
    BLOCKING_OR_NOT(nonblocking, MPI_Bcast, MPI_Ibcast, got, per, type, root, comm);
    PMPI_Bcast(want, per, type, root, comm);
    CHECK(memcmp(got, want, sizeof(got)) == 0, what);

    for (int in_place = 0; in_place <= 1; ++in_place) {
      snprintf(what, sizeof(what), "MPI_Gather root %d%s%s", root, in_place ? " in place" : "",
               nonblocking ? " (nonblocking form)" : "");
      memset(got, 0x5a, sizeof(got));
      memset(want, 0x5a, sizeof(want));
      const int here = in_place && rank == root;
      if (here) memcpy(got + root * span, send, (size_t)span * sizeof(int));
      if (here) memcpy(want + root * span, send, (size_t)span * sizeof(int));
      BLOCKING_OR_NOT(nonblocking, MPI_Gather, MPI_Igather, here ? MPI_IN_PLACE : send, kCount, MPI_INT, got, per, type,
                      root, comm);
      PMPI_Gather(here ? MPI_IN_PLACE : send, kCount, MPI_INT, want, per, type, root, comm);
      if (rank == root) CHECK(memcmp(got, want, (size_t)n * span * sizeof(int)) == 0, what);

      snprintf(what, sizeof(what), "MPI_Scatter root %d%s%s", root, in_place ? " in place" : "",
               nonblocking ? " (nonblocking form)" : "");
      memset(got, 0x5a, sizeof(got));
      memset(want, 0x5a, sizeof(want));
      BLOCKING_OR_NOT(nonblocking, MPI_Scatter, MPI_Iscatter, send, per, type, here ? MPI_IN_PLACE : got, kCount,
                      MPI_INT, root, comm);
      PMPI_Scatter(send, per, type, want, kCount, MPI_INT, root, comm);
      if (!here) CHECK(memcmp(got, want, kCount * sizeof(int)) == 0, what);
    }
  }

  for (int in_place = 0; in_place <= 1; ++in_place) {
    snprintf(what, sizeof(what), "MPI_Allgather%s%s", in_place ? " in place" : "",
             nonblocking ? " (nonblocking form)" : "");
    memset(got, 0x5a, sizeof(got));
    memset(want, 0x5a, sizeof(want));
    if (in_place) memcpy(got + rank * span, send, (size_t)span * sizeof(int));
    if (in_place) memcpy(want + rank * span, send, (size_t)span * sizeof(int));
    BLOCKING_OR_NOT(nonblocking, MPI_Allgather, MPI_Iallgather, in_place ? MPI_IN_PLACE : send, kCount, MPI_INT, got,
                    per, type, comm);
    PMPI_Allgather(in_place ? MPI_IN_PLACE : send, kCount, MPI_INT, want, per, type, comm);
    CHECK(memcmp(got, want, (size_t)n * span * sizeof(int)) == 0, what);

    snprintf(what, sizeof(what), "MPI_Alltoall%s%s", in_place ? " in place" : "",
             nonblocking ? " (nonblocking form)" : "");
    memcpy(got, send, sizeof(got));
    memcpy(want, send, sizeof(want));
    BLOCKING_OR_NOT(nonblocking, MPI_Alltoall, MPI_Ialltoall, in_place ? MPI_IN_PLACE : send, per, type, got, per, type,
                    comm);
    PMPI_Alltoall(in_place ? MPI_IN_PLACE : send, per, type, want, per, type, comm);
    CHECK(memcmp(got, want, (size_t)n * span * sizeof(int)) == 0, what);
  }
  MPI_Barrier(comm);
  MPI_Type_free(&resized);
}

/* The v-collectives: blocks of kCount or 2 * kCount ints per rank, laid out with gaps; odd ranks describe their
 * buffers with the strided type of CheckMovement, even ranks with MPI_INT. With `nonblocking`, the I-forms. */
static void CheckVariable(MPI_Comm comm, int nonblocking) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  enum { kCount = 4, kInts = 16 * 4 * kCount };
  MPI_Datatype resized = EveryOtherInt(kCount);
  const int odd = rank % 2 == 1;
  MPI_Datatype type = odd ? resized : MPI_INT;
  int send[kInts], got[kInts], want[kInts], counts[16], displs[16], scounts[16], sdispls[16];
  for (int i = 0; i < kInts; ++i) send[i] = rank * 1000 + i;
  /* Block j holds m_j ints: in this rank's type, counts[j] elements at displs[j] extents. */
  int offset = 0;
  for (int j = 0; j < n; ++j) {
    const int m = kCount * (j % 2 + 1);
    counts[j] = odd ? m / kCount : m;
    displs[j] = odd ? offset / (2 * kCount) : offset;
    offset += 2 * m;
  }
  const int mine = kCount * (rank % 2 + 1);
  char what[160];
  for (int in_place = 0; in_place <= 1; ++in_place) {
    snprintf(what, sizeof(what), "MPI_Allgatherv%s%s", in_place ? " in place" : "",
             nonblocking ? " (nonblocking form)" : "");
    memset(got, 0x5a, sizeof(got));
    memset(want, 0x5a, sizeof(want));
    if (in_place) {
      PMPI_Sendrecv(send, mine, MPI_INT, rank, 0, got, counts[rank], type, rank, 0, comm, MPI_STATUS_IGNORE);
      memcpy(want, got, sizeof(got));
    }
    BLOCKING_OR_NOT(nonblocking, MPI_Allgatherv, MPI_Iallgatherv, in_place ? MPI_IN_PLACE : send, mine, MPI_INT, got,
                    counts, displs, type, comm);
    PMPI_Allgatherv(in_place ? MPI_IN_PLACE : send, mine, MPI_INT, want, counts, displs, type, comm);
    CHECK(memcmp(got, want, sizeof(got)) == 0, what);

    for (int root = 0; root<n; root += n> 2 ? n - 1 : 1) {
      const int here = in_place && rank == root;
      snprintf(what, sizeof(what), "MPI_Gatherv root %d%s%s", root, in_place ? " in place" : "",
               nonblocking ? " (nonblocking form)" : "");
      memset(got, 0x5a, sizeof(got));
      memset(want, 0x5a, sizeof(want));
      if (here) {
        PMPI_Sendrecv(send, mine, MPI_INT, rank, 0, got, counts[rank], type, rank, 0, comm, MPI_STATUS_IGNORE);
        memcpy(want, got, sizeof(got));
      }
      BLOCKING_OR_NOT(nonblocking, MPI_Gatherv, MPI_Igatherv, here ? MPI_IN_PLACE : send, mine, MPI_INT, got, counts,
                      displs, type, root, comm);
      PMPI_Gatherv(here ? MPI_IN_PLACE : send, mine, MPI_INT, want, counts, displs, type, root, comm);
      if (rank == root) CHECK(memcmp(got, want, sizeof(got)) == 0, what);

      snprintf(what, sizeof(what), "MPI_Scatterv root %d%s%s", root, in_place ? " in place" : "",
               nonblocking ? " (nonblocking form)" : "");
      memset(got, 0x5a, sizeof(got));
      memset(want, 0x5a, sizeof(want));
      BLOCKING_OR_NOT(nonblocking, MPI_Scatterv, MPI_Iscatterv, send, counts, displs, type, here ? MPI_IN_PLACE : got,
                      mine, MPI_INT, root, comm);
      PMPI_Scatterv(send, counts, displs, type, here ? MPI_IN_PLACE : want, mine, MPI_INT, root, comm);
      if (!here) CHECK(memcmp(got, want, sizeof(got)) == 0, what);
    }

    /* Alltoallv: rank i sends rank j kCount * ((i + j) % 2 + 1) ints, in the sender's and receiver's own types. */
    offset = 0;
    for (int j = 0; j < n; ++j) {
      const int m = kCount * ((rank + j) % 2 + 1);
      scounts[j] = odd ? m / kCount : m;
      sdispls[j] = odd ? offset / (2 * kCount) : offset;
      offset += 2 * m;
    }
    snprintf(what, sizeof(what), "MPI_Alltoallv%s%s", in_place ? " in place" : "",
             nonblocking ? " (nonblocking form)" : "");
    memcpy(got, send, sizeof(got));
    memcpy(want, send, sizeof(want));
    BLOCKING_OR_NOT(nonblocking, MPI_Alltoallv, MPI_Ialltoallv, in_place ? MPI_IN_PLACE : send, scounts, sdispls, type,
                    got, scounts, sdispls, type, comm);
    PMPI_Alltoallv(in_place ? MPI_IN_PLACE : send, scounts, sdispls, type, want, scounts, sdispls, type, comm);
    CHECK(memcmp(got, want, sizeof(got)) == 0, what);

    /* Reduce_scatter: rank j's block is j + 1 ints of the sum. */
    int rcounts[16], total = 0;
    for (int j = 0; j < n; ++j) total += rcounts[j] = j + 1;
    snprintf(what, sizeof(what), "MPI_Reduce_scatter%s%s", in_place ? " in place" : "",
             nonblocking ? " (nonblocking form)" : "");
    memset(got, 0x5a, sizeof(got));
    memset(want, 0x5a, sizeof(want));
    if (in_place) memcpy(got, send, (size_t)total * sizeof(int));
    BLOCKING_OR_NOT(nonblocking, MPI_Reduce_scatter, MPI_Ireduce_scatter, in_place ? MPI_IN_PLACE : send, got, rcounts,
                    MPI_INT, MPI_SUM, comm);
    PMPI_Reduce_scatter(send, want, rcounts, MPI_INT, MPI_SUM, comm);
    CHECK(memcmp(got, want, (size_t)(rank + 1) * sizeof(int)) == 0, what);
  }
  MPI_Type_free(&resized);
}

static void UserSum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

/* Calls the library hands to MPI: the results must still be MPI's. */
static void CheckForwarded(MPI_Comm comm) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  CheckReductions(comm, MPI_SHORT, MPI_SUM, "MPI_SHORT sum (forwarded)");
  CheckReductions(comm, MPI_INT, MPI_BAND, "MPI_INT band (forwarded)");
  MPI_Op user;
  MPI_Op_create(UserSum, 1, &user);
  CheckReductions(comm, MPI_INT, user, "MPI_INT user op (forwarded)");
  MPI_Op_free(&user);
  struct {
    double value;
    int rank;
  } mine = {(double)(rank % 3), rank}, got, want;
  MPI_Allreduce(&mine, &got, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
  PMPI_Allreduce(&mine, &want, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
  CHECK(got.value == want.value && got.rank == want.rank, "MPI_Allreduce MAXLOC (forwarded)");
  int one = rank + 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
  CHECK(sum == rank + 1, "MPI_Allreduce on MPI_COMM_SELF (forwarded)");
}

/* Communicators freed and others made in their place, alternately of every rank and of one (MPI may hand out the
 * freed handle again): a reduction on the new one runs on its own ranks, never on the route the library remembers
 * from the last call on the old one. */
static void CheckReusedHandles(void) {
  for (int i = 0; i < 6; ++i) {
    MPI_Comm c;
    if (i % 2 == 0) {
      MPI_Comm_dup(MPI_COMM_WORLD, &c);
    } else {
      MPI_Comm_split(MPI_COMM_WORLD, world_rank, 0, &c);
    }
    int size;
    MPI_Comm_size(c, &size);
    double mine = 1.0, sum = 0.0;
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, c);
    CHECK(sum == (double)size, "MPI_Allreduce on a communicator made after another was freed");
    MPI_Comm_free(&c);
  }
}

/* The nonblocking collectives, each against its blocking PMPI_ form: several in flight at once and completed by
 * MPI_Waitall beside point-to-point requests, by MPI_Wait, by an MPI_Test loop and by MPI_Waitany; in place; strided
 * datatypes on odd ranks; and an order that deadlocks if a nonblocking call waits for the other ranks before it
 * returns (rank 0 enters MPI_Ibarrier, then sends to rank 1, which receives before entering its own). */
static void CheckNonblocking(MPI_Comm comm) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  enum { kCount = 6 };
  char what[160];
  double x[kCount], sum[kCount], sum_want[kCount], scan[kCount], scan_want[kCount], ex[kCount], ex_want[kCount];
  double reduced[kCount], reduced_want[kCount];
  for (int i = 0; i < kCount; ++i) x[i] = (double)((rank * 7 + i * 3) % 11 - 5);
  memset(ex, 0, sizeof(ex));
  memset(ex_want, 0, sizeof(ex_want));
  const int root = n - 1;
  /* Four collectives and a ring exchange in flight together, one MPI_Waitall. */
  int token = rank, received = -1;
  MPI_Request requests[6];
  MPI_Iallreduce(x, sum, kCount, MPI_DOUBLE, MPI_SUM, comm, &requests[0]);
  MPI_Iscan(x, scan, kCount, MPI_DOUBLE, MPI_SUM, comm, &requests[1]);
  MPI_Iexscan(x, ex, kCount, MPI_DOUBLE, MPI_MAX, comm, &requests[2]);
  MPI_Ireduce(x, reduced, kCount, MPI_DOUBLE, MPI_MIN, root, comm, &requests[3]);
  MPI_Irecv(&received, 1, MPI_INT, (rank + n - 1) % n, 7, comm, &requests[4]);
  MPI_Isend(&token, 1, MPI_INT, (rank + 1) % n, 7, comm, &requests[5]);
  CHECK(MPI_Waitall(6, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "MPI_Waitall of collectives and messages");
  PMPI_Allreduce(x, sum_want, kCount, MPI_DOUBLE, MPI_SUM, comm);
  PMPI_Scan(x, scan_want, kCount, MPI_DOUBLE, MPI_SUM, comm);
  PMPI_Exscan(x, ex_want, kCount, MPI_DOUBLE, MPI_MAX, comm);
  PMPI_Reduce(x, reduced_want, kCount, MPI_DOUBLE, MPI_MIN, root, comm);
  CHECK(memcmp(sum, sum_want, sizeof(sum)) == 0, "MPI_Iallreduce beside messages");
  CHECK(memcmp(scan, scan_want, sizeof(scan)) == 0, "MPI_Iscan beside messages");
  CHECK(rank == 0 || memcmp(ex, ex_want, sizeof(ex)) == 0, "MPI_Iexscan beside messages");
  CHECK(rank != root || memcmp(reduced, reduced_want, sizeof(reduced)) == 0, "MPI_Ireduce beside messages");
  CHECK(received == (rank + n - 1) % n, "the ring's message beside the collectives");

  /* In place, with MPI_Wait; then an MPI_Test loop. */
  memcpy(sum, x, sizeof(x));
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, sum, kCount, MPI_DOUBLE, MPI_MAX, comm, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  PMPI_Allreduce(x, sum_want, kCount, MPI_DOUBLE, MPI_MAX, comm);
  CHECK(memcmp(sum, sum_want, sizeof(sum)) == 0, "MPI_Iallreduce in place");
  MPI_Ibarrier(comm, &request);
  int done = 0;
  for (long tests = 0; !done && tests < 100000000L; ++tests) MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  CHECK(done, "MPI_Ibarrier completes under MPI_Test");

  /* Data movement, strided on odd ranks (as CheckMovement), completed by MPI_Waitany. */
  MPI_Datatype resized = EveryOtherInt(kCount);
  const int odd = rank % 2 == 1;
  MPI_Datatype type = odd ? resized : MPI_INT;
  const int per = odd ? 1 : kCount, span = odd ? 2 * kCount : kCount;
  int send[16 * 2 * kCount], bcast[16 * 2 * kCount], bcast_want[16 * 2 * kCount];
  int gathered[16 * 2 * kCount], gathered_want[16 * 2 * kCount], swapped[16 * 2 * kCount];
  int swapped_want[16 * 2 * kCount];
  for (int i = 0; i < 16 * 2 * kCount; ++i) send[i] = rank * 1000 + i;
  memcpy(bcast, send, sizeof(bcast));
  memcpy(bcast_want, send, sizeof(bcast_want));
  memset(gathered, 0x5a, sizeof(gathered));
  memset(gathered_want, 0x5a, sizeof(gathered_want));
  memcpy(swapped, send, sizeof(swapped));
  memcpy(swapped_want, send, sizeof(swapped_want));
  MPI_Request moves[3];
  MPI_Ibcast(bcast, per, type, root, comm, &moves[0]);
  MPI_Iallgather(send, kCount, MPI_INT, gathered, per, type, comm, &moves[1]);
  MPI_Ialltoall(MPI_IN_PLACE, per, type, swapped, per, type, comm, &moves[2]);
  for (int left = 3; left > 0; --left) {
    int index = MPI_UNDEFINED;
    MPI_Waitany(3, moves, &index, MPI_STATUS_IGNORE);
    CHECK(index >= 0 && index < 3, "MPI_Waitany returns one of the collectives");
  }
  PMPI_Bcast(bcast_want, per, type, root, comm);
  PMPI_Allgather(send, kCount, MPI_INT, gathered_want, per, type, comm);
  PMPI_Alltoall(MPI_IN_PLACE, per, type, swapped_want, per, type, comm);
  snprintf(what, sizeof(what), "MPI_Ibcast root %d", root);
  CHECK(memcmp(bcast, bcast_want, sizeof(bcast)) == 0, what);
  CHECK(memcmp(gathered, gathered_want, (size_t)n * span * sizeof(int)) == 0, "MPI_Iallgather");
  CHECK(memcmp(swapped, swapped_want, (size_t)n * span * sizeof(int)) == 0, "MPI_Ialltoall in place");
  MPI_Type_free(&resized);

  /* Rank 0 enters the barrier and only then sends; rank 1 receives before entering it. */
  int message = 42, got = 0;
  if (n < 2) return;
  if (rank == 0) {
    MPI_Ibarrier(comm, &request);
    MPI_Send(&message, 1, MPI_INT, 1, 9, comm);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {
    if (rank == 1) MPI_Recv(&got, 1, MPI_INT, 0, 9, comm, MPI_STATUS_IGNORE);
    MPI_Ibarrier(comm, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  CHECK(rank != 1 || got == 42, "a message sent after MPI_Ibarrier, received before the peer's");
}

static void CheckAll(MPI_Comm comm) {
  const MPI_Datatype types[] = {MPI_INT, MPI_UNSIGNED, MPI_LONG_LONG, MPI_DOUBLE, MPI_FLOAT, MPI_UNSIGNED_CHAR};
  const char* type_names[] = {"MPI_INT",    "MPI_UNSIGNED", "MPI_LONG_LONG",
                              "MPI_DOUBLE", "MPI_FLOAT",    "MPI_UNSIGNED_CHAR"};
  const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX};
  const char* op_names[] = {"sum", "prod", "min", "max"};
  char name[96];
  for (int t = 0; t < 6; ++t) {
    for (int o = 0; o < 4; ++o) {
      snprintf(name, sizeof(name), "%s %s", type_names[t], op_names[o]);
      CheckReductions(comm, types[t], ops[o], name);
    }
  }
  for (int nonblocking = 0; nonblocking <= 1; ++nonblocking) {
    CheckMovement(comm, nonblocking);
    CheckVariable(comm, nonblocking);
  }
  CheckNonblocking(comm);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int expect_kcoll = argc > 1 && strcmp(argv[1], "--expect-kcoll") == 0;
  int n;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);

  CheckAll(MPI_COMM_WORLD);
  CheckForwarded(MPI_COMM_WORLD);
  CheckReusedHandles();

  /* A split (even and odd ranks), a duplicate, a Cartesian communicator; each freed before MPI_Finalize. */
  MPI_Comm half, dup, cart;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &half);
  CheckAll(half);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  CheckAll(dup);
  int dims[1] = {n}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  CheckAll(cart);

  /* An invalid root under MPI_ERRORS_RETURN: an error code, and through kcoll its message. */
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  int value = 1;
  const int code = MPI_Bcast(&value, 1, MPI_INT, n + 3, dup);
  CHECK(code != MPI_SUCCESS, "MPI_Bcast with root n + 3 returns an error");
  if (expect_kcoll && n > 1) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    CHECK(strstr(text, "kcoll") != NULL && strstr(text, "root") != NULL, "the error string is kcoll's message");
    if (world_rank == 0) printf("MPI_Bcast with an invalid root: %s\n", text);
  }
  /* Buffers no rank can describe, on every rank: an error, never a call that moves nothing and succeeds. */
  int gathered[64];
  const int null_type = MPI_Bcast(&value, 1, MPI_DATATYPE_NULL, 0, dup);
  CHECK(null_type != MPI_SUCCESS, "MPI_Bcast of MPI_DATATYPE_NULL returns an error");
  const int negative = MPI_Gather(&value, -1, MPI_INT, gathered, 1, MPI_INT, 0, dup);
  CHECK(negative != MPI_SUCCESS, "MPI_Gather with sendcount -1 returns an error");
  if (expect_kcoll && n > 1) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(null_type, text, &length);
    CHECK(strstr(text, "MPI_Bcast on kcoll") != NULL && strstr(text, "MPI_DATATYPE_NULL") != NULL,
          "the MPI_DATATYPE_NULL error is kcoll's message");
    MPI_Error_string(negative, text, &length);
    CHECK(strstr(text, "MPI_Gather on kcoll") != NULL && strstr(text, "negative count") != NULL,
          "the negative sendcount error is kcoll's message");
  }
  MPI_Comm_free(&cart);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&half);

  int total = 0;
  PMPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (world_rank == 0)
    printf("drop_in_check on %d ranks: %s (%d failed checks)\n", n, total == 0 ? "PASSED" : "FAILED", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
