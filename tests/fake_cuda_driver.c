/* A stand-in for CUDA's driver (libcuda.so.1) with the entry points that code finding the driver in its process uses,
 * for tests on machines without a GPU. Its "device memory" is host pages mapped with no access, as device memory is
 * to host code: any host read or write of it crashes the process, and only this library's copies reach it (they open
 * the pages for the copy and close them after). Copies need a context current on the thread, as the real driver's do.
 * Single-threaded use: the copies toggle page protection. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

typedef int CUresult;
enum {
  kSuccess = 0,
  kInvalidValue = 1,
  kNotInitialized = 3,
  kInvalidContext = 201,
  kMaxAllocations = 256,
};

static struct {
  char* base;
  size_t bytes;
} allocations[kMaxAllocations];
static int initialized = 0;
static int primary_context = 0;       /* its address is the one context */
static __thread void* current = NULL; /* the context current on the thread */
static __thread void* pushed = NULL;  /* the context a push replaced (one level) */

static int Find(uintptr_t p, size_t bytes) {
  for (int i = 0; i < kMaxAllocations; ++i) {
    const uintptr_t base = (uintptr_t)allocations[i].base;
    if (base != 0 && p >= base && p + bytes <= base + allocations[i].bytes) return i;
  }
  return -1;
}

static size_t Pages(size_t bytes) {
  const size_t page = 4096;
  return (bytes + page - 1) / page * page;
}

CUresult cuInit(unsigned int flags) {
  (void)flags;
  initialized = 1;
  return kSuccess;
}

CUresult cuDeviceGet(int* device, int ordinal) {
  if (!initialized) return kNotInitialized;
  if (ordinal != 0) return kInvalidValue;
  *device = 0;
  return kSuccess;
}

CUresult cuDevicePrimaryCtxRetain(void** context, int device) {
  if (!initialized) return kNotInitialized;
  if (device != 0) return kInvalidValue;
  *context = &primary_context;
  return kSuccess;
}

CUresult cuDevicePrimaryCtxRelease_v2(int device) { return device == 0 ? kSuccess : kInvalidValue; }

CUresult cuCtxSetCurrent(void* context) {
  current = context;
  return kSuccess;
}

CUresult cuCtxGetCurrent(void** context) {
  *context = current;
  return kSuccess;
}

CUresult cuCtxPushCurrent_v2(void* context) {
  pushed = current;
  current = context;
  return kSuccess;
}

CUresult cuCtxPopCurrent_v2(void** context) {
  if (context != NULL) *context = current;
  current = pushed;
  pushed = NULL;
  return kSuccess;
}

CUresult cuMemAlloc_v2(unsigned long long* dptr, size_t bytes) {
  if (current == NULL) return kInvalidContext;
  for (int i = 0; i < kMaxAllocations; ++i) {
    if (allocations[i].base != NULL) continue;
    void* p = mmap(NULL, Pages(bytes), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return kInvalidValue;
    allocations[i].base = p;
    allocations[i].bytes = bytes;
    *dptr = (uintptr_t)p;
    return kSuccess;
  }
  return kInvalidValue;
}

CUresult cuMemFree_v2(unsigned long long dptr) {
  const int i = Find((uintptr_t)dptr, 0);
  if (i < 0 || (uintptr_t)allocations[i].base != dptr) return kInvalidValue;
  munmap(allocations[i].base, Pages(allocations[i].bytes));
  allocations[i].base = NULL;
  return kSuccess;
}

static CUresult Copy(void* to, const void* from, uintptr_t device, size_t bytes, int prot) {
  if (current == NULL) return kInvalidContext;
  const int i = Find(device, bytes);
  if (i < 0) return kInvalidValue;
  if (bytes == 0) return kSuccess;
  mprotect(allocations[i].base, Pages(allocations[i].bytes), prot);
  memcpy(to, from, bytes);
  mprotect(allocations[i].base, Pages(allocations[i].bytes), PROT_NONE);
  return kSuccess;
}

CUresult cuMemcpyDtoH_v2(void* host, unsigned long long device, size_t bytes) {
  return Copy(host, (const void*)(uintptr_t)device, (uintptr_t)device, bytes, PROT_READ);
}

CUresult cuMemcpyHtoD_v2(unsigned long long device, const void* host, size_t bytes) {
  return Copy((void*)(uintptr_t)device, host, (uintptr_t)device, bytes, PROT_READ | PROT_WRITE);
}

/* CU_POINTER_ATTRIBUTE_CONTEXT (1), MEMORY_TYPE (2: 2 for device memory, 0 for memory the driver does not know),
 * IS_MANAGED (8) and DEVICE_ORDINAL (9); as the real driver, success for any pointer once initialised. */
CUresult cuPointerGetAttributes(unsigned int count, int* attributes, void** data, unsigned long long ptr) {
  if (!initialized) return kNotInitialized;
  const int device = Find((uintptr_t)ptr, 1) >= 0;
  for (unsigned int k = 0; k < count; ++k) {
    switch (attributes[k]) {
      case 1:
        *(void**)data[k] = device ? &primary_context : NULL;
        break;
      case 2:
        *(unsigned int*)data[k] = device ? 2u : 0u;
        break;
      case 8:
        *(unsigned int*)data[k] = 0u;
        break;
      case 9:
        *(int*)data[k] = device ? 0 : -2;
        break;
      default:
        return kInvalidValue;
    }
  }
  return kSuccess;
}

CUresult cuGetErrorName(CUresult error, const char** name) {
  switch (error) {
    case kSuccess:
      *name = "CUDA_SUCCESS";
      return kSuccess;
    case kInvalidValue:
      *name = "CUDA_ERROR_INVALID_VALUE";
      return kSuccess;
    case kNotInitialized:
      *name = "CUDA_ERROR_NOT_INITIALIZED";
      return kSuccess;
    case kInvalidContext:
      *name = "CUDA_ERROR_INVALID_CONTEXT";
      return kSuccess;
    default:
      *name = NULL;
      return kInvalidValue;
  }
}
