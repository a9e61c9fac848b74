// The v-collectives on blocks of different sizes. A cell's main calls give every rank an equal block (the layout of
// their non-v forms, bench/data/layout.h); these give rank j count/2, count or no elements as j % 3 is 0, 1 or 2
// (AllToAllV: the pair of ranks i and j exchanges rank (i + j) % n's count), laid out with one element of gap after
// each block that the call must leave untouched. Small-integer data (bench/data/exact_data.h), every element and gap
// checked bit for bit against the result computed here from every rank's inputs, and against the vendor MPI's
// MPI_Allgatherv, MPI_Alltoallv, MPI_Reduce_scatter, MPI_Gatherv or MPI_Scatterv of the same blocks where MPI has the
// reduction; in place where the collective has an in-place form (the result read where that form puts it).
#ifndef KCOLL_TOOLS_VERIFY_UNEVEN_BLOCKS_H_
#define KCOLL_TOOLS_VERIFY_UNEVEN_BLOCKS_H_

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string>

#include "base/names.h"
#include "base/types.h"
#include "collectives/communicator.h"

namespace kcoll {
namespace verify {

struct UnevenCall {
  Collective collective = Collective::kAllGatherV;  // a v-collective
  DataType type = DataType::kInt32;
  std::optional<ReduceOp> op;  // ReduceScatterV only
  size_t count = 0;            // the nominal block: blocks hold count/2, count or 0 elements
  int root = 0;                // GatherV and ScatterV
  bool in_place = false;
  CallOptions options;
};

// Makes the call on `comm` (host buffers) and the vendor's on `mpi` (the same ranks); collective over both. OK with
// an empty string when every element is right; OK with the first wrong element ("index I expected E got G", or the
// vendor's disagreement); the library's error when the call failed.
absl::StatusOr<std::string> CheckUnevenBlocks(Communicator& comm, MPI_Comm mpi, const UnevenCall& call);

}  // namespace verify
}  // namespace kcoll

#endif  // KCOLL_TOOLS_VERIFY_UNEVEN_BLOCKS_H_
