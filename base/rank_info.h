// What one rank knows about the machine it runs on: host, process, CPU affinity, NUMA node, network interfaces and,
// when it drives a GPU, the device. Discovered locally by each rank (collectives/topology/local_machine.h), then
// gathered so every rank holds everyone's.
#ifndef KCOLL_BASE_RANK_INFO_H_
#define KCOLL_BASE_RANK_INFO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kcoll {

// One address of a network interface, as getifaddrs reports it (an interface has one entry per address family).
struct NetworkInterface {
  std::string name;     // "eth0", "lo", "ib0"
  std::string family;   // "ipv4", "ipv6", "link" (AF_PACKET: the hardware address), "none" (no address), "af<N>"
  std::string address;  // "192.0.2.2", "fe80::1", "02:00:00:00:00:01"; empty when there is none
  bool up = false;
  bool loopback = false;

  bool operator==(const NetworkInterface& o) const {
    return name == o.name && family == o.family && address == o.address && up == o.up && loopback == o.loopback;
  }
};

// The GPU a rank drives. Filled by whoever owns the device (the CUDA backend / NCCL transport); absent otherwise.
struct GpuInfo {
  int device = -1;         // CUDA device ordinal as the process sees it
  std::string pci_bus_id;  // "0000:3b:00.0"
  std::string name;        // "NVIDIA H100 80GB HBM3"

  bool operator==(const GpuInfo& o) const { return device == o.device && pci_bus_id == o.pci_bus_id && name == o.name; }
};

struct RankInfo {
  std::string host;
  int64_t pid = 0;
  std::vector<int> cpus;        // the cores the process may run on (sched_getaffinity)
  std::vector<int> numa_nodes;  // NUMA nodes those cores belong to; empty when the system does not say
  std::vector<NetworkInterface> interfaces;
  std::optional<GpuInfo> gpu;
  uint64_t nonce = 0;  // differs between communicators created by the same process (feeds the communicator id)

  bool operator==(const RankInfo& o) const {
    return host == o.host && pid == o.pid && cpus == o.cpus && numa_nodes == o.numa_nodes &&
           interfaces == o.interfaces && gpu == o.gpu && nonce == o.nonce;
  }
};

// Compact CPU lists as Linux prints them: "0-3,8,10-11" <-> {0,1,2,3,8,10,11}. Parse errors name the text.
std::string FormatCpuList(const std::vector<int>& cpus);
absl::StatusOr<std::vector<int>> ParseCpuList(absl::string_view text);

// 64-bit FNV-1a: a hash that is the same on every rank and every build (absl::Hash is salted per process).
uint64_t StableHash(absl::string_view bytes);

}  // namespace kcoll

#endif  // KCOLL_BASE_RANK_INFO_H_
