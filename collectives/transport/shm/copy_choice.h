// Which way a large message crosses between the ranks of a node, chosen per call from what the calls measured:
// through the slots (pipelined, the data stays in cache) or as a single copy the receiver makes straight from the
// sender's buffer (process_vm_readv). Which one is faster depends on the machine and on its state at the moment: on
// the 2-core VMs measured, an AllGather of 1 MiB through the slots took 0.6x the single copy's time in one memory
// state and 2.5x in another, minutes later, while the single copy's time stayed put
// (docs/measured/shm_copy_choice_2ranks.txt). A threshold fixed at creation is right in one state only.
//
// Calls are grouped by kind (the collective) and size (powers of two). Each group first runs a few calls each way (one
// way, then the other), then takes the faster way and keeps it until the other is faster by kSwitchMargin; now and
// then a few calls run the other way (the first `warmup_calls`, which pay for the change, are not counted: the slots
// take a few calls to be as fast again after a run of single copies), so that a change of state is noticed:
// `explore_every` calls after a decision at first, then twice as many each time the other way is still the slower, up
// to `explore_at_most_every`; a change of way starts the spacing over. However far apart that puts them, explorations
// come no more often than spends `explore_budget` of a group's time on them (an exploration costs about warmup_calls +
// 1 calls at the other way's time): a way 3x slower is looked at every 134 calls rather than every 16 to 64, a way 10%
// slower as often as the spacing says. The call after an exploration decides, from each way's least average across
// the ranks (the caller gathers them: LeastAcrossRanks), so that the ranks of a call take and explore the same way.
// A way changes neither the data nor the order of any reduction, only how the bytes travel (the sender decides how
// each message travels; the receiver takes either).
// The communicator keeps a second CopyChoice for how the sender writes the slots, with cached or streaming stores
// (docs/shm.md): there the second way, `single_copy` here, is the streaming stores.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_SHM_COPY_CHOICE_H_
#define KCOLL_COLLECTIVES_TRANSPORT_SHM_COPY_CHOICE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace kcoll {

struct CopyChoiceOptions {
  // The smallest message that may cross as a single copy (the transport's threshold); smaller calls keep the slots
  // and are not grouped.
  size_t from_bytes = 0;
  // The fewest and the most calls between two of a group's explorations by the doubling spacing (at least 2).
  int explore_every = 16;
  int explore_at_most_every = 64;
  // The most of a group's time its explorations may take (in (0, 1]), and the most calls between two of them that
  // this allows.
  double explore_budget = 0.03;
  int explore_cost_at_most_every = 1024;
  // How much a new call's time counts against the ones before it (an exponential average; in (0, 1]).
  double weight = 0.3;
  // Calls a way runs uncounted when a group starts measuring it and at the start of each exploration (at least 1):
  // the calls that pay for the change of way, until the way's memory is warm again.
  int warmup_calls = 1;
};

class CopyChoice {
 public:
  using Options = CopyChoiceOptions;
  explicit CopyChoice(Options options = {});

  size_t from_bytes() const { return from_bytes_; }

  // The group of a call: its kind (any number the caller keeps apart, e.g. the collective and in place) and size.
  static uint64_t Group(int kind, size_t bytes);

  // The next call of `group`: the way it sends, unless `decides`: then the caller first gathers every rank's
  // AverageSeconds of both ways (the smallest across ranks, or this rank's alone) and Decide gives the way. The ranks
  // of a call take the same decisions when they make the same calls and decide on the same numbers, and so explore
  // together: a rank that tried the other way alone would still wait for its peers' transfers the old way, and learn
  // nothing.
  struct Call {
    bool single_copy;
    bool decides;
  };
  Call Next(uint64_t group);
  // At a call that decides: keeps the way taken unless the other is faster by kSwitchMargin (the first decision takes
  // the faster), sets when to explore next, and returns whether this call sends as a single copy.
  bool Decide(uint64_t group, double slots_seconds, double single_seconds);
  // What that call took, in seconds. A group's first call each way is not counted (it pays for first use). After an
  // exploration the next call decides.
  void Record(uint64_t group, bool single_copy, double seconds);

  // What the ranks of a node decide on (Decide's arguments): each way's smallest average across them, from every
  // rank's {slots, single copy} averages. Not the sum: a rank's time includes its wait for the last rank to arrive,
  // and the ways differ in who waits (a Broadcast's root waits for its receiver through the slots, not with single
  // copy); the last rank to arrive times the call itself.
  static std::array<double, 2> LeastAcrossRanks(const std::vector<std::array<double, 2>>& averages);

  // The way `group` prefers now (false before it has measured both), and its averages (0 before any).
  bool Prefers(uint64_t group) const;
  double AverageSeconds(uint64_t group, bool single_copy) const;
  // "single copy (78.0 us) over the slots (197.0 us) after 40 calls", for logs; "measuring both ways (3 calls)"
  // before it prefers one.
  std::string Describe(uint64_t group) const;
  // "single copy (78.0 us) over the slots (197.0 us)": the way taken first, from two ways' times in seconds.
  static std::string DescribeWays(bool single_copy, double slots_seconds, double single_seconds);

  // Calls each way a group measures before it prefers one, besides its uncounted warm-up calls.
  static constexpr uint64_t kFirstCallsEachWay = 3;
  // How much faster the other way's average must be to be taken (a fraction of the way taken's): two ways within
  // the noise of each other do not trade places at every call.
  static constexpr double kSwitchMargin = 0.05;

 private:
  struct Way {
    uint64_t calls = 0;  // recorded, the uncounted first one included
    double average = 0;
  };
  struct Stats {
    Way way[2];  // [0] the slots, [1] single copy
    uint64_t calls = 0;
    uint64_t explore_period = 0;   // calls between explorations now (0: not measured both ways yet)
    uint64_t next_explore = 0;     // the call that explores next
    bool exploring = false;        // the latest call chosen explores
    bool single = false;           // the way taken: single copy (else the slots)
    bool decide_next = false;      // an exploration was recorded: the next call decides
    uint64_t explore_warmups = 0;  // the exploration's uncounted calls done so far
  };
  bool Measured(const Stats& g) const;

  const size_t from_bytes_;
  const uint64_t explore_every_;
  const uint64_t explore_at_most_every_;
  const uint64_t warmup_calls_;
  const double explore_budget_;
  const uint64_t explore_cost_at_most_every_;
  const double weight_;
  absl::flat_hash_map<uint64_t, Stats> groups_;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_SHM_COPY_CHOICE_H_
