// RankInfo <-> JSON: the gathering format and the "ranks" entries of the communicator's JSON description.
#ifndef KCOLL_BASE_RANK_INFO_JSON_H_
#define KCOLL_BASE_RANK_INFO_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/rank_info.h"
#include "nlohmann/json.hpp"

namespace kcoll {

// {"host", "pid", "cpus" (FormatCpuList text), "numa_nodes", "interfaces": [{"name", "family", "address", "up",
// "loopback"}], "gpu": null | {"device", "pci_bus_id", "name"}, "nonce"}
nlohmann::json RankInfoToJson(const RankInfo& info);
absl::StatusOr<RankInfo> RankInfoFromJson(const nlohmann::json& j);

nlohmann::json InterfaceToJson(const NetworkInterface& nic);

// A self-describing byte encoding (JSON text) for gathering RankInfos over MPI, and its inverse.
std::string SerializeRankInfo(const RankInfo& info);
absl::StatusOr<RankInfo> DeserializeRankInfo(absl::string_view bytes);

}  // namespace kcoll

#endif  // KCOLL_BASE_RANK_INFO_JSON_H_
