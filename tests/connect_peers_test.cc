// ConnectEveryPeer: the one group a lazily connecting transport (NCCL) runs at creation. On a recording transport,
// each rank posts a zero-byte receive and send for every other rank, all before a single wait (one group), and an
// error names the peer; over MPI with NCCL's ordering, it completes on every rank count.
#include "collectives/transport/connect_peers.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "tests/matchers.h"
#include "tests/stream_ordered_mpi.h"

namespace kcoll {
namespace testing {
namespace {

// Records what is posted and when the waits come, as "recv 3 0B", "send 3 0B", "wait", "sync".
class RecordingTransport final : public Transport {
 public:
  RecordingTransport(int rank, int size, int failing_send_peer = -1)
      : rank_(rank), size_(size), failing_send_peer_(failing_send_peer) {}
  absl::string_view name() const override { return "recording"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool CanReach(MemoryKind) const override { return true; }
  absl::StatusOr<Request> Send(int peer, const void*, size_t bytes, int) override {
    if (peer == failing_send_peer_) return absl::UnavailableError("ncclSend failed: unhandled system error");
    log.push_back(absl::StrCat("send ", peer, " ", bytes, "B"));
    return Request{next_++};
  }
  absl::StatusOr<Request> Recv(int peer, void*, size_t bytes, int) override {
    log.push_back(absl::StrCat("recv ", peer, " ", bytes, "B"));
    return Request{next_++};
  }
  absl::Status Wait(Request) override {
    log.push_back("wait");
    return absl::OkStatus();
  }
  absl::Status WaitAll() override {
    log.push_back("wait");
    return absl::OkStatus();
  }
  absl::Status Synchronize() override {
    log.push_back("sync");
    return absl::OkStatus();
  }

  std::vector<std::string> log;

 private:
  int rank_, size_, failing_send_peer_;
  int next_ = 0;
};

TEST(ConnectEveryPeerTest, OneGroupOfZeroByteTransfersWithEveryOtherRank) {
  RecordingTransport t(/*rank=*/2, /*size=*/4);
  ASSERT_TRUE(ConnectEveryPeer(t).ok());
  EXPECT_THAT(t.log, ::testing::ElementsAre("recv 3 0B", "send 3 0B", "recv 0 0B", "send 0 0B", "recv 1 0B",
                                            "send 1 0B", "wait", "sync"));
}

TEST(ConnectEveryPeerTest, EveryPairIsPostedOnBothEnds) {
  for (int n = 1; n <= 9; ++n) {
    std::vector<std::vector<std::string>> logs;
    for (int r = 0; r < n; ++r) {
      RecordingTransport t(r, n);
      ASSERT_TRUE(ConnectEveryPeer(t).ok());
      logs.push_back(t.log);
    }
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        const auto& log = logs[a];
        const bool sends = std::count(log.begin(), log.end(), absl::StrCat("send ", b, " 0B")) == 1;
        const bool recvs = std::count(log.begin(), log.end(), absl::StrCat("recv ", b, " 0B")) == 1;
        EXPECT_EQ(sends, a != b) << "n=" << n << ": rank " << a << " sending to " << b;
        EXPECT_EQ(recvs, a != b) << "n=" << n << ": rank " << a << " receiving from " << b;
      }
      EXPECT_EQ(std::count(logs[a].begin(), logs[a].end(), "wait"), 1) << "n=" << n << " rank " << a;
    }
  }
}

TEST(ConnectEveryPeerTest, AFailedPostNamesThePeer) {
  RecordingTransport t(/*rank=*/0, /*size=*/3, /*failing_send_peer=*/2);
  const absl::Status s = ConnectEveryPeer(t);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(s.message()), HasSubstr("connecting to rank 2: ncclSend failed"));
}

TEST(ConnectEveryPeerTest, CompletesOverStreamOrderedMpi) {
  absl::StatusOr<StreamOrderedRig> rig = MakeStreamOrderedRig();
  ASSERT_TRUE(rig.ok()) << rig.status();
  const absl::Status s = ConnectEveryPeer(*rig->transport);
  EXPECT_TRUE(AllRanks(s.ok())) << s;
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
