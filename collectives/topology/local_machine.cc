#include "collectives/topology/local_machine.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace kcoll {
namespace {

std::vector<int> AffinityCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

uint64_t MakeNonce() {
  static std::atomic<uint64_t> sequence{0};
  const uint64_t now = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return now ^ (sequence.fetch_add(1) << 56);
}

NetworkInterface InterfaceOf(const ifaddrs& ifa) {
  NetworkInterface nic;
  nic.name = ifa.ifa_name != nullptr ? ifa.ifa_name : "";
  nic.up = (ifa.ifa_flags & IFF_UP) != 0;
  nic.loopback = (ifa.ifa_flags & IFF_LOOPBACK) != 0;
  const sockaddr* sa = ifa.ifa_addr;
  if (sa == nullptr) {
    nic.family = "none";
    return nic;
  }
  char text[INET6_ADDRSTRLEN] = {};
  switch (sa->sa_family) {
    case AF_INET:
      nic.family = "ipv4";
      inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, text, sizeof(text));
      nic.address = text;
      break;
    case AF_INET6:
      nic.family = "ipv6";
      inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, text, sizeof(text));
      nic.address = text;
      break;
    case AF_PACKET: {
      nic.family = "link";
      const auto* ll = reinterpret_cast<const sockaddr_ll*>(sa);
      for (int i = 0; i < ll->sll_halen; ++i) {
        absl::StrAppend(&nic.address, i == 0 ? "" : ":", absl::Hex(ll->sll_addr[i], absl::kZeroPad2));
      }
      break;
    }
    default:
      nic.family = absl::StrCat("af", sa->sa_family);
  }
  return nic;
}

}  // namespace

std::vector<int> NumaNodesOf(const std::vector<int>& cpus, absl::string_view sysfs_node_dir) {
  std::vector<int> nodes;
  const std::string dir(sysfs_node_dir);
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return nodes;
  while (const dirent* e = readdir(d)) {
    absl::string_view name = e->d_name;
    int node = 0;
    if (!absl::ConsumePrefix(&name, "node") || !absl::SimpleAtoi(name, &node)) continue;
    std::ifstream in(absl::StrCat(dir, "/", e->d_name, "/cpulist"));
    std::stringstream text;
    text << in.rdbuf();
    auto node_cpus = ParseCpuList(text.str());
    if (!node_cpus.ok()) continue;
    for (int c : *node_cpus) {
      if (std::find(cpus.begin(), cpus.end(), c) != cpus.end()) {
        nodes.push_back(node);
        break;
      }
    }
  }
  closedir(d);
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::vector<NetworkInterface> DiscoverNetworkInterfaces() {
  std::vector<NetworkInterface> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (const ifaddrs* ifa = list; ifa != nullptr; ifa = ifa->ifa_next) out.push_back(InterfaceOf(*ifa));
  freeifaddrs(list);
  return out;
}

RankInfo DiscoverLocalRankInfo(absl::string_view sysfs_node_dir) {
  RankInfo info;
  info.host = HostName();
  info.pid = static_cast<int64_t>(getpid());
  info.cpus = AffinityCpus();
  info.numa_nodes = NumaNodesOf(info.cpus, sysfs_node_dir);
  info.interfaces = DiscoverNetworkInterfaces();
  info.nonce = MakeNonce();
  return info;
}

}  // namespace kcoll
