// The size of a level of the CPU's caches as the process sees it. The kernel's sysfs description of cpu0's caches comes
// first: on AMD's chiplet CPUs under a hypervisor, the C library's sysconf(_SC_LEVEL3_CACHE_SIZE) can report the whole
// package's L3 (256 MiB on one VM whose cores share a 32 MiB L3, as lscpu says); sysconf stays the fallback.
#ifndef KCOLL_BASE_CACHE_SIZE_H_
#define KCOLL_BASE_CACHE_SIZE_H_

#include <cstddef>
#include <string>

namespace kcoll {

// Bytes of the data or unified cache of `level` (1-3) that cpu0 uses, from sysfs, else sysconf; 0 when neither says.
size_t CacheBytes(int level);

// CacheBytes' sysfs half under `cache_dir` (/sys/devices/system/cpu/cpu0/cache): the largest data or unified cache of
// `level` among its index*/ entries (files `level`, `type`, `size` as "32768K"); 0 when none is readable.
size_t CacheBytesFromSysfs(const std::string& cache_dir, int level);

}  // namespace kcoll

#endif  // KCOLL_BASE_CACHE_SIZE_H_
