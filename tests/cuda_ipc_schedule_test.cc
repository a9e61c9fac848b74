// The CUDA IPC transport's stream order (collectives/transport/cuda_ipc/ipc_schedule.h), run without a GPU: every
// rank's planned commands execute as a simulated stream over shared counters and rings in host memory, the ranks
// interleaved at random (seeded), and the test checks that every schedule finishes (no two streams wait for each
// other), that no chunk overwrites a slot before its receiver took the previous one out, and that every receive gets
// its sender's bytes. A naive order (all of a group's sends before its receives) deadlocks in the same simulator,
// so the simulator can see the failure it guards against.
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/transport/cuda_ipc/ipc_schedule.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"

namespace kcoll {
namespace cuda_ipc {
namespace {

// One transfer as a test describes it: the payload of a send is made from (sender, receiver, message index).
struct Transfer {
  bool send;
  int peer;
  size_t bytes;
};
using Group = std::vector<Transfer>;
using Planner = std::function<absl::StatusOr<std::vector<Command>>(
    const std::vector<PostedTransfer>&, const ChannelShape&, std::vector<ChannelPositions>*)>;

unsigned char PayloadByte(int from, int to, int message, size_t i) {
  return static_cast<unsigned char>(from * 37 + to * 11 + message * 5 + i * 3 + 1);
}

// The simulated node: counters and rings of every channel, and each rank's stream.
class Node {
 public:
  Node(int n, ChannelShape shape, uint64_t start)
      : n_(n),
        shape_(shape),
        filled_(n * n, CounterValue(start)),
        consumed_(n * n, CounterValue(start)),
        occupied_(n * n, std::vector<bool>(shape.slots, false)),
        rings_(n * n, std::vector<unsigned char>(shape.slots * shape.slot_bytes, 0)),
        streams_(n),
        next_(n, 0),
        positions_(n, std::vector<ChannelPositions>(n, ChannelPositions{start, start})),
        buffers_(n) {}

  // Plans every rank's groups with `plan`, with buffers holding what each send carries.
  void Post(const std::vector<std::vector<Group>>& groups, const Planner& plan) {
    for (int r = 0; r < n_; ++r) {
      std::vector<int> sent(n_, 0);
      for (const Group& group : groups[r]) {
        std::vector<PostedTransfer> posted;
        for (const Transfer& t : group) {
          buffers_[r].emplace_back(t.bytes, 0);
          std::vector<unsigned char>& b = buffers_[r].back();
          if (t.send) {
            for (size_t i = 0; i < t.bytes; ++i) b[i] = PayloadByte(r, t.peer, sent[t.peer], i);
            ++sent[t.peer];
          }
          posted.push_back(PostedTransfer{t.send, t.peer, t.bytes == 0 ? nullptr : b.data(), t.bytes});
        }
        absl::StatusOr<std::vector<Command>> commands = plan(posted, shape_, &positions_[r]);
        ASSERT_TRUE(commands.ok()) << commands.status();
        streams_[r].insert(streams_[r].end(), commands->begin(), commands->end());
      }
    }
  }

  // Runs the streams, a random rank a random number of commands at a time, until all end or none can move.
  // Returns "" when all ended, else what each blocked stream waits for.
  std::string Run(uint32_t seed) {
    std::mt19937 random(seed);
    while (true) {
      bool all_done = true, moved = false;
      std::vector<int> order(n_);
      for (int r = 0; r < n_; ++r) order[r] = r;
      std::shuffle(order.begin(), order.end(), random);
      for (int r : order) {
        const int budget = 1 + static_cast<int>(random() % 7);
        for (int i = 0; i < budget && next_[r] < streams_[r].size(); ++i) {
          if (!Step(r)) break;
          moved = true;
        }
        if (next_[r] < streams_[r].size()) all_done = false;
      }
      if (!error_.empty()) return error_;
      if (all_done) return "";
      if (!moved) {
        std::string blocked = "deadlock:";
        for (int r = 0; r < n_; ++r) {
          if (next_[r] == streams_[r].size()) continue;
          const Command& c = streams_[r][next_[r]];
          absl::StrAppend(&blocked, " rank ", r, " at ", CommandName(c.kind), " ", c.value, " with rank ", c.peer, ";");
        }
        return blocked;
      }
    }
  }

  // What rank `r`'s `index`-th transfer (in posting order over all its groups) holds.
  const std::vector<unsigned char>& Buffer(int r, int index) const { return buffers_[r][index]; }

 private:
  size_t Channel(int from, int to) const { return static_cast<size_t>(from) * n_ + to; }

  // Runs rank r's next command; false when it is a wait that is not satisfied.
  bool Step(int r) {
    const Command& c = streams_[r][next_[r]];
    const size_t out = Channel(r, c.peer), in = Channel(c.peer, r);
    switch (c.kind) {
      case CommandKind::kWaitConsumed:
        if (!CounterReached(consumed_[out], c.value)) return false;
        break;
      case CommandKind::kCopyToPeer:
        if (occupied_[out][c.slot]) {
          error_ = absl::StrCat("rank ", r, " overwrote slot ", c.slot, " of its channel to rank ", c.peer,
                                " before the receiver took it out");
        }
        std::memcpy(rings_[out].data() + c.slot * shape_.slot_bytes, c.data, c.bytes);
        occupied_[out][c.slot] = true;
        break;
      case CommandKind::kSignalFilled:
        filled_[out] = c.value;
        break;
      case CommandKind::kWaitFilled:
        if (!CounterReached(filled_[in], c.value)) return false;
        break;
      case CommandKind::kCopyFromSlot:
        std::memcpy(c.data, rings_[in].data() + c.slot * shape_.slot_bytes, c.bytes);
        occupied_[in][c.slot] = false;
        break;
      case CommandKind::kSignalConsumed:
        consumed_[in] = c.value;
        break;
    }
    ++next_[r];
    return true;
  }

  int n_;
  ChannelShape shape_;
  std::vector<uint32_t> filled_, consumed_;
  std::vector<std::vector<bool>> occupied_;
  std::vector<std::vector<unsigned char>> rings_;
  std::vector<std::vector<Command>> streams_;
  std::vector<size_t> next_;
  std::vector<std::vector<ChannelPositions>> positions_;
  std::vector<std::vector<std::vector<unsigned char>>> buffers_;
  std::string error_;
};

// Runs `groups` on a simulated node under several interleavings and checks every receive's bytes.
void ExpectDelivered(const std::vector<std::vector<Group>>& groups, ChannelShape shape, uint64_t start = 0) {
  const int n = static_cast<int>(groups.size());
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Node node(n, shape, start);
    node.Post(groups, PlanGroup);
    ASSERT_EQ(node.Run(seed), "") << "seed " << seed;
    for (int r = 0; r < n; ++r) {
      std::vector<int> received(n, 0);
      int index = 0;
      for (const Group& group : groups[r]) {
        for (const Transfer& t : group) {
          const std::vector<unsigned char>& b = node.Buffer(r, index++);
          if (t.send) continue;
          const int message = received[t.peer]++;
          for (size_t i = 0; i < t.bytes; ++i) {
            ASSERT_EQ(b[i], PayloadByte(t.peer, r, message, i)) << "seed " << seed << ": rank " << r << ", message "
                                                                << message << " from rank " << t.peer << ", byte " << i;
          }
        }
      }
    }
  }
}

// A ring step per group, n - 1 steps: receive from the left, send to the right (a ring AllReduce's shape).
std::vector<std::vector<Group>> Ring(int n, size_t bytes) {
  std::vector<std::vector<Group>> groups(n);
  for (int r = 0; r < n; ++r) {
    for (int step = 0; step < n - 1; ++step) {
      groups[r].push_back({{false, (r + n - 1) % n, bytes}, {true, (r + 1) % n, bytes}});
    }
  }
  return groups;
}

TEST(CudaIpcScheduleTest, RingStepsDeliverWhateverTheSlots) {
  for (int n : {2, 3, 4, 5}) {
    for (size_t bytes : {size_t{0}, size_t{1}, size_t{7}, size_t{64}, size_t{1000}}) {
      for (ChannelShape shape : {ChannelShape{1, 8}, ChannelShape{2, 5}, ChannelShape{4, 64}}) {
        SCOPED_TRACE(absl::StrCat(n, " ranks, ", bytes, " B, ", shape.slots, " x ", shape.slot_bytes, " B"));
        ExpectDelivered(Ring(n, bytes), shape);
      }
    }
  }
}

TEST(CudaIpcScheduleTest, AllToAllInOneGroupWithUnevenAndEmptyMessages) {
  for (int n : {2, 3, 6}) {
    std::vector<std::vector<Group>> groups(n, std::vector<Group>(1));
    for (int r = 0; r < n; ++r) {
      for (int p = 0; p < n; ++p) {
        if (p == r) continue;
        groups[r][0].push_back({true, p, static_cast<size_t>((r * 7 + p * 3) % 5) * 9});
        groups[r][0].push_back({false, p, static_cast<size_t>((p * 7 + r * 3) % 5) * 9});
      }
    }
    SCOPED_TRACE(absl::StrCat(n, " ranks"));
    ExpectDelivered(groups, ChannelShape{2, 8});
  }
}

TEST(CudaIpcScheduleTest, MessagesToOnePeerKeepTheirOrderAcrossDifferentGroupings) {
  // Rank 0 sends three messages to rank 1 in one group; rank 1 receives them in three groups (and posts a send back
  // between them): the channel carries them one after the other whatever the grouping.
  std::vector<std::vector<Group>> groups(2);
  groups[0] = {{{true, 1, 23}, {true, 1, 0}, {true, 1, 17}}, {{false, 1, 5}}};
  groups[1] = {{{false, 0, 23}}, {{false, 0, 0}, {true, 0, 5}}, {{false, 0, 17}}};
  ExpectDelivered(groups, ChannelShape{2, 4});
}

TEST(CudaIpcScheduleTest, TreeGatherThenBroadcast) {
  // A binomial tree over 8 ranks: each level one group; children send up, then the root's data comes down.
  const int n = 8;
  std::vector<std::vector<Group>> groups(n);
  for (int mask = 1; mask < n; mask <<= 1) {
    for (int r = 0; r < n; ++r) {
      if (r % (mask * 2) == mask) groups[r].push_back({{true, r - mask, 40}});
      if (r % (mask * 2) == 0 && r + mask < n) groups[r].push_back({{false, r + mask, 40}});
    }
  }
  for (int mask = n / 2; mask >= 1; mask >>= 1) {
    for (int r = 0; r < n; ++r) {
      if (r % (mask * 2) == 0 && r + mask < n) groups[r].push_back({{true, r + mask, 40}});
      if (r % (mask * 2) == mask) groups[r].push_back({{false, r - mask, 40}});
    }
  }
  ExpectDelivered(groups, ChannelShape{1, 16});
}

TEST(CudaIpcScheduleTest, CountersThatWrapAroundStillOrderTheChunks) {
  // Every channel starts a few chunks short of 2^32: the 32-bit counters wrap during the run.
  ExpectDelivered(Ring(3, 100), ChannelShape{2, 8}, (uint64_t{1} << 32) - 5);
}

TEST(CudaIpcScheduleTest, AllSendsBeforeReceivesWouldDeadlock) {
  // The negative control: two ranks exchange messages longer than the ring in one group. Posting every chunk of the
  // sends before any receive fills both rings and both streams wait for room that only their receives would make.
  const Planner naive = [](const std::vector<PostedTransfer>& transfers, const ChannelShape& shape,
                           std::vector<ChannelPositions>* positions) -> absl::StatusOr<std::vector<Command>> {
    std::vector<Command> out;
    for (bool sends : {true, false}) {
      for (const PostedTransfer& t : transfers) {
        if (t.send != sends) continue;
        absl::StatusOr<std::vector<Command>> one = PlanGroup({t}, shape, positions);
        if (!one.ok()) return one.status();
        out.insert(out.end(), one->begin(), one->end());
      }
    }
    return out;
  };
  std::vector<std::vector<Group>> groups(2);
  groups[0] = {{{false, 1, 40}, {true, 1, 40}}};
  groups[1] = {{{false, 0, 40}, {true, 0, 40}}};
  Node node(2, ChannelShape{2, 8}, 0);
  node.Post(groups, naive);
  EXPECT_THAT(node.Run(1), StartsWith("deadlock:"));
  // The planned order runs the same exchange.
  ExpectDelivered(groups, ChannelShape{2, 8});
}

TEST(CudaIpcScheduleTest, ChunksAndCommands) {
  EXPECT_EQ(ChunksOf(0, 8), 1u);
  EXPECT_EQ(ChunksOf(8, 8), 1u);
  EXPECT_EQ(ChunksOf(9, 8), 2u);
  // An empty message still signals (it synchronises its two ranks) and copies nothing.
  std::vector<ChannelPositions> positions(2);
  absl::StatusOr<std::vector<Command>> empty = PlanGroup({{true, 1, nullptr, 0}}, ChannelShape{2, 8}, &positions);
  ASSERT_TRUE(empty.ok()) << empty.status();
  ASSERT_EQ(empty->size(), 1u);
  EXPECT_EQ((*empty)[0].kind, CommandKind::kSignalFilled);
  EXPECT_EQ((*empty)[0].value, 1u);
  EXPECT_EQ(positions[1].sent, 1u);
}

TEST(CudaIpcScheduleTest, BadTransfersAreRefusedByName) {
  std::vector<ChannelPositions> positions(2);
  unsigned char byte = 0;
  EXPECT_THAT(PlanGroup({{true, 2, &byte, 1}}, ChannelShape{2, 8}, &positions),
              IsInvalidArgument("transfer 0 names peer 2, not a rank of this node's 2"));
  EXPECT_THAT(PlanGroup({{true, -1, &byte, 1}}, ChannelShape{2, 8}, &positions), IsInvalidArgument("peer -1"));
  EXPECT_THAT(PlanGroup({{false, 1, nullptr, 4}}, ChannelShape{2, 8}, &positions),
              IsInvalidArgument("transfer 0 (4 B from rank 1) has a null buffer"));
  EXPECT_THAT(PlanGroup({{true, 1, &byte, 1}}, ChannelShape{0, 8}, &positions), IsInvalidArgument("0 slots"));
  EXPECT_THAT(PlanGroup({{true, 1, &byte, 1}}, ChannelShape{2, 0}, &positions), IsInvalidArgument("of 0 B"));
  EXPECT_EQ(positions[1].sent, 0u);  // nothing refused moved a channel
}

}  // namespace
}  // namespace cuda_ipc
}  // namespace kcoll
