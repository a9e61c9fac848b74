// The peer_copy row: each rank reads, from its peers' send buffers, its own block from every peer and every peer's
// own block (the bytes an AllReduce moves between ranks), in and out of place; every call it cannot run is
// Unimplemented, naming why, and leaves the row in step.
#include "bench/implementations/peer_copy_row.h"

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace bench {
namespace {

using ::kcoll::testing::WorldRank;
using ::kcoll::testing::WorldSize;

Call AllReduce(size_t count, const void* send, void* recv) {
  Call c;
  c.collective = Collective::kAllReduce;
  c.type = DataType::kInt32;
  c.op = ReduceOp::kSum;
  c.layout.count = c.layout.send_count = c.layout.recv_count = count;
  c.layout.bytes = count * sizeof(int32_t);
  c.send = send;
  c.recv = recv;
  c.in_place = send == recv;
  return c;
}

// Rank r's element i, different on every rank and index.
int32_t Element(int rank, size_t i) { return static_cast<int32_t>(rank * 1000003 + i); }

TEST(PeerCopyRowTest, ReadsEachRanksBlockFromEveryPeerAndEveryPeersOwnBlock) {
  absl::StatusOr<std::unique_ptr<Implementation>> row = MakePeerCopyRow(MPI_COMM_WORLD);
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_FALSE((*row)->checked());
  const int n = WorldSize(), me = WorldRank();
  // Counts that split evenly and ones whose last block takes the remainder; sizes past one kernel copy's pages.
  for (size_t count : {size_t{1}, size_t{7}, size_t{1000}, size_t{1} << 18}) {
    for (bool in_place : {false, true}) {
      std::vector<int32_t> send(count), recv(count, -1);
      for (size_t i = 0; i < count; ++i) send[i] = Element(me, i);
      const Call call = AllReduce(count, send.data(), in_place ? static_cast<void*>(send.data()) : recv.data());
      ASSERT_TRUE((*row)->Run(call).ok()) << count;
      if (n == 1) continue;  // nothing crosses
      // Element i lies in block min(i / (count / n), n - 1); block b's bytes came from rank b, or for this rank's
      // own block from the last peer read, rank me - 1.
      const size_t block_bytes = count * sizeof(int32_t) / n;
      const auto* got = static_cast<const int32_t*>((*row)->Result(call));
      size_t bad = 0;
      for (size_t i = 0; i < count; ++i) {
        const size_t byte = i * sizeof(int32_t);
        const int block = block_bytes == 0 ? n - 1 : static_cast<int>(std::min<size_t>(byte / block_bytes, n - 1));
        // An element split across two blocks comes from two ranks: only whole ones are compared.
        const size_t end_byte = byte + sizeof(int32_t) - 1;
        const int end_block =
            block_bytes == 0 ? n - 1 : static_cast<int>(std::min<size_t>(end_byte / block_bytes, n - 1));
        if (block != end_block) continue;
        const int from = block == me ? (me + n - 1) % n : block;
        if (got[i] != Element(from, i)) ++bad;
      }
      EXPECT_EQ(bad, 0u) << "count " << count << (in_place ? " in place" : " out of place");
      // The send buffer is left as it was.
      for (size_t i = 0; i < count; ++i) ASSERT_EQ(send[i], Element(me, i)) << i;
    }
  }
}

TEST(PeerCopyRowTest, CallsItCannotRunAreUnimplementedSayingWhy) {
  absl::StatusOr<std::unique_ptr<Implementation>> row = MakePeerCopyRow(MPI_COMM_WORLD);
  ASSERT_TRUE(row.ok()) << row.status();
  std::vector<int32_t> send(64), recv(64);
  Call broadcast = AllReduce(64, send.data(), recv.data());
  broadcast.collective = Collective::kBroadcast;
  const absl::Status s = (*row)->Run(broadcast);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("not broadcast's"));
  // Still in step on every rank (the refusal exchanged nothing).
  EXPECT_TRUE((*row)->Run(AllReduce(64, send.data(), recv.data())).ok());
}

}  // namespace
}  // namespace bench
}  // namespace kcoll
