// Communicator's sub-communicators: Split and Dup, each a communicator created anew over MPI's split or duplicate of
// this one's control communicator.
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "collectives/communicator.h"
#include "collectives/communicator_state.h"

namespace kcoll {

absl::StatusOr<std::unique_ptr<Communicator>> Communicator::Split(int color, int key) {
  KCOLL_RETURN_IF_ERROR(CheckUsable("Split"));
  absl::Status local;
  if (color < 0 && color != MPI_UNDEFINED) {
    local = absl::InvalidArgumentError(absl::StrCat(
        "Split: color ", color, " is negative (a color is >= 0, or MPI_UNDEFINED to join no communicator)"));
  }
  KCOLL_RETURN_IF_ERROR(AgreeOnArguments("Split", "MPI_Comm_split", local));
  MPI_Comm sub = MPI_COMM_NULL;
  if (MPI_Comm_split(state_->control_comm, color, key, &sub) != MPI_SUCCESS) {
    return absl::InternalError(absl::StrCat("Split: MPI_Comm_split failed (color ", color, ", key ", key, ")"));
  }
  if (sub == MPI_COMM_NULL) return std::unique_ptr<Communicator>();
  std::optional<int> node;
  if (state_->topology.emulated) node = state_->topology.node_of[rank()];
  absl::StatusOr<std::unique_ptr<Communicator>> created = CreateOn(sub, state_->options, node);
  MPI_Comm_free(&sub);  // the new communicator made its own duplicates
  return created;
}

absl::StatusOr<std::unique_ptr<Communicator>> Communicator::Dup() {
  KCOLL_RETURN_IF_ERROR(CheckUsable("Dup"));
  std::optional<int> node;
  if (state_->topology.emulated) node = state_->topology.node_of[rank()];
  return CreateOn(state_->control_comm, state_->options, node);
}

}  // namespace kcoll
