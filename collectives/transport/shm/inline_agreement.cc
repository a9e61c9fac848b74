#include "collectives/transport/shm/inline_agreement.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "collectives/transport/call_tracking.h"

namespace kcoll {

absl::Status AgreeOnAcceptanceInline(InlineExchange& exchange, const Transport::CallInfo& call,
                                     const absl::Status& local) {
  exchange.BeginCall(call);
  const uint32_t accepted = local.ok() ? 1 : 0;
  if (absl::Status s = exchange.Exchange(&accepted, sizeof(accepted)); !s.ok()) return s;
  int first = -1;
  for (int r = 0; r < exchange.size() && first < 0; ++r) {
    uint32_t theirs = 0;
    std::memcpy(&theirs, exchange.Payload(r), sizeof(theirs));
    if (theirs == 0) first = r;
  }
  if (first < 0) return absl::OkStatus();
  char message[kRejectionMessageBytes] = {};
  if (exchange.rank() == first) std::string(local.message()).copy(message, kRejectionMessageBytes - 1);
  if (absl::Status s = exchange.Exchange(message, kRejectionMessageBytes); !s.ok()) return s;
  if (!local.ok()) return local;
  const char* theirs = reinterpret_cast<const char*>(exchange.Payload(first));
  return RejectedOnAnotherRank(call.collective, first, std::string(theirs, strnlen(theirs, kRejectionMessageBytes)));
}

}  // namespace kcoll
