/* A plain MPI program for the drop-in library under KCOLL_NUMERICS=deterministic: MPI_Allreduce, MPI_Reduce,
 * MPI_Scan, MPI_Exscan and MPI_Reduce_scatter_block of doubles whose sums rounding changes (wide exponents, signs,
 * pairs of large terms on two ranks that cancel) must give, byte for byte, the terms folded in rank order,
 * ((x0 + x1) + x2) + ..., which every rank computes itself from the terms every rank can regenerate. At 4, 100 and
 * 3000 elements: the inline lane, the gathering schedules and the owners' schedules.
 *
 * drop_in_numerics; prints "drop_in_numerics on N ranks: PASSED" from rank 0 and exits 0 when all hold. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void Check(int ok, int rank, const char* what, int count) {
  if (ok) return;
  ++failures;
  fprintf(stderr, "rank %d: %s of %d doubles differs from the rank-order fold\n", rank, what, count);
}

/* Rank r's term i on n ranks. */
static double Term(int r, int i, int n) {
  uint64_t x = (uint64_t)(r + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(i + 1) * 0xbf58476d1ce4e5b9ull;
  x ^= x >> 31;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 29;
  const double mantissa = 1.0 + (double)(x >> 11) / 9007199254740992.0;
  double t = ldexp((x & 1) ? -mantissa : mantissa, (int)((x >> 3) % 61) - 30);
  if (i % 4 == 0) {
    const int owner = (i / 4) % n;
    if (r == owner) t += ldexp(1.0, 40);
    if (r == (owner + 1) % n) t -= ldexp(1.0, 40);
  }
  return t;
}

/* Element i folded over ranks 0..terms-1 in rank order. */
static double Fold(int i, int n, int terms) {
  double acc = Term(0, i, n);
  for (int r = 1; r < terms; ++r) acc += Term(r, i, n);
  return acc;
}

static int SameBytes(const double* got, int at, int count, int n, int terms) {
  for (int i = 0; i < count; ++i) {
    const double want = Fold(at + i, n, terms);
    if (memcmp(&got[i], &want, sizeof(double)) != 0) return 0;
  }
  return 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n, me;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const int counts[] = {4, 100, 3000};
  for (int c = 0; c < 3; ++c) {
    const int count = counts[c];
    double* send = malloc(sizeof(double) * (size_t)count * (size_t)n);
    double* recv = malloc(sizeof(double) * (size_t)count);
    for (int i = 0; i < count * n; ++i) send[i] = Term(me, i, n);

    MPI_Allreduce(send, recv, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    Check(SameBytes(recv, 0, count, n, n), me, "MPI_Allreduce", count);
    MPI_Reduce(send, recv, count, MPI_DOUBLE, MPI_SUM, n - 1, MPI_COMM_WORLD);
    if (me == n - 1) Check(SameBytes(recv, 0, count, n, n), me, "MPI_Reduce", count);
    MPI_Scan(send, recv, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    Check(SameBytes(recv, 0, count, n, me + 1), me, "MPI_Scan", count);
    MPI_Exscan(send, recv, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (me > 0) Check(SameBytes(recv, 0, count, n, me), me, "MPI_Exscan", count);
    /* Rank r's block: elements r * count ... of everyone's n * count. */
    MPI_Reduce_scatter_block(send, recv, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    Check(SameBytes(recv, me * count, count, n, n), me, "MPI_Reduce_scatter_block", count);
    free(send);
    free(recv);
  }
  int total = 0;
  PMPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf("drop_in_numerics on %d ranks: %s (%d failed checks)\n", n, total == 0 ? "PASSED" : "FAILED", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
