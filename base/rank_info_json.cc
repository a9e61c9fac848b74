#include "base/rank_info_json.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace kcoll {

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

}  // namespace kcoll
