// This process's machine as its rank describes it to the others (base/rank_info.h): host, CPU affinity, NUMA nodes
// and network interfaces, read from the operating system.
#ifndef KCOLL_COLLECTIVES_TOPOLOGY_LOCAL_MACHINE_H_
#define KCOLL_COLLECTIVES_TOPOLOGY_LOCAL_MACHINE_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "base/rank_info.h"

namespace kcoll {

// This process's RankInfo (without `gpu`, which the GPU owner fills). `sysfs_node_dir` is where the NUMA nodes are
// described (node<N>/cpulist files).
RankInfo DiscoverLocalRankInfo(absl::string_view sysfs_node_dir = "/sys/devices/system/node");

// The NUMA nodes whose cpulist under `sysfs_node_dir` shares a core with `cpus`.
std::vector<int> NumaNodesOf(const std::vector<int>& cpus, absl::string_view sysfs_node_dir);

// The network interfaces of this machine (every getifaddrs entry, loopback and down ones included).
std::vector<NetworkInterface> DiscoverNetworkInterfaces();

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TOPOLOGY_LOCAL_MACHINE_H_
