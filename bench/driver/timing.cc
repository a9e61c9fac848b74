#include "bench/driver/timing.h"

namespace kcoll {
namespace bench {

AgreedIteration AgreeIteration(double my_seconds, bool my_failed, TimeAcrossRanks mode, MPI_Comm comm) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  // Two values reduced with one op: the time, and a failure flag arranged so that the same op detects any failure.
  double v[2] = {my_seconds, my_failed ? 1.0 : 0.0};
  MPI_Op op = MPI_MAX;
  switch (mode) {
    case TimeAcrossRanks::kMax:
      op = MPI_MAX;
      break;
    case TimeAcrossRanks::kAverage:
      op = MPI_SUM;
      break;
    case TimeAcrossRanks::kMin:
      op = MPI_MIN;
      v[1] = -v[1];  // the min of {0, -1} is -1 when any rank failed
      break;
    case TimeAcrossRanks::kRank0:
      op = MPI_SUM;
      if (rank != 0) v[0] = 0;
      break;
  }
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, op, comm);
  AgreedIteration out;
  out.seconds = mode == TimeAcrossRanks::kAverage ? v[0] / nranks : v[0];
  out.any_failed = v[1] != 0;
  return out;
}

}  // namespace bench
}  // namespace kcoll
