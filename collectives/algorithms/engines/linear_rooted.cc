#include "collectives/algorithms/engines/linear_rooted.h"

#include "base/status_macros.h"

namespace kcoll {

absl::Status LinearRooted(const CollectiveArgs& args, Resources& res, LeafBlock direction,
                          absl::FunctionRef<absl::Status(size_t block_bytes)> root_part) {
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes == 0) return absl::OkStatus();
  if (res.topology.rank == args.root) {
    KCOLL_RETURN_IF_ERROR(root_part(bytes));
  } else if (direction == LeafBlock::kSentToRoot) {
    KCOLL_RETURN_IF_ERROR(res.transport.Send(args.root, args.send, bytes, /*tag=*/0).status());
  } else {
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(args.root, args.recv, bytes, /*tag=*/0).status());
  }
  return res.transport.WaitAll();
}

}  // namespace kcoll
