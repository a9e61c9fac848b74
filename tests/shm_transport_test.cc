// The shared-memory transport on its own: every message shape (empty, inline in the header line, chunked through
// the slots, copied straight from the sender's memory), self-sends, receives posted out of order and after the data
// arrived (copied aside), receives reduced as they arrive (RecvReduce, in every shape), single waits, a full ring of
// slots, every slot of a rank's channels mapped when the transport is made, the errors for bad arguments, a stalled
// peer timing out, and a message left unreceived found at Quiesce.
#include "collectives/transport/shm/shm_transport.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/matchers.h"
#include "tests/mpi_test_env.h"
#include "tests/transport_test_util.h"

namespace kcoll {
namespace testing {
namespace {

std::unique_ptr<ShmTransport> MakeTransport(const ShmOptions& options = {}) {
  auto t = ShmTransport::Create(MPI_COMM_WORLD, options);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? std::move(t).value() : nullptr;
}

// Small slots and a low single-copy threshold so that every path runs with small messages.
ShmOptions SmallSlots(bool single_copy) {
  ShmOptions o;
  o.slots = 4;
  o.slot_bytes = 256;
  o.single_copy_bytes = single_copy ? 4096 : 0;
  return o;
}

class ShmRing : public ::testing::TestWithParam<bool> {};

TEST_P(ShmRing, EveryMessageShapeArrivesIntact) {
  auto t = MakeTransport(SmallSlots(GetParam()));
  ASSERT_NE(t, nullptr);
  // Empty, inline (<= 32 B), one slot, several slots, more than the ring holds, and single-copy sizes.
  for (size_t bytes : {size_t{0}, size_t{8}, size_t{32}, size_t{33}, size_t{256}, size_t{1000}, size_t{4095},
                       size_t{4096}, size_t{100000}}) {
    t->BeginCall({"test", "ring", 7});
    ExpectRingExchange(*t, bytes);
  }
}

TEST_P(ShmRing, SendsToItself) {
  auto t = MakeTransport(SmallSlots(GetParam()));
  ASSERT_NE(t, nullptr);
  std::vector<uint8_t> out = Pattern(t->rank(), 5000, 3), in(5000, 0);
  t->BeginCall({"test", "self", 1});
  ASSERT_TRUE(t->Send(t->rank(), out.data(), out.size(), 5).ok());
  ASSERT_TRUE(t->Recv(t->rank(), in.data(), in.size(), 5).ok());
  ASSERT_TRUE(t->WaitAll().ok());
  EXPECT_EQ(in, out);
}

TEST_P(ShmRing, ReceivesPostedInAnotherOrderOrLateStillMatchByTag) {
  auto t = MakeTransport(SmallSlots(GetParam()));
  ASSERT_NE(t, nullptr);
  const int n = t->size(), me = t->rank();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  t->BeginCall({"test", "tags", 2});
  const size_t big = 6000, small = 40;
  std::vector<uint8_t> a = Pattern(me, big, 10), b = Pattern(me, small, 20), c = Pattern(me, big, 30);
  std::vector<uint8_t> in_a(big), in_b(small), in_c(big);
  // The sender sends tags 1, 2, 3; the receiver first waits for tag 2 alone, so the tag-1 message ahead of it must
  // be copied aside; tag 3's receive is posted only after everything arrived.
  ASSERT_TRUE(t->Send(right, a.data(), big, 1).ok());
  ASSERT_TRUE(t->Send(right, b.data(), small, 2).ok());
  ASSERT_TRUE(t->Send(right, c.data(), big, 3).ok());
  auto rb = t->Recv(left, in_b.data(), small, 2);
  ASSERT_TRUE(rb.ok());
  ASSERT_TRUE(t->Wait(*rb).ok());
  EXPECT_EQ(in_b, Pattern(left, small, 20));
  ASSERT_TRUE(t->Recv(left, in_a.data(), big, 1).ok());
  ASSERT_TRUE(t->Recv(left, in_c.data(), big, 3).ok());
  ASSERT_TRUE(AllRanks(t->WaitAll().ok()));
  EXPECT_EQ(in_a, Pattern(left, big, 10));
  EXPECT_EQ(in_c, Pattern(left, big, 30));
}

TEST_P(ShmRing, MessagesCopiedAsideInTurnKeepTheirOwnSizeAndBytes) {
  // The buffers of messages copied aside are kept for later ones: a larger kept buffer must not lend its size or its
  // old bytes to a smaller message, nor a smaller one cut a larger message.
  auto t = MakeTransport(SmallSlots(GetParam()));
  ASSERT_NE(t, nullptr);
  const int n = t->size(), me = t->rank();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  uint32_t call = 20;
  for (size_t bytes : {size_t{6000}, size_t{40}, size_t{3000}, size_t{6000}, size_t{1}, size_t{7001}}) {
    t->BeginCall({"test", "aside_sizes", call++});
    std::vector<uint8_t> a = Pattern(me, bytes, static_cast<int>(bytes % 97)), b = Pattern(me, 8, 5);
    std::vector<uint8_t> in_a(bytes), in_b(8);
    ASSERT_TRUE(t->Send(right, a.data(), bytes, 1).ok());
    ASSERT_TRUE(t->Send(right, b.data(), 8, 2).ok());
    auto rb = t->Recv(left, in_b.data(), 8, 2);  // tag 1's message, ahead of it, is copied aside
    ASSERT_TRUE(rb.ok());
    ASSERT_TRUE(t->Wait(*rb).ok());
    ASSERT_TRUE(t->Recv(left, in_a.data(), bytes, 1).ok());
    ASSERT_TRUE(AllRanks(t->WaitAll().ok()));
    EXPECT_EQ(in_a, Pattern(left, bytes, static_cast<int>(bytes % 97))) << bytes << " B";
    EXPECT_EQ(in_b, Pattern(left, 8, 5)) << "after " << bytes << " B";
  }
}

TEST_P(ShmRing, ManyMessagesInFlightBetweenEveryPair) {
  auto t = MakeTransport(SmallSlots(GetParam()));
  ASSERT_NE(t, nullptr);
  const int n = t->size(), me = t->rank();
  t->BeginCall({"test", "alltoall", 3});
  const size_t bytes = 5000;
  std::vector<std::vector<uint8_t>> out(n), in(n);
  for (int p = 0; p < n; ++p) {
    out[p] = Pattern(me * 100 + p, bytes, 4);
    in[p].assign(bytes, 0);
    ASSERT_TRUE(t->Recv(p, in[p].data(), bytes, 0).ok());
  }
  for (int p = 0; p < n; ++p) ASSERT_TRUE(t->Send(p, out[p].data(), bytes, 0).ok());
  ASSERT_TRUE(AllRanks(t->WaitAll().ok()));
  for (int p = 0; p < n; ++p) EXPECT_EQ(in[p], Pattern(p * 100 + me, bytes, 4)) << "from " << p;
}

// A byte-wise reducer (wrapping add) that also records the chunk sizes the transport handed it.
struct AddBytes {
  std::vector<size_t> chunks;
  Transport::ChunkReducer Reducer() {
    return [this](void* dst, const void* local, const void* incoming, size_t bytes) {
      auto* d = static_cast<uint8_t*>(dst);
      const auto* a = static_cast<const uint8_t*>(local);
      const auto* b = static_cast<const uint8_t*>(incoming);
      for (size_t i = 0; i < bytes; ++i) d[i] = static_cast<uint8_t>(a[i] + b[i]);
      chunks.push_back(bytes);
      return absl::OkStatus();
    };
  }
};

std::vector<uint8_t> Sum(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  std::vector<uint8_t> s(a.size());
  for (size_t i = 0; i < a.size(); ++i) s[i] = static_cast<uint8_t>(a[i] + b[i]);
  return s;
}

TEST_P(ShmRing, ReceiveReduceCombinesEveryShapeAsItArrivesInAndOutOfPlace) {
  auto t = MakeTransport(SmallSlots(GetParam()));
  ASSERT_NE(t, nullptr);
  const int n = t->size(), me = t->rank();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  EXPECT_TRUE(t->FusesReduce(left));
  EXPECT_FALSE(t->FusesReduce(n));
  for (bool in_place : {false, true}) {
    // 600000 B: a single-copy message read and reduced in pieces (three, of up to 256 KiB).
    for (size_t bytes :
         {size_t{0}, size_t{8}, size_t{33}, size_t{256}, size_t{1000}, size_t{4096}, size_t{100000}, size_t{600000}}) {
      t->BeginCall({"test", "recv_reduce", 4});
      AddBytes add;
      const Transport::ChunkReducer reducer = add.Reducer();
      std::vector<uint8_t> out = Pattern(me, bytes, 1), local = Pattern(me, bytes, 9);
      std::vector<uint8_t> result(bytes, 0);
      void* dst = in_place ? local.data() : result.data();
      ASSERT_TRUE(t->RecvReduce(left, dst, local.data(), bytes, 0, reducer).ok());
      ASSERT_TRUE(t->Send(right, out.data(), bytes, 0).ok());
      ASSERT_TRUE(AllRanks(t->WaitAll().ok()));
      const std::vector<uint8_t> expected = Sum(Pattern(me, bytes, 9), Pattern(left, bytes, 1));
      EXPECT_EQ(in_place ? local : result, expected) << bytes << " bytes, in place " << in_place;
      size_t reduced = 0;
      for (size_t c : add.chunks) reduced += c;
      EXPECT_EQ(reduced, bytes);
      // Through the slots the reduction runs chunk by chunk, never on more than a slot holds.
      if (!GetParam() && bytes > 32) EXPECT_EQ(add.chunks.size(), (bytes + 255) / 256) << bytes << " bytes";
      // Read from the sender's memory, it is reduced in pieces of at most 256 KiB, each while it is in cache.
      if (GetParam() && t->single_copy() && bytes >= 4096) {
        EXPECT_EQ(add.chunks.size(), (bytes + 262143) / 262144) << bytes << " bytes";
        for (size_t c : add.chunks) EXPECT_LE(c, size_t{262144});
      }
    }
  }
}

TEST_P(ShmRing, AReceiveReduceOfAMessageCopiedAsideReducesFromThere) {
  auto t = MakeTransport(SmallSlots(GetParam()));
  ASSERT_NE(t, nullptr);
  const int n = t->size(), me = t->rank();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  t->BeginCall({"test", "recv_reduce_aside", 5});
  const size_t big = 6000, small = 40;
  std::vector<uint8_t> a = Pattern(me, big, 10), b = Pattern(me, small, 20);
  std::vector<uint8_t> local = Pattern(me, big, 3), result(big, 0), in_b(small);
  ASSERT_TRUE(t->Send(right, a.data(), big, 1).ok());
  ASSERT_TRUE(t->Send(right, b.data(), small, 2).ok());
  auto rb = t->Recv(left, in_b.data(), small, 2);  // tag 1's message, ahead of it, is copied aside
  ASSERT_TRUE(rb.ok());
  ASSERT_TRUE(t->Wait(*rb).ok());
  AddBytes add;
  const Transport::ChunkReducer reducer = add.Reducer();
  ASSERT_TRUE(t->RecvReduce(left, result.data(), local.data(), big, 1, reducer).ok());
  ASSERT_TRUE(AllRanks(t->WaitAll().ok()));
  EXPECT_EQ(result, Sum(local, Pattern(left, big, 10)));
}

TEST_P(ShmRing, AReducerErrorEndsTheWaitWithIt) {
  auto t = MakeTransport(SmallSlots(GetParam()));
  ASSERT_NE(t, nullptr);
  const int n = t->size(), me = t->rank();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  t->BeginCall({"test", "recv_reduce_error", 6});
  const size_t bytes = 5000;
  std::vector<uint8_t> out = Pattern(me, bytes, 1), local(bytes, 0), result(bytes, 0);
  const Transport::ChunkReducer refuse = [](void*, const void*, const void*, size_t) {
    return absl::InternalError("reducer refused");
  };
  ASSERT_TRUE(t->RecvReduce(left, result.data(), local.data(), bytes, 0, refuse).ok());
  ASSERT_TRUE(t->Send(right, out.data(), bytes, 0).ok());
  const absl::Status failed = t->WaitAll();
  EXPECT_EQ(failed.code(), absl::StatusCode::kInternal) << failed;
  EXPECT_THAT(failed.message(), HasSubstr("reducer refused"));
  t->Abandon();
  EXPECT_THAT(t->RecvReduce(left, result.data(), nullptr, bytes, 0, refuse).status(),
              IsInvalidArgument(absl::StrCat("RecvReduce: local is null for 5000 B from rank ", left)));
}

INSTANTIATE_TEST_SUITE_P(SingleCopy, ShmRing, ::testing::Bool(), [](const ::testing::TestParamInfo<bool>& info) {
  return info.param ? "single_copy" : "slots_only";
});

TEST(ShmTransport, DescribesItself) {
  auto t = MakeTransport(SmallSlots(true));
  ASSERT_NE(t, nullptr);
  EXPECT_THAT(t->Describe(), HasSubstr(absl::StrCat("shm: ", WorldSize(), " ranks, 4 slots x 256 per pair")));
  EXPECT_EQ(t->name(), "shm");
  EXPECT_TRUE(t->CanReach(MemoryKind::kHost));
  EXPECT_FALSE(t->CanReach(MemoryKind::kDevice));
}

// The rule alone: a ring of ShmOptions::kRingBytes per pair where the segment has room, never under kMinSlots.
TEST(RingSlots, HoldTheRingBytesWithinTheSegmentBudget) {
  constexpr size_t kBudget = size_t{32} << 20;
  EXPECT_EQ(RingSlots(2, 64 << 10, kBudget), 32);
  EXPECT_EQ(RingSlots(4, 64 << 10, kBudget), 32);   // 16 channels x 2 MiB: the budget exactly
  EXPECT_EQ(RingSlots(5, 64 << 10, kBudget), 20);   // 25 channels: 1.25 MiB each
  EXPECT_EQ(RingSlots(8, 64 << 10, kBudget), 8);    // 64 channels: 512 KiB each
  EXPECT_EQ(RingSlots(16, 16 << 10, kBudget), 8);   // no room for more than the fewest
  EXPECT_EQ(RingSlots(2, 256 << 10, kBudget), 8);   // large slots: kMinSlots already holds the ring
  EXPECT_EQ(RingSlots(2, 16 << 10, kBudget), 128);  // small ones: more of them
  EXPECT_EQ(RingSlots(2, 4 << 20, kBudget), 8);     // slots larger than the ring: still kMinSlots
}

// Unasked, the slots are chosen: the ring the rule gives for this many ranks and the chosen slot size.
TEST(ShmTransport, ChoosesItsRingWhenNoSlotsAreAsked) {
  const ShmOptions defaults;
  EXPECT_EQ(defaults.slots, 0);
  auto t = MakeTransport(defaults);
  ASSERT_NE(t, nullptr);
  const shm::Geometry& g = t->geometry();
  EXPECT_EQ(g.slots, RingSlots(WorldSize(), g.slot_bytes, defaults.max_segment_bytes));
  if (WorldSize() <= 4) {
    EXPECT_EQ(static_cast<size_t>(g.slots) * g.slot_bytes, ShmOptions::kRingBytes);
  }
  EXPECT_LE(g.total_bytes(), defaults.max_segment_bytes + g.data_offset());
  EXPECT_THAT(t->Describe(), HasSubstr(absl::StrCat(g.slots, " slots x ")));
}

// Kilobytes of this process's page tables (smaps' Rss) in the mappings of kcoll's shared-memory segments.
size_t SegmentRssBytes() {
  std::FILE* f = std::fopen("/proc/self/smaps", "r");
  if (f == nullptr) return 0;
  size_t kib = 0;
  bool in_segment = false;
  char line[512];
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    const std::string text(line);
    // A mapping's first line: "start-end perms offset dev inode path"; its fields follow, one "Name: value" each.
    if (text.find('-') < text.find(' ') && text.find(':') > text.find(' ')) {
      in_segment = text.find("/dev/shm/kcoll.") != std::string::npos;
    } else if (in_segment && text.rfind("Rss:", 0) == 0) {
      kib += std::strtoull(text.c_str() + 4, nullptr, 10);
    }
  }
  std::fclose(f);
  return kib * 1024;
}

// Every slot a rank sends or receives through is touched when the transport is made, not in the first calls of
// each message size (a first touch can cost tens of microseconds on a virtual machine).
TEST(ShmTransport, EverySlotOfThisRanksChannelsIsMappedAtCreation) {
  if (WorldSize() < 2) GTEST_SKIP() << "one rank has no channel to another";
  ShmOptions options;
  options.slots = 4;
  options.slot_bytes = 64 << 10;
  const size_t before = SegmentRssBytes();
  auto t = MakeTransport(options);
  ASSERT_NE(t, nullptr);
  const size_t channels = 2 * static_cast<size_t>(WorldSize() - 1);  // to each peer and from each peer
  EXPECT_GE(SegmentRssBytes() - before, channels * options.slots * options.slot_bytes);
}

TEST(ShmTransport, BadArgumentsAreErrorsNotCrashes) {
  auto t = MakeTransport();
  ASSERT_NE(t, nullptr);
  uint8_t byte = 0;
  auto s = t->Send(t->size(), &byte, 1, 0);
  EXPECT_THAT(s, IsInvalidArgument(absl::StrCat("Send: peer ", t->size(), " is not a rank")));
  EXPECT_THAT(t->Recv(-1, &byte, 1, 0).status().message(), HasSubstr("Recv: peer -1"));
  EXPECT_THAT(t->Send(0, nullptr, 8, 0).status().message(), HasSubstr("Send: null buffer for 8 bytes"));
  EXPECT_THAT(t->Recv(0, &byte, 1, 1 << 16).status().message(), HasSubstr("Recv: tag 65536 is not in [0, 65536)"));
  EXPECT_THAT(t->Wait(Transport::Request{42}).message(), HasSubstr("request 42 is not pending"));
  EXPECT_TRUE(t->WaitAll().ok());  // nothing was posted by the failed calls

  ShmOptions bad;
  bad.slots = 1;
  EXPECT_THAT(ShmTransport::Create(MPI_COMM_WORLD, bad).status().message(),
              HasSubstr("ShmOptions::slots: 1 is outside [2, 1024]"));
  bad = ShmOptions();
  bad.slot_bytes = 100;
  EXPECT_THAT(ShmTransport::Create(MPI_COMM_WORLD, bad).status().message(),
              HasSubstr("ShmOptions::slot_bytes: 100 is not a positive multiple of 64"));
}

TEST(ShmTransport, ASegmentThatDoesNotFitIsAnErrorOnEveryRank) {
  ShmOptions huge;
  huge.slot_bytes = size_t{1} << 40;  // 8 TiB per channel: more than /dev/shm holds
  auto t = ShmTransport::Create(MPI_COMM_WORLD, huge);
  ASSERT_FALSE(AllRanks(t.ok()));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kFailedPrecondition) << t.status();
  EXPECT_THAT(t.status().message(), HasSubstr("shared memory"));
  EXPECT_THAT(t.status().message(), HasSubstr("KCOLL_TRANSPORT=mpi does without it"));
  if (WorldRank() == 0) std::printf("[ INFO     ] %s\n", t.status().ToString().c_str());
  // A sensible segment still works afterwards: nothing was left behind.
  EXPECT_NE(MakeTransport(SmallSlots(false)), nullptr);
}

TEST(ShmTransport, AStalledPeerTimesOutNamingIt) {
  if (WorldSize() < 2) GTEST_SKIP() << "a stall needs a peer";
  auto t = MakeTransport();
  ASSERT_NE(t, nullptr);
  t->set_timeout(absl::Milliseconds(200), "KCOLL_TIMEOUT");
  const int me = WorldRank();
  uint8_t in[8] = {};
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 1) {
    MPI_Barrier(MPI_COMM_WORLD);  // sends nothing until rank 0 has given up
  } else if (me == 0) {
    t->BeginCall({"all_reduce", "ring", 9});
    ASSERT_TRUE(t->Recv(1, in, sizeof(in), 0).ok());
    const auto start = std::chrono::steady_clock::now();
    absl::Status s = t->WaitAll();
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
    EXPECT_GE(waited, 0.2);
    EXPECT_THAT(s.message(), HasSubstr("all_reduce (ring) on rank 0: no transfer completed for 200ms (KCOLL_TIMEOUT)"));
    EXPECT_THAT(s.message(), HasSubstr("ranks whose transfers did not complete: 1 (receive of 8 B from rank 1)"));
    t->Abandon();
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST(ShmTransport, AMessageOfACallWithOtherArgumentsIsNamedAndLeftAtQuiesce) {
  if (WorldSize() < 2) GTEST_SKIP() << "a mismatch needs a peer";
  auto t = MakeTransport();
  ASSERT_NE(t, nullptr);
  t->set_timeout(absl::Milliseconds(200), "KCOLL_TIMEOUT");
  const int me = WorldRank();
  uint8_t out[8] = {1, 2, 3, 4, 5, 6, 7, 8}, in[8] = {};
  if (me == 1) {
    t->BeginCall({"all_reduce", "ring", /*signature=*/0x1111});
    ASSERT_TRUE(t->Send(0, out, sizeof(out), 0).ok());
    ASSERT_TRUE(t->WaitAll().ok());  // an 8 B message is in the ring as soon as it is sent
  } else if (me == 0) {
    t->BeginCall({"all_reduce", "ring", /*signature=*/0x2222});
    ASSERT_TRUE(t->Recv(1, in, sizeof(in), 0).ok());
    absl::Status s = t->WaitAll();
    EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
    EXPECT_THAT(s.message(), HasSubstr("rank 1 sent a message of this call with different arguments"));
    t->Abandon();
  }
  absl::Status quiet = t->Quiesce(absl::Seconds(30));
  if (me == 0) {
    EXPECT_EQ(quiet.code(), absl::StatusCode::kFailedPrecondition) << quiet;
    EXPECT_THAT(quiet.message(), HasSubstr("a message from rank 1 was left unreceived"));
  } else {
    EXPECT_TRUE(quiet.ok()) << quiet;
  }
}

}  // namespace
}  // namespace testing
}  // namespace kcoll
