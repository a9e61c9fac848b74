// Which way a large message crosses between the ranks of a node, chosen per call from what the calls measured:
// through the slots (pipelined, the data stays in cache) or as a single copy the receiver makes straight from the
// sender's buffer (process_vm_readv). Which one is faster depends on the machine and on its state at the moment: on
// the 2-core VMs measured, an AllGather of 1 MiB through the slots took 0.6x the single copy's time in one memory
// state and 2.5x in another, minutes later, while the single copy's time stayed put
// (docs/measured/shm_copy_choice_2ranks.txt). A threshold fixed at creation is right in one state only.
//
// Calls are grouped by kind (collective, in place or not) and size (powers of two). Each group first runs a few calls
// each way, then takes the way whose recent calls were faster, and every `explore_every`-th call of the group runs
// the other way, so that a change of state is noticed within that many calls. The times are the whole call's, as
// the caller saw them: a rank's choice is its own (the sender decides how each message travels, and the receiver
// takes either), and it changes neither the data nor the order of any reduction, only how the bytes travel.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_SHM_COPY_CHOICE_H_
#define KCOLL_COLLECTIVES_TRANSPORT_SHM_COPY_CHOICE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"

namespace kcoll {

class CopyChoice {
 public:
  // `explore_every`: one call in this many of a group runs the way not preferred (at least 2). `weight`: how much a
  // new call's time counts against the ones before it (an exponential average; in (0, 1]).
  explicit CopyChoice(int explore_every = 32, double weight = 0.3);

  // The group of a call: its kind (any number the caller keeps apart, e.g. the collective and in place) and size.
  static uint64_t Group(int kind, size_t bytes);

  // Whether the next call of `group` sends as a single copy.
  bool SingleCopy(uint64_t group);
  // What that call took, in seconds. A group's first call each way is not counted (it pays for first use).
  void Record(uint64_t group, bool single_copy, double seconds);

  // The way `group` prefers now (false before it has measured both), and its averages (0 before any).
  bool Prefers(uint64_t group) const;
  double AverageSeconds(uint64_t group, bool single_copy) const;
  // "single copy (78.0 us) over the slots (197.0 us) after 40 calls", for logs; "measuring both ways (3 calls)"
  // before it prefers one.
  std::string Describe(uint64_t group) const;

  // Calls each way a group measures before it prefers one.
  static constexpr uint64_t kFirstCallsEachWay = 3;

 private:
  struct Way {
    uint64_t calls = 0;  // recorded, the uncounted first one included
    double average = 0;
  };
  struct Stats {
    Way way[2];  // [0] the slots, [1] single copy
    uint64_t calls = 0;
  };

  const int explore_every_;
  const double weight_;
  absl::flat_hash_map<uint64_t, Stats> groups_;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_SHM_COPY_CHOICE_H_
