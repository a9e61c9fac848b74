#include "collectives/transport/mpi/agreement.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kcoll {

absl::Status AgreeAcrossRanks(MPI_Comm comm, const absl::Status& local, absl::string_view what) {
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  int ok = local.ok() ? 1 : 0;
  std::vector<int> oks(nranks);
  MPI_Allgather(&ok, 1, MPI_INT, oks.data(), 1, MPI_INT, comm);
  std::vector<int> failed;
  for (int r = 0; r < nranks; ++r) {
    if (!oks[r]) failed.push_back(r);
  }
  if (failed.empty()) return absl::OkStatus();
  const std::string where = absl::StrCat("failed on rank(s) ", absl::StrJoin(failed, ", "));
  if (!local.ok()) return absl::Status(local.code(), absl::StrCat(local.message(), " [", what, " ", where, "]"));
  return absl::FailedPreconditionError(absl::StrCat(what, " ", where, " (see their errors)"));
}

}  // namespace kcoll
