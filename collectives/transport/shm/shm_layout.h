// The layout of a node's shared-memory segment: one channel per ordered pair of local ranks.
//
// A channel carries the messages of one sender to one receiver in posting order, as a ring of `slots` slots. Each
// slot has a header cache line (the sequence number that publishes it, what it holds, and up to kInlineBytes of
// payload, so that a small message travels in one cache line) and `slot_bytes` of data. The sender writes the k-th
// chunk into slot k % slots once the receiver has consumed chunk k - slots, then publishes it by storing seq = k + 1
// (release); the receiver waits for that value (acquire), reads the chunk, and stores consumed = k + 1 (release) in
// a cache line of its own. A large message can instead travel as one descriptor (kSingleCopy): the receiver copies
// straight from the sender's buffer (process_vm_readv) and the send completes when the receiver has consumed it.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_SHM_SHM_LAYOUT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_SHM_SHM_LAYOUT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace kcoll {
namespace shm {

constexpr size_t kCacheLine = 64;
constexpr size_t kInlineBytes = 32;

enum SlotFlags : uint8_t {
  kFirstChunk = 1,  // the first chunk of a message: tag, call and message_bytes describe the message
  kSingleCopy = 2,  // the slot holds a descriptor of the sender's buffer instead of data
  kInline = 4,      // the chunk's bytes are in the header line
};

struct alignas(kCacheLine) SlotHeader {
  std::atomic<uint64_t> seq;  // k + 1 once chunk k is in the slot
  uint64_t message_bytes;     // the whole message (first chunk)
  uint32_t chunk_bytes;
  uint32_t signature;  // Transport::CallInfo::signature of the call that sent it
  uint32_t call;       // the sender's call sequence number
  uint16_t tag;
  uint8_t flags;
  uint8_t reserved;
  union {
    unsigned char inline_data[kInlineBytes];
    uint64_t source_address;  // kSingleCopy: where the message is in the sender's address space
  };
};
static_assert(sizeof(SlotHeader) == kCacheLine, "one slot header per cache line");

struct alignas(kCacheLine) Counter {
  std::atomic<uint64_t> value;
};

// Sizes of a segment for `nlocal` ranks; every rank computes the same.
struct Geometry {
  int nlocal = 1;
  int slots = 8;
  size_t slot_bytes = 32 * 1024;

  size_t channels() const { return static_cast<size_t>(nlocal) * nlocal; }  // the diagonal is unused
  size_t headers_offset() const { return kCacheLine * 2 * channels(); }     // after the consumed counters
  size_t data_offset() const { return headers_offset() + kCacheLine * slots * channels(); }
  size_t total_bytes() const { return data_offset() + slot_bytes * slots * channels(); }
  size_t channel(int from, int to) const { return static_cast<size_t>(from) * nlocal + to; }
};

// Views of one channel inside a mapped segment.
struct Channel {
  Counter* consumed;    // written by the receiver
  SlotHeader* headers;  // [slots], written by the sender
  unsigned char* data;  // [slots][slot_bytes]
};

inline Channel ChannelAt(unsigned char* base, const Geometry& g, int from, int to) {
  const size_t c = g.channel(from, to);
  Channel ch;
  // Counters are two cache lines apart so that neighbouring channels' receivers do not share a line.
  ch.consumed = reinterpret_cast<Counter*>(base + kCacheLine * 2 * c);
  ch.headers = reinterpret_cast<SlotHeader*>(base + g.headers_offset() + kCacheLine * g.slots * c);
  ch.data = base + g.data_offset() + g.slot_bytes * g.slots * c;
  return ch;
}

}  // namespace shm
}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_SHM_SHM_LAYOUT_H_
