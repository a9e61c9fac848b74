/* A plain MPI program that passes device memory to the MPI collectives, as a GPU application does when its MPI is not
 * CUDA-aware. Device buffers come from CUDA's driver API (libcuda.so.1 opened at run time: the real driver, or
 * tests/fake_cuda_driver.c's stand-in, whose device memory host code cannot touch). Each call is made on device
 * buffers through its MPI_ name (kcoll's, when libkcoll_mpi.so is preloaded) and on host copies of the same data
 * through its PMPI_ name (the MPI underneath), and the device result, copied back, must equal the host result bit
 * for bit, the bytes between a non-contiguous datatype's elements or a v-collective's blocks included. In the first
 * pass even ranks pass device memory and odd ranks host memory (a rank's memory is its own business: every rank must
 * still take the same route); in the second every rank passes device memory.
 *
 * drop_in_device_check; prints "drop_in_device_check on N ranks: PASSED" from rank 0 and exits 0 when all hold. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int rank = 0, nranks = 0;

static struct {
  int (*init)(unsigned);
  int (*device_get)(int*, int);
  int (*primary_ctx_retain)(void**, int);
  int (*ctx_set_current)(void*);
  int (*mem_alloc)(unsigned long long*, size_t);
  int (*mem_free)(unsigned long long);
  int (*dtoh)(void*, unsigned long long, size_t);
  int (*htod)(unsigned long long, const void*, size_t);
} cu;

static void Die(const char* what, int result) {
  fprintf(stderr, "rank %d: %s failed (%d)\n", rank, what, result);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static void* Symbol(void* driver, const char* name) {
  void* fn = dlsym(driver, name);
  if (fn == NULL) {
    fprintf(stderr, "rank %d: libcuda.so.1 has no %s\n", rank, name);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return fn;
}

static void OpenDriver(void) {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW);
  if (driver == NULL) {
    fprintf(stderr, "rank %d: no libcuda.so.1: %s\n", rank, dlerror());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  *(void**)&cu.init = Symbol(driver, "cuInit");
  *(void**)&cu.device_get = Symbol(driver, "cuDeviceGet");
  *(void**)&cu.primary_ctx_retain = Symbol(driver, "cuDevicePrimaryCtxRetain");
  *(void**)&cu.ctx_set_current = Symbol(driver, "cuCtxSetCurrent");
  *(void**)&cu.mem_alloc = Symbol(driver, "cuMemAlloc_v2");
  *(void**)&cu.mem_free = Symbol(driver, "cuMemFree_v2");
  *(void**)&cu.dtoh = Symbol(driver, "cuMemcpyDtoH_v2");
  *(void**)&cu.htod = Symbol(driver, "cuMemcpyHtoD_v2");
  int device = 0, result = 0;
  void* context = NULL;
  if ((result = cu.init(0)) != 0) Die("cuInit", result);
  if ((result = cu.device_get(&device, 0)) != 0) Die("cuDeviceGet", result);
  if ((result = cu.primary_ctx_retain(&context, device)) != 0) Die("cuDevicePrimaryCtxRetain", result);
  if ((result = cu.ctx_set_current(context)) != 0) Die("cuCtxSetCurrent", result);
}

/* A buffer of the call under test: device memory or host memory, filled from and read into host arrays. */
typedef struct {
  void* p;
  size_t bytes;
  int device;
} Buffer;

static Buffer Make(size_t bytes, int device, const void* contents) {
  Buffer b = {NULL, bytes, device};
  const size_t alloc = bytes == 0 ? 1 : bytes;
  if (device) {
    unsigned long long ptr = 0;
    int result = cu.mem_alloc(&ptr, alloc);
    if (result != 0) Die("cuMemAlloc", result);
    b.p = (void*)(uintptr_t)ptr;
    if (bytes > 0 && (result = cu.htod(ptr, contents, bytes)) != 0) Die("cuMemcpyHtoD", result);
  } else {
    b.p = malloc(alloc);
    memcpy(b.p, contents, bytes);
  }
  return b;
}

static void Read(const Buffer* b, void* out) {
  if (b->device) {
    int result = cu.dtoh(out, (uintptr_t)b->p, b->bytes);
    if (result != 0) Die("cuMemcpyDtoH", result);
  } else {
    memcpy(out, b->p, b->bytes);
  }
}

static void Free(Buffer* b) {
  if (b->device) {
    cu.mem_free((uintptr_t)b->p);
  } else {
    free(b->p);
  }
}

/* `b`'s bytes must equal `expected`'s. */
static void Expect(const Buffer* b, const void* expected, const char* what, int pass) {
  char* got = malloc(b->bytes + 1);
  Read(b, got);
  if (memcmp(got, expected, b->bytes) != 0) {
    ++failures;
    size_t i = 0;
    while (((const char*)expected)[i] == got[i]) ++i;
    fprintf(stderr, "rank %d: %s (pass %d, %s memory): byte %zu differs from the MPI underneath's: %d, not %d\n", rank,
            what, pass, b->device ? "device" : "host", i, got[i], ((const char*)expected)[i]);
  }
  free(got);
}

static void Fill(int* v, size_t n, int seed) {
  for (size_t i = 0; i < n; ++i) v[i] = (int)((seed * 131 + (int)i * 7) % 1000) - 500;
}

static void CheckPass(int pass, int device) {
  enum { kN = 1000 };
  static int in[kN * 16], ref[kN * 16], init[kN * 16];
  const int root = nranks - 1;

  /* MPI_Allreduce out of place, ints. */
  Fill(in, kN, rank);
  memset(init, 0x5a, sizeof(init));
  {
    Buffer s = Make(kN * sizeof(int), device, in), r = Make(kN * sizeof(int), device, init);
    MPI_Allreduce(s.p, r.p, kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Allreduce(in, ref, kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    Expect(&r, ref, "MPI_Allreduce", pass);
    Free(&s);
    Free(&r);
  }
  /* MPI_Allreduce in place, doubles of small integers. */
  {
    double d[33], dref[33];
    for (int i = 0; i < 33; ++i) d[i] = dref[i] = rank * 3 + i;
    Buffer r = Make(sizeof(d), device, d);
    MPI_Allreduce(MPI_IN_PLACE, r.p, 33, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    PMPI_Allreduce(MPI_IN_PLACE, dref, 33, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    Expect(&r, dref, "MPI_Allreduce in place", pass);
    Free(&r);
  }
  /* MPI_Iallreduce, long longs, completed by MPI_Wait. */
  {
    long long l[50], lref[50], zero[50] = {0};
    for (int i = 0; i < 50; ++i) l[i] = (long long)rank * 1000003 + i;
    Buffer s = Make(sizeof(l), device, l), r = Make(sizeof(l), device, zero);
    MPI_Request request;
    MPI_Iallreduce(s.p, r.p, 50, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    PMPI_Allreduce(l, lref, 50, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    Expect(&r, lref, "MPI_Iallreduce", pass);
    Free(&s);
    Free(&r);
  }
  /* MPI_Reduce to the last rank; MPI_Scan. */
  Fill(in, kN, rank + 11);
  {
    Buffer s = Make(kN * sizeof(int), device, in), r = Make(kN * sizeof(int), device, init);
    memcpy(ref, init, kN * sizeof(int));
    MPI_Reduce(s.p, r.p, kN, MPI_INT, MPI_MIN, root, MPI_COMM_WORLD);
    PMPI_Reduce(in, ref, kN, MPI_INT, MPI_MIN, root, MPI_COMM_WORLD);
    Expect(&r, ref, "MPI_Reduce", pass);
    MPI_Scan(s.p, r.p, kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Scan(in, ref, kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    Expect(&r, ref, "MPI_Scan", pass);
    Free(&s);
    Free(&r);
  }
  /* MPI_Bcast of bytes from rank 1, then of a strided datatype (3 of every 5 ints) whose gaps must keep their bytes. */
  Fill(in, kN, rank + 5);
  {
    Buffer b = Make(kN * sizeof(int), device, in);
    memcpy(ref, in, kN * sizeof(int));
    MPI_Bcast(b.p, kN * (int)sizeof(int), MPI_BYTE, 1 % nranks, MPI_COMM_WORLD);
    PMPI_Bcast(ref, kN * (int)sizeof(int), MPI_BYTE, 1 % nranks, MPI_COMM_WORLD);
    Expect(&b, ref, "MPI_Bcast", pass);
    Free(&b);
    MPI_Datatype strided;
    MPI_Type_vector(40, 3, 5, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    b = Make(200 * sizeof(int), device, in);
    memcpy(ref, in, 200 * sizeof(int));
    MPI_Bcast(b.p, 1, strided, 0, MPI_COMM_WORLD);
    PMPI_Bcast(ref, 1, strided, 0, MPI_COMM_WORLD);
    Expect(&b, ref, "MPI_Bcast of a strided datatype", pass);
    /* The nonblocking form, completed by MPI_Wait. */
    Fill(in, 200, rank + 9);
    Free(&b);
    b = Make(200 * sizeof(int), device, in);
    memcpy(ref, in, 200 * sizeof(int));
    MPI_Request request;
    MPI_Ibcast(b.p, 1, strided, root, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    PMPI_Bcast(ref, 1, strided, root, MPI_COMM_WORLD);
    Expect(&b, ref, "MPI_Ibcast of a strided datatype", pass);
    Free(&b);
    MPI_Type_free(&strided);
  }
  /* MPI_Allgather and MPI_Alltoall. */
  Fill(in, 17 * nranks, rank + 3);
  {
    Buffer s = Make(17 * nranks * sizeof(int), device, in), r = Make(17 * nranks * sizeof(int), device, init);
    MPI_Allgather(s.p, 17, MPI_INT, r.p, 17, MPI_INT, MPI_COMM_WORLD);
    PMPI_Allgather(in, 17, MPI_INT, ref, 17, MPI_INT, MPI_COMM_WORLD);
    Expect(&r, ref, "MPI_Allgather", pass);
    MPI_Alltoall(s.p, 17, MPI_INT, r.p, 17, MPI_INT, MPI_COMM_WORLD);
    PMPI_Alltoall(in, 17, MPI_INT, ref, 17, MPI_INT, MPI_COMM_WORLD);
    Expect(&r, ref, "MPI_Alltoall", pass);
    Free(&s);
    Free(&r);
  }
  /* MPI_Gatherv to rank 0 with a gap after every block: the gaps keep their bytes. */
  {
    int counts[64], displs[64];
    for (int j = 0; j < nranks; ++j) {
      counts[j] = j + 1;
      displs[j] = j * (nranks + 3);
    }
    const size_t span = (size_t)nranks * (nranks + 3) * sizeof(int);
    Fill(in, (size_t)rank + 1, rank + 21);
    Buffer s = Make((size_t)(rank + 1) * sizeof(int), device, in), r = Make(span, device, init);
    memcpy(ref, init, span);
    MPI_Gatherv(s.p, rank + 1, MPI_INT, r.p, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    PMPI_Gatherv(in, rank + 1, MPI_INT, ref, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    Expect(&r, ref, "MPI_Gatherv", pass);
    Free(&s);
    Free(&r);
  }
  /* MPI_Reduce_scatter_block in place and MPI_Reduce_scatter out of place. */
  Fill(in, 4 * nranks, rank + 31);
  {
    Buffer r = Make(4 * nranks * sizeof(int), device, in);
    memcpy(ref, in, 4 * nranks * sizeof(int));
    MPI_Reduce_scatter_block(MPI_IN_PLACE, r.p, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Reduce_scatter_block(MPI_IN_PLACE, ref, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    r.bytes = 4 * sizeof(int); /* the result: the first block */
    Expect(&r, ref, "MPI_Reduce_scatter_block in place", pass);
    Free(&r);
    int counts[64], total = 0;
    for (int j = 0; j < nranks; ++j) total += counts[j] = j + 2;
    Fill(in, (size_t)total, rank + 41);
    Buffer s = Make((size_t)total * sizeof(int), device, in);
    r = Make((size_t)counts[rank] * sizeof(int), device, init);
    MPI_Reduce_scatter(s.p, r.p, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Reduce_scatter(in, ref, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    Expect(&r, ref, "MPI_Reduce_scatter", pass);
    Free(&s);
    Free(&r);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks > 64) {
    if (rank == 0) fprintf(stderr, "drop_in_device_check: at most 64 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  OpenDriver();
  CheckPass(1, rank % 2 == 0);
  CheckPass(2, 1);
  int total = 0;
  PMPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total == 0) {
      printf("drop_in_device_check on %d ranks: PASSED\n", nranks);
    } else {
      printf("drop_in_device_check on %d ranks: %d FAILED\n", nranks, total);
    }
  }
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
