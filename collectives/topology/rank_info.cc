#include "collectives/topology/rank_info.h"

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
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "collectives/topology/rank_info_json.h"

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

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::vector<int> sorted = cpus;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    absl::StrAppend(&out, out.empty() ? "" : ",", sorted[i]);
    if (j > i) absl::StrAppend(&out, "-", sorted[j]);
    i = j + 1;
  }
  return out;
}

absl::StatusOr<std::vector<int>> ParseCpuList(absl::string_view text) {
  std::vector<int> cpus;
  for (absl::string_view item : absl::StrSplit(absl::StripAsciiWhitespace(text), ',', absl::SkipWhitespace())) {
    std::vector<absl::string_view> range = absl::StrSplit(item, absl::MaxSplits('-', 1));
    int lo = 0, hi = 0;
    if (!absl::SimpleAtoi(range[0], &lo) || lo < 0 || !absl::SimpleAtoi(range.size() == 2 ? range[1] : range[0], &hi) ||
        hi < lo) {
      return absl::InvalidArgumentError(absl::StrCat("cpu list '", text, "': '", item, "' is not a cpu or range"));
    }
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

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

nlohmann::json InterfaceToJson(const NetworkInterface& nic) {
  return {
      {"name", nic.name}, {"family", nic.family}, {"address", nic.address}, {"up", nic.up}, {"loopback", nic.loopback}};
}

nlohmann::json RankInfoToJson(const RankInfo& info) {
  nlohmann::json nics = nlohmann::json::array();
  for (const NetworkInterface& nic : info.interfaces) nics.push_back(InterfaceToJson(nic));
  nlohmann::json gpu = nullptr;
  if (info.gpu.has_value()) {
    gpu = {{"device", info.gpu->device}, {"pci_bus_id", info.gpu->pci_bus_id}, {"name", info.gpu->name}};
  }
  return {{"host", info.host},
          {"pid", info.pid},
          {"cpus", FormatCpuList(info.cpus)},
          {"numa_nodes", info.numa_nodes},
          {"interfaces", std::move(nics)},
          {"gpu", std::move(gpu)},
          {"nonce", info.nonce}};
}

absl::StatusOr<RankInfo> RankInfoFromJson(const nlohmann::json& j) {
  RankInfo info;
  try {
    info.host = j.at("host").get<std::string>();
    info.pid = j.at("pid").get<int64_t>();
    auto cpus = ParseCpuList(j.at("cpus").get<std::string>());
    if (!cpus.ok()) return cpus.status();
    info.cpus = *std::move(cpus);
    info.numa_nodes = j.at("numa_nodes").get<std::vector<int>>();
    for (const nlohmann::json& n : j.at("interfaces")) {
      info.interfaces.push_back(NetworkInterface{n.at("name").get<std::string>(), n.at("family").get<std::string>(),
                                                 n.at("address").get<std::string>(), n.at("up").get<bool>(),
                                                 n.at("loopback").get<bool>()});
    }
    const nlohmann::json& gpu = j.at("gpu");
    if (!gpu.is_null()) {
      info.gpu = GpuInfo{gpu.at("device").get<int>(), gpu.at("pci_bus_id").get<std::string>(),
                         gpu.at("name").get<std::string>()};
    }
    info.nonce = j.at("nonce").get<uint64_t>();
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("rank info: ", e.what()));
  }
  return info;
}

std::string SerializeRankInfo(const RankInfo& info) { return RankInfoToJson(info).dump(); }

absl::StatusOr<RankInfo> DeserializeRankInfo(absl::string_view bytes) {
  nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError("rank info: not valid JSON");
  return RankInfoFromJson(j);
}

uint64_t StableHash(absl::string_view bytes) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace kcoll
