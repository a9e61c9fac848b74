// RoutedTransport: which part each transfer goes to, and how a stream-ordered part (CUDA IPC within a node, NCCL
// across) makes the whole stream-ordered: the local group launched before the remote part waits, Synchronize waiting
// for both, a mark reached only when both parts' marks are. Two recording fakes stand in for the parts.
#include "collectives/transport/routed_transport.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kcoll {
namespace {

using ::testing::ElementsAre;

// Writes what it is asked into a log shared by both parts; a stream-ordered one hands out marks 1, 2, ... that are
// reached up to `reached_up_to`.
class RecordingTransport final : public Transport {
 public:
  RecordingTransport(std::string name, int rank, int size, bool stream_ordered, std::vector<std::string>* log)
      : name_(std::move(name)), rank_(rank), size_(size), stream_ordered_(stream_ordered), log_(log) {}

  absl::string_view name() const override { return name_; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool CanReach(MemoryKind memory) const override { return memory == MemoryKind::kDevice; }
  absl::StatusOr<Request> Send(int peer, const void*, size_t bytes, int) override {
    log_->push_back(absl::StrCat(name_, " send ", peer, " ", bytes));
    return Request{posted_++};
  }
  absl::StatusOr<Request> Recv(int peer, void*, size_t bytes, int) override {
    log_->push_back(absl::StrCat(name_, " recv ", peer, " ", bytes));
    return Request{posted_++};
  }
  absl::Status Wait(Request request) override {
    log_->push_back(absl::StrCat(name_, " wait ", request.id));
    return absl::OkStatus();
  }
  absl::Status WaitAll() override {
    log_->push_back(absl::StrCat(name_, " waitall"));
    return absl::OkStatus();
  }
  absl::Status Synchronize() override {
    log_->push_back(absl::StrCat(name_, " synchronize"));
    return synchronize_error;
  }
  bool StreamOrdered() const override { return stream_ordered_; }
  absl::StatusOr<uint64_t> MarkPosted() override {
    log_->push_back(absl::StrCat(name_, " mark"));
    return stream_ordered_ ? ++marks_ : 0;
  }
  absl::StatusOr<bool> Reached(uint64_t mark) override { return !stream_ordered_ || mark <= reached_up_to; }

  uint64_t reached_up_to = 0;
  absl::Status synchronize_error;

 private:
  std::string name_;
  int rank_, size_;
  bool stream_ordered_;
  std::vector<std::string>* log_;
  int posted_ = 0;
  uint64_t marks_ = 0;
};

// Rank 1 of 4, nodes {0, 1} and {2, 3}: ranks 0 and 1 are local ranks 0 and 1.
struct Routed {
  Routed(bool local_stream, bool remote_stream) {
    auto local = std::make_unique<RecordingTransport>("ipc", 1, 2, local_stream, &log);
    auto remote = std::make_unique<RecordingTransport>("net", 1, 4, remote_stream, &log);
    local_part = local.get();
    remote_part = remote.get();
    transport = std::make_unique<RoutedTransport>(std::move(local), std::vector<int>{0, 1, -1, -1}, std::move(remote));
  }
  std::vector<std::string> log;
  RecordingTransport* local_part;
  RecordingTransport* remote_part;
  std::unique_ptr<RoutedTransport> transport;
};

TEST(RoutedTransportTest, EachPeerGoesOverItsPart) {
  Routed r(true, false);
  EXPECT_EQ(r.transport->name(), "ipc+net");
  char buffer[8] = {};
  ASSERT_TRUE(r.transport->Send(0, buffer, 8, 0).ok());
  ASSERT_TRUE(r.transport->Recv(3, buffer, 4, 0).ok());
  ASSERT_TRUE(r.transport->WaitAll().ok());
  EXPECT_THAT(r.log, ElementsAre("ipc send 0 8", "net recv 3 4", "ipc waitall", "net waitall"));
  const absl::StatusOr<Transport::Request> bad = r.transport->Send(4, buffer, 8, 0);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(RoutedTransportTest, AStreamOrderedPartMakesTheWholeStreamOrdered) {
  EXPECT_FALSE(Routed(false, false).transport->StreamOrdered());
  EXPECT_TRUE(Routed(true, false).transport->StreamOrdered());
  EXPECT_TRUE(Routed(false, true).transport->StreamOrdered());
}

TEST(RoutedTransportTest, SynchronizeCompletesWhatIsPostedThenWaitsForBothStreams) {
  Routed r(true, false);
  ASSERT_TRUE(r.transport->Synchronize().ok());
  EXPECT_THAT(r.log, ElementsAre("ipc waitall", "net waitall", "ipc synchronize", "net synchronize"));
  r.log.clear();
  r.local_part->synchronize_error = absl::DeadlineExceededError("stalled");
  EXPECT_EQ(r.transport->Synchronize().code(), absl::StatusCode::kDeadlineExceeded);
  r.local_part->synchronize_error = absl::OkStatus();
  r.remote_part->synchronize_error = absl::AbortedError("peer failed");
  EXPECT_EQ(r.transport->Synchronize().code(), absl::StatusCode::kAborted);
}

TEST(RoutedTransportTest, AMarkIsReachedWhenBothPartsReachedTheirs) {
  Routed r(true, true);
  absl::StatusOr<uint64_t> first = r.transport->MarkPosted();
  absl::StatusOr<uint64_t> second = r.transport->MarkPosted();
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_THAT(r.log, ElementsAre("ipc mark", "net mark", "ipc mark", "net mark"));
  EXPECT_GT(*second, *first);
  EXPECT_FALSE(*r.transport->Reached(*first));
  r.local_part->reached_up_to = 2;  // the local stream is done, the remote one is not
  EXPECT_FALSE(*r.transport->Reached(*first));
  EXPECT_FALSE(*r.transport->Reached(*second));
  r.remote_part->reached_up_to = 1;
  EXPECT_TRUE(*r.transport->Reached(*first));
  EXPECT_TRUE(*r.transport->Reached(*first));  // asked again
  EXPECT_FALSE(*r.transport->Reached(*second));
  r.remote_part->reached_up_to = 2;
  EXPECT_TRUE(*r.transport->Reached(*second));
  EXPECT_TRUE(*r.transport->Reached(0));
  const absl::StatusOr<bool> unknown = r.transport->Reached(*second + 5);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unknown.status().message()), ::testing::HasSubstr("was not given by MarkPosted"));
}

TEST(RoutedTransportTest, HostPartsReachEveryMarkAtOnce) {
  Routed r(false, false);
  absl::StatusOr<uint64_t> mark = r.transport->MarkPosted();
  ASSERT_TRUE(mark.ok());
  EXPECT_TRUE(*r.transport->Reached(*mark));
}

}  // namespace
}  // namespace kcoll
