#include "collectives/transport_choice.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/env.h"

namespace kcoll {

absl::StatusOr<std::optional<TransportKind>> ChooseTransportKind(std::optional<TransportKind> option) {
  if (option.has_value()) return option;
  const char* env = GetEnv("KCOLL_TRANSPORT");
  if (env == nullptr || absl::AsciiStrToLower(env) == "auto") return std::optional<TransportKind>();
  absl::StatusOr<TransportKind> parsed = ParseTransportKind(env);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("KCOLL_TRANSPORT: ", parsed.status().message(), " or auto"));
  }
  return std::optional<TransportKind>(*parsed);
}

TransportKind AutoTransport(const Topology& topology, ExecBackend backend) {
  (void)topology;  // several nodes: shared memory within each, MPI between them (the shm factory routes)
  return backend != ExecBackend::kCuda ? TransportKind::kShm : TransportKind::kMpi;
}

}  // namespace kcoll
