// Broadcast through the public Communicator, for every registered algorithm, over the matrix of
// collective_test_util.h (every type, every root; in place means send == recv; out of place the non-root ranks pass
// no send buffer at all). The chain runs the small counts in stages of three elements and the large count in stages of
// 64 KiB, so that both take several stages. Each result is compared bit for bit with the root's data and
// with MPI_Bcast.
#include "tests/collective_test_util.h"
#include "tests/mpi_reference.h"

namespace kcoll {
namespace testing {
namespace {

KCOLL_COLLECTIVE_TEST(BroadcastTest, Collective::kBroadcast) {
  const int rank = WorldRank();
  const std::vector<char> data = MakeBuffer(c.type, c.count, [&](size_t i) { return PatternValue(c.type, c.root, i); });
  std::vector<char> recv = SentinelBuffer(c.type, c.count);
  const void* send = nullptr;  // read on the root only
  if (rank == c.root && c.in_place) recv = data;
  if (rank == c.root || c.in_place) send = c.in_place ? recv.data() : data.data();
  CallOptions options = Options();
  // The chain in stages of three elements at the small counts and of 64 KiB at the large one, so both run several.
  if (GetParam() == Algorithm::kChain) {
    options.tuning.chunk_bytes = c.count == kLargeCount ? size_t{64} << 10 : 3 * DataTypeSize(c.type);
  }
  const absl::Status status = comm_->Broadcast(send, recv.data(), c.count, c.type, c.root, options);
  const std::vector<char> mpi = MpiBcast(c.type, data.data(), c.count, c.root, MPI_COMM_WORLD);
  if (!ExpectOk(status, c)) return;
  EXPECT_TRUE(SameElements(c.type, data, recv.data(), c.count)) << c.Name() << ": differs from the root's data";
  EXPECT_TRUE(SameElements(c.type, mpi, recv.data(), c.count)) << c.Name() << ": differs from MPI_Bcast";
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
