#include "bench/model/cache_line_exchange.h"

#include <utility>

namespace kcoll {
namespace bench {

absl::StatusOr<std::unique_ptr<CacheLineExchange>> CacheLineExchange::Create(MPI_Comm comm) {
  int rank = 0, n = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  absl::StatusOr<std::unique_ptr<shm::Segment>> segment = shm::Segment::Create(comm, sizeof(Line) * 2 * n);
  if (!segment.ok()) return segment.status();
  const bool spin = shm::ChooseSpinPolls(comm, 0) > 1;
  return std::unique_ptr<CacheLineExchange>(new CacheLineExchange(*std::move(segment), rank, n, spin));
}

}  // namespace bench
}  // namespace kcoll
