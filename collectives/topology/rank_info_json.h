// RankInfo <-> JSON: the gathering format and the "ranks" entries of the communicator's JSON description.
#ifndef KCOLL_COLLECTIVES_TOPOLOGY_RANK_INFO_JSON_H_
#define KCOLL_COLLECTIVES_TOPOLOGY_RANK_INFO_JSON_H_

#include "absl/status/statusor.h"
#include "collectives/topology/rank_info.h"
#include "nlohmann/json.hpp"

namespace kcoll {

// {"host", "pid", "cpus" (FormatCpuList text), "numa_nodes", "interfaces": [{"name", "family", "address", "up",
// "loopback"}], "gpu": null | {"device", "pci_bus_id", "name"}, "nonce"}
nlohmann::json RankInfoToJson(const RankInfo& info);
absl::StatusOr<RankInfo> RankInfoFromJson(const nlohmann::json& j);

nlohmann::json InterfaceToJson(const NetworkInterface& nic);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TOPOLOGY_RANK_INFO_JSON_H_
