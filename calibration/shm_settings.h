// The shared-memory transport's settings that depend on the machine's caches and memory, measured: the size of a
// channel's slots and the single-copy threshold. Both are timed on the step the ring AllReduce runs on two ranks -
// receive the peer's half reduced into this rank's own as it arrives, then receive the peer's reduced half - with
// every disjoint pair of a node at once (MeasureRingStep, calibrate.h), from kShmSweepMinBytes to the sweep's largest
// size.
//
// - Slot size: a message moves through a ring of slots in slot-sized chunks, sender and receiver copying at once.
//   Small slots keep the chunks in the nearer caches but synchronise more often; large ones the other way round. On
//   the AMD EPYC VM 256 KiB slots took 0.75-0.95x the time of 64 KiB ones from 512 KiB to 4 MiB, 16 KiB ones
//   1.2-1.4x (in rings of 8 slots). Each candidate runs with the ring the transport gives its size (RingSlots in
//   shm_transport.h: 2 MiB per pair where the segment has room), so the sizes compare at one ring length. The
//   calibration times each candidate the segment has room for (at ShmOptions::kMinSlots slots) and keeps the one with
//   the lowest time summed over the sizes relative to each size's fastest, unless it beats the transport's default by
//   less than kSlotBytesMargin.
// - Single copy: a message of at least the threshold travels as a descriptor and the receiver reads it straight from
//   the sender's memory (process_vm_readv): one copy instead of two, but a system call and page pinning per message,
//   and the bytes arrive from memory rather than from a slot the sender has just written in cache (2-3x either way on
//   the machines measured). The calibration keeps the smallest size from which single copy is faster, by
//   kSingleCopyMargin, at that size and every larger one, against the slots of the chosen size.
#ifndef KCOLL_CALIBRATION_SHM_SETTINGS_H_
#define KCOLL_CALIBRATION_SHM_SETTINGS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "calibration/calibrate.h"

namespace kcoll {
namespace calibration {

// The smallest message size the sweeps start from (below it one slot holds the message whatever its size, and a
// system call per message cannot pay).
inline constexpr double kShmSweepMinBytes = 16 * 1024;

// Single copy must take at most this share of the slots' time to count as faster: a tie keeps the slots, whose
// data stays in cache for the next step of a collective.
inline constexpr double kSingleCopyMargin = 0.95;

// A slot size other than the default must score at most this share of the default's.
inline constexpr double kSlotBytesMargin = 0.97;

// The slot sizes tried: 16 KiB to 256 KiB, those whose segment (every ordered pair of `node_ranks` ranks, `slots`
// slots each) fits in `max_segment_bytes`, and `default_bytes` (the transport's own choice) in any case.
std::vector<size_t> SlotBytesCandidates(int node_ranks, int slots, size_t max_segment_bytes, size_t default_bytes);

// The candidate whose series (one per candidate, the same sizes) has the lowest sum over the sizes of its time
// relative to the fastest candidate's at that size; `default_bytes` (one of the candidates) unless that one's sum is
// at most kSlotBytesMargin of the default's. Sizes where a candidate has no time count for none.
size_t ChooseSlotBytes(const std::vector<size_t>& candidates, const std::vector<Series>& series, size_t default_bytes);

// The smallest size of `slots` from which `single_copy` takes at most kSingleCopyMargin of its time at that size and
// every larger one; 0 when single copy does not win at the largest size. Both series hold the same sizes in
// increasing order.
int64_t ChooseSingleCopyThreshold(const Series& slots, const Series& single_copy);

}  // namespace calibration
}  // namespace kcoll

#endif  // KCOLL_CALIBRATION_SHM_SETTINGS_H_
