// Communicator's sub-communicators: Split and Dup, each a communicator created anew over MPI's split or duplicate of
// this one's control communicator.
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "collectives/communicator.h"
#include "collectives/communicator_state.h"

namespace kcoll {
namespace {

// This rank's node for a communicator made from one with `topology`: kept when the nodes were emulated, else found
// again from the machine.
std::optional<int> EmulatedNode(const Topology& topology, int rank) {
  if (!topology.emulated) return std::nullopt;
  return topology.node_of[rank];
}

}  // namespace

absl::StatusOr<std::unique_ptr<Communicator>> Communicator::Split(int color, int key) {
  Settle();
  KCOLL_RETURN_IF_ERROR(CheckUsable("Split"));
  absl::Status local;
  if (color < 0 && color != MPI_UNDEFINED) {
    local = absl::InvalidArgumentError(absl::StrCat(
        "Split: color ", color, " is negative (a color is >= 0, or MPI_UNDEFINED to join no communicator)"));
  }
  KCOLL_RETURN_IF_ERROR(AgreeOnAcceptance("Split", "MPI_Comm_split", local));
  MPI_Comm sub = MPI_COMM_NULL;
  if (MPI_Comm_split(state_->control_comm, color, key, &sub) != MPI_SUCCESS) {
    return absl::InternalError(absl::StrCat("Split: MPI_Comm_split failed (color ", color, ", key ", key, ")"));
  }
  if (sub == MPI_COMM_NULL) return std::unique_ptr<Communicator>();
  absl::StatusOr<std::unique_ptr<Communicator>> created =
      CreateOn(sub, state_->options, EmulatedNode(state_->topology, rank()));
  MPI_Comm_free(&sub);  // the new communicator made its own duplicates
  return created;
}

absl::StatusOr<std::unique_ptr<Communicator>> Communicator::Dup() {
  Settle();
  KCOLL_RETURN_IF_ERROR(CheckUsable("Dup"));
  return CreateOn(state_->control_comm, state_->options, EmulatedNode(state_->topology, rank()));
}

}  // namespace kcoll
