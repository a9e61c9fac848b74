#include "collectives/observability/describe.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/rank_info_json.h"
#include "base/seconds_format.h"

namespace kcoll {
namespace {

std::string Head(const Topology& t) { return absl::StrCat("comm ", FormatCommId(t.comm_id), " "); }

// Ranks as compact ranges: "0-3,6".
std::string Ranges(const std::vector<int>& values) { return FormatCpuList(values); }

std::string NumaText(const RankInfo& info) { return info.numa_nodes.empty() ? "unknown" : Ranges(info.numa_nodes); }

std::string GpuText(const RankInfo& info) {
  if (!info.gpu.has_value()) return "none";
  return absl::StrCat(info.gpu->device, " ", info.gpu->pci_bus_id, " \"", info.gpu->name, "\"");
}

// "1->2 3->0": the links of `ring` between ranks on different nodes.
std::vector<std::pair<int, int>> InterNodeLinks(const Topology& t, const std::vector<int>& ring) {
  std::vector<std::pair<int, int>> links;
  for (size_t i = 0; i < ring.size(); ++i) {
    const int from = ring[i], to = ring[(i + 1) % ring.size()];
    if (!t.SameNode(from, to)) links.emplace_back(from, to);
  }
  return links;
}

std::string TreeText(const Tree& tree) {
  std::string edges;
  // Parents in breadth-first order from the root, so the line reads top-down.
  std::vector<int> level = {tree.root};
  while (!level.empty()) {
    std::vector<int> next;
    for (int r : level) {
      if (tree.children[r].empty()) continue;
      absl::StrAppend(&edges, " ", r, "->", absl::StrJoin(tree.children[r], ","));
      next.insert(next.end(), tree.children[r].begin(), tree.children[r].end());
    }
    level = std::move(next);
  }
  return absl::StrCat("root ", tree.root, " depth ", tree.Depth(), edges.empty() ? "" : ":", edges);
}

// Hosts in order of their lowest rank, with their ranks.
std::vector<std::pair<std::string, std::vector<int>>> Hosts(const Topology& t) {
  std::vector<std::pair<std::string, std::vector<int>>> hosts;
  for (int r = 0; r < static_cast<int>(t.ranks.size()); ++r) {
    auto it = hosts.begin();
    while (it != hosts.end() && it->first != t.ranks[r].host) ++it;
    if (it == hosts.end()) {
      hosts.push_back({t.ranks[r].host, {}});
      it = hosts.end() - 1;
    }
    it->second.push_back(r);
  }
  return hosts;
}

// The interfaces of one host grouped by name, in first-seen order: {name, up, loopback, [family address, ...]}.
struct InterfaceGroup {
  std::string name;
  bool up = false;
  bool loopback = false;
  std::vector<std::string> addresses;
};

std::vector<InterfaceGroup> GroupInterfaces(const std::vector<NetworkInterface>& nics) {
  std::vector<InterfaceGroup> groups;
  for (const NetworkInterface& nic : nics) {
    auto it = groups.begin();
    while (it != groups.end() && it->name != nic.name) ++it;
    if (it == groups.end()) {
      groups.push_back({nic.name});
      it = groups.end() - 1;
    }
    it->up = it->up || nic.up;
    it->loopback = it->loopback || nic.loopback;
    it->addresses.push_back(nic.address.empty() ? nic.family : absl::StrCat(nic.family, " ", nic.address));
  }
  return groups;
}

}  // namespace

std::string DescribeRank(const Topology& t, int rank) {
  std::string line =
      absl::StrCat(Head(t), "rank ", rank, " node ", t.node_of[rank], " local_rank ", t.local_rank_of[rank]);
  if (rank < static_cast<int>(t.ranks.size())) {
    const RankInfo& info = t.ranks[rank];
    absl::StrAppend(&line, " host ", info.host, " pid ", info.pid, " cpus ", Ranges(info.cpus), " numa ",
                    NumaText(info), " gpu ", GpuText(info));
  }
  return line;
}

std::vector<std::string> DescribeTopology(const Topology& t, const CommInfo& info) {
  std::vector<std::string> lines;
  const auto hosts = Hosts(t);
  const int rpn = t.uniform_ranks_per_node();
  std::string layout = absl::StrCat("ranks_per_node ", rpn > 0 ? absl::StrCat(rpn) : "mixed");
  if (t.emulated) absl::StrAppend(&layout, " (emulated on ", hosts.size(), hosts.size() == 1 ? " host)" : " hosts)");
  lines.push_back(absl::StrCat(Head(t), "nranks ", t.nranks, " nnodes ", t.nnodes, " ", layout, " nchannels ",
                               t.nchannels(), " backend ", info.backend, " transport ", info.transport));
  if (!info.execution.empty()) {
    // Which path the links take: "shm+mpi" sends intra-node bytes through shared memory, inter-node ones over MPI.
    const size_t plus = info.transport.find('+');
    const std::string intra = info.transport.substr(0, plus);
    const std::string inter = plus == std::string::npos ? info.transport : info.transport.substr(plus + 1);
    lines.push_back(absl::StrCat(Head(t), "paths intra-node ", intra,
                                 t.nnodes > 1 ? absl::StrCat(" inter-node ", inter) : "", ": ", info.execution));
  }
  for (int r = 0; r < t.nranks; ++r) lines.push_back(DescribeRank(t, r));
  for (const auto& [host, ranks] : hosts) {
    const std::vector<InterfaceGroup> groups = GroupInterfaces(t.ranks[ranks[0]].interfaces);
    if (groups.empty())
      lines.push_back(absl::StrCat(Head(t), "host ", host, " ranks ", Ranges(ranks), " no interfaces"));
    for (const InterfaceGroup& g : groups) {
      lines.push_back(absl::StrCat(Head(t), "host ", host, " ranks ", Ranges(ranks), " interface ", g.name,
                                   g.up ? " up" : " down", g.loopback ? " loopback" : "", ": ",
                                   absl::StrJoin(g.addresses, ", ")));
    }
  }
  for (int c = 0; c < t.nchannels(); ++c) {
    std::string links;
    for (const auto& [from, to] : InterNodeLinks(t, t.channels[c])) absl::StrAppend(&links, " ", from, "->", to);
    lines.push_back(absl::StrFormat("%schannel %02d/%02d ring %s inter-node%s", Head(t), c, t.nchannels(),
                                    absl::StrJoin(t.channels[c], " "), links.empty() ? " none" : links));
  }
  lines.push_back(absl::StrCat(Head(t), "tree binomial ", TreeText(t.binomial_tree)));
  for (int i = 0; i < 2; ++i) {
    lines.push_back(absl::StrCat(Head(t), "tree double_binary/", i, " ", TreeText(t.double_binary_tree[i])));
  }
  return lines;
}

std::string DescribePrimitives(const PrimitiveCounts& p) {
  auto transfer = [](const char* name, const TransferCounts& c) {
    return absl::StrCat(name, " calls ", c.calls, " bytes ", c.bytes, " intra ", c.intra_node_bytes, " inter ",
                        c.inter_node_bytes);
  };
  auto kernel = [](const char* name, const KernelCounts& c) {
    return absl::StrCat(name, " calls ", c.calls, " bytes ", c.bytes);
  };
  return absl::StrCat(transfer("send", p.send), " | ", transfer("recv", p.recv), " | ", kernel("reduce", p.reduce),
                      " | ", kernel("copy", p.copy), " | ", kernel("divide", p.divide));
}

std::vector<std::string> DescribeCounters(const Topology& t, const Counters& counters) {
  std::vector<std::string> lines;
  for (const CollectiveCounts& c : counters.collectives) {
    lines.push_back(absl::StrCat(Head(t), "counters ", CollectiveName(c.collective), "/", AlgorithmName(c.algorithm),
                                 " calls ", c.calls, " bytes ", c.bytes, " time ", FormatSeconds(c.seconds), " | ",
                                 DescribePrimitives(c.primitives)));
  }
  lines.push_back(absl::StrCat(Head(t), "counters total | ", DescribePrimitives(counters.total)));
  return lines;
}

std::string DescribeCall(const Topology& t, const CallRecord& call, const absl::Status& status) {
  return absl::StrCat(Head(t), "call ", CollectiveName(call.collective), " algo ", AlgorithmName(call.algorithm),
                      " count ", call.count, " type ", DataTypeName(call.type), " op ", ReduceOpName(call.op), " root ",
                      call.root, " bytes ", call.bytes, " time ", FormatSeconds(call.seconds), " sent ",
                      call.primitives.send.bytes, " inter ", call.primitives.send.inter_node_bytes, " received ",
                      call.primitives.recv.bytes, " status ", status.ok() ? "OK" : status.ToString());
}

nlohmann::json TreeToJson(const Tree& tree) {
  return {{"root", tree.root}, {"depth", tree.Depth()}, {"parent", tree.parent}, {"children", tree.children}};
}

nlohmann::json TopologyToJson(const Topology& t) {
  nlohmann::json ranks = nlohmann::json::array();
  for (int r = 0; r < t.nranks; ++r) {
    nlohmann::json j = {{"rank", r}, {"node", t.node_of[r]}, {"local_rank", t.local_rank_of[r]}};
    if (r < static_cast<int>(t.ranks.size())) {
      const RankInfo& info = t.ranks[r];
      j["host"] = info.host;
      j["pid"] = info.pid;
      j["cpus"] = FormatCpuList(info.cpus);
      j["numa_nodes"] = info.numa_nodes;
      j["gpu"] = nullptr;
      if (info.gpu.has_value()) {
        j["gpu"] = {{"device", info.gpu->device}, {"pci_bus_id", info.gpu->pci_bus_id}, {"name", info.gpu->name}};
      }
    }
    ranks.push_back(std::move(j));
  }
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& [host, host_ranks] : Hosts(t)) {
    nlohmann::json nics = nlohmann::json::array();
    for (const NetworkInterface& nic : t.ranks[host_ranks[0]].interfaces) nics.push_back(InterfaceToJson(nic));
    hosts.push_back({{"host", host}, {"ranks", host_ranks}, {"interfaces", std::move(nics)}});
  }
  nlohmann::json channels = nlohmann::json::array();
  for (int c = 0; c < t.nchannels(); ++c) {
    nlohmann::json links = nlohmann::json::array();
    for (const auto& [from, to] : InterNodeLinks(t, t.channels[c])) links.push_back({from, to});
    channels.push_back({{"channel", c}, {"ring", t.channels[c]}, {"inter_node_links", std::move(links)}});
  }
  return {{"comm_id", FormatCommId(t.comm_id)},
          {"nranks", t.nranks},
          {"nnodes", t.nnodes},
          {"emulated", t.emulated},
          {"ranks_per_node", t.uniform_ranks_per_node()},
          {"nchannels", t.nchannels()},
          {"ranks", std::move(ranks)},
          {"hosts", std::move(hosts)},
          {"channels", std::move(channels)},
          {"trees",
           {{"binomial", TreeToJson(t.binomial_tree)},
            {"double_binary", {TreeToJson(t.double_binary_tree[0]), TreeToJson(t.double_binary_tree[1])}}}}};
}

nlohmann::json PrimitivesToJson(const PrimitiveCounts& p) {
  auto transfer = [](const TransferCounts& c) -> nlohmann::json {
    return {{"calls", c.calls},
            {"bytes", c.bytes},
            {"intra_node_bytes", c.intra_node_bytes},
            {"inter_node_bytes", c.inter_node_bytes}};
  };
  auto kernel = [](const KernelCounts& c) -> nlohmann::json { return {{"calls", c.calls}, {"bytes", c.bytes}}; };
  return {{"send", transfer(p.send)},
          {"recv", transfer(p.recv)},
          {"reduce", kernel(p.reduce)},
          {"copy", kernel(p.copy)},
          {"divide", kernel(p.divide)}};
}

nlohmann::json CountersToJson(const Counters& counters) {
  nlohmann::json collectives = nlohmann::json::array();
  for (const CollectiveCounts& c : counters.collectives) {
    collectives.push_back({{"collective", std::string(CollectiveName(c.collective))},
                           {"algorithm", std::string(AlgorithmName(c.algorithm))},
                           {"calls", c.calls},
                           {"bytes", c.bytes},
                           {"seconds", c.seconds},
                           {"primitives", PrimitivesToJson(c.primitives)}});
  }
  return {{"total", PrimitivesToJson(counters.total)}, {"collectives", std::move(collectives)}};
}

}  // namespace kcoll
