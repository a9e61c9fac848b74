/* A plain MPI program for the drop-in library under KCOLL_NUMERICS=deterministic or exact, on doubles whose sums
 * rounding changes (wide exponents, signs, pairs of large terms on two ranks that cancel), at 4, 100 and 3000
 * elements: the inline lane, the gathering schedules and the owners' schedules.
 *
 *   drop_in_numerics [deterministic]   MPI_Allreduce, MPI_Reduce, MPI_Scan, MPI_Exscan, MPI_Reduce_scatter_block
 *                                      and MPI_Reduce_scatter (in place, uneven blocks) must give, byte for byte, the
 * terms folded in rank order, ((x0 + x1) + x2) +
 * ..., which every rank computes itself from the terms every rank can regenerate. drop_in_numerics exact the bits may
 * depend only on the terms: the same terms held by other ranks (rank r holds rank n-1-r's) give the same MPI_Allreduce
 * bytes, where the rank-order fold of the two distributions differs (checked here: the data can show an order);
 * MPI_Reduce, MPI_Reduce_scatter_block and MPI_Reduce_scatter give the AllReduce's bytes.
 *
 * Prints "drop_in_numerics on N ranks: PASSED" from rank 0 and exits 0 when all hold. */
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

/* Element i folded over ranks n-1 .. 0: the rank-order fold of the terms when rank r holds rank n-1-r's. */
static double FoldReversed(int i, int n) {
  double acc = Term(n - 1, i, n);
  for (int r = n - 2; r >= 0; --r) acc += Term(r, i, n);
  return acc;
}

static void CheckSameBytes(const double* got, const double* want, int count, int rank, const char* what) {
  if (memcmp(got, want, sizeof(double) * (size_t)count) == 0) return;
  ++failures;
  fprintf(stderr, "rank %d: %s of %d doubles differs from the exact MPI_Allreduce\n", rank, what, count);
}

/* MPI_Reduce_scatter in place on a copy of `send`, rank j's block count - j elements (count - j >= 1) after the
 * blocks of the ranks before it: the result lands at the buffer's start. Returns the buffer; *at is the block's first
 * element. */
static double* ReduceScatterInPlace(const double* send, int count, int n, int me, int* at) {
  int counts[64], before = 0;
  for (int j = 0; j < n; ++j) {
    counts[j] = count - j;
    if (j < me) before += counts[j];
  }
  double* buffer = malloc(sizeof(double) * (size_t)count * (size_t)n);
  memcpy(buffer, send, sizeof(double) * (size_t)count * (size_t)n);
  MPI_Reduce_scatter(MPI_IN_PLACE, buffer, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  *at = before;
  return buffer;
}

/* numerics=exact: the result depends on the terms alone. */
static void CheckExact(int n, int me, int count) {
  const int all = count * n;
  double* send = malloc(sizeof(double) * (size_t)all);
  double* reversed = malloc(sizeof(double) * (size_t)all);
  double* sum = malloc(sizeof(double) * (size_t)all);
  double* got = malloc(sizeof(double) * (size_t)all);
  for (int i = 0; i < all; ++i) {
    send[i] = Term(me, i, n);
    reversed[i] = Term(n - 1 - me, i, n);
  }
  MPI_Allreduce(send, sum, all, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(reversed, got, all, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  CheckSameBytes(got, sum, all, me, "MPI_Allreduce of the terms on other ranks");
  int orders_differ = 0;
  for (int i = 0; i < all && !orders_differ; ++i) {
    const double forward = Fold(i, n, n), backward = FoldReversed(i, n);
    orders_differ = memcmp(&forward, &backward, sizeof(double)) != 0;
  }
  if (n >= 3 && all >= 100 && !orders_differ) {
    ++failures;
    fprintf(stderr, "rank %d: the data cannot show an order at %d doubles (negative control)\n", me, all);
  }
  MPI_Reduce(send, got, all, MPI_DOUBLE, MPI_SUM, n - 1, MPI_COMM_WORLD);
  if (me == n - 1) CheckSameBytes(got, sum, all, me, "MPI_Reduce");
  MPI_Reduce_scatter_block(send, got, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  CheckSameBytes(got, sum + (size_t)me * (size_t)count, count, me, "MPI_Reduce_scatter_block");
  if (n <= count) {
    int at = 0;
    double* scattered = ReduceScatterInPlace(send, count, n, me, &at);
    CheckSameBytes(scattered, sum + at, count - me, me, "MPI_Reduce_scatter in place, uneven blocks");
    free(scattered);
  }
  free(send);
  free(reversed);
  free(sum);
  free(got);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n, me;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const int exact = argc > 1 && strcmp(argv[1], "exact") == 0;
  const int counts[] = {4, 100, 3000};
  for (int c = 0; c < 3 && exact; ++c) CheckExact(n, me, counts[c]);
  for (int c = 0; c < 3 && !exact; ++c) {
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
    if (n <= count) {
      int at = 0;
      double* scattered = ReduceScatterInPlace(send, count, n, me, &at);
      Check(SameBytes(scattered, at, count - me, n, n), me, "MPI_Reduce_scatter in place, uneven blocks", count - me);
      free(scattered);
    }
    free(send);
    free(recv);
  }
  int total = 0;
  PMPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf("drop_in_numerics on %d ranks: %s (%s, %d failed checks)\n", n, total == 0 ? "PASSED" : "FAILED",
           exact ? "exact" : "deterministic", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
