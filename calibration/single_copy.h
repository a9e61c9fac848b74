// The shared-memory transport's single-copy threshold, measured. A message of at least the threshold travels as a
// descriptor and the receiver reads it straight from the sender's memory (process_vm_readv): one copy instead of two,
// but a system call and page pinning per message, and the bytes arrive from memory rather than from a slot the
// sender has just written in cache. Which wins depends on the machine's caches and memory (2-3x either way on the
// machines measured), so the calibration times both on the step the ring AllReduce runs on two ranks - receive the
// peer's half reduced into this rank's own as it arrives, then receive the peer's reduced half - with every disjoint
// pair of a node at once (MeasureRingStep, calibrate.h), and keeps the smallest size from which single copy is faster
// at that size and every larger one.
#ifndef KCOLL_CALIBRATION_SINGLE_COPY_H_
#define KCOLL_CALIBRATION_SINGLE_COPY_H_

#include <cstdint>

#include "calibration/calibrate.h"

namespace kcoll {
namespace calibration {

// Single copy must take at most this share of the slots' time to count as faster: a tie keeps the slots, whose
// data stays in cache for the next step of a collective.
inline constexpr double kSingleCopyMargin = 0.95;

// The smallest message size the threshold sweep starts from (below it a system call per message cannot pay).
inline constexpr double kSingleCopyMinBytes = 16 * 1024;

// The smallest size of `slots` from which `single_copy` takes at most kSingleCopyMargin of its time at that size and
// every larger one; 0 when single copy does not win at the largest size. Both series hold the same sizes in
// increasing order.
int64_t ChooseSingleCopyThreshold(const Series& slots, const Series& single_copy);

}  // namespace calibration
}  // namespace kcoll

#endif  // KCOLL_CALIBRATION_SINGLE_COPY_H_
