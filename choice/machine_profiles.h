// Profiles measured on this machine and kept where every later communicator finds them, so that `auto`'s crossovers
// are this machine's without anyone passing a file: `//bench:calibrate --save` writes one, and a communicator given no
// profile (no CommunicatorOptions::profile_path, no $KCOLL_PROFILE) prices with the one saved for its shape before it
// falls back to the shipped profile (auto_choice.h).
//
// A profile describes one shape of job: how many ranks share a core (the rates were measured with every rank busy),
// which links are inter-node, and which transport carried the messages. So a saved profile is kept per
//
//   <machine>-<transport>-<nodes>x<ranks per node>[e].json      e.g. amd_epyc_7b13_2cpus-shm-1x2.json
//
// where <machine> is the processor's model name and the online CPU count (a home directory shared by several kinds
// of machine keeps each kind's own), <transport> the one measured (base/transport_kind.h) and `e` marks emulated
// nodes. Only the same shape is used: a 4-rank job on a machine calibrated with 2 ranks keeps the shipped profile.
//
// The directory: $KCOLL_MACHINE_PROFILES when set (`off` turns the lookup off), else
// $XDG_CACHE_HOME/kcoll/profiles, else $HOME/.cache/kcoll/profiles.
#ifndef KCOLL_CHOICE_MACHINE_PROFILES_H_
#define KCOLL_CHOICE_MACHINE_PROFILES_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "base/topology.h"
#include "base/transport_kind.h"

namespace kcoll {

// The directory of saved profiles (see above); nullopt when the lookup is off or no variable names a home.
std::optional<std::string> MachineProfileDirectory();

// This machine's part of the file name: the processor's model name in lower case, runs of other characters as one
// '_', and "_<n>cpus" (online CPUs). "unknown_cpu" when /proc/cpuinfo has no model name.
std::string MachineName();

// The file name for a job of `topology` over `transport` on the machine `machine` (see above).
std::string MachineProfileFileName(const std::string& machine, const Topology& topology, TransportKind transport);

// Where this machine's profile for `topology` and `transport` is saved (or would be): the directory and the file name.
// FailedPrecondition when the lookup is off or no directory can be named (the message says which variable to set).
absl::StatusOr<std::string> MachineProfilePath(const Topology& topology, TransportKind transport);

// Creates `dir` and the directories above it that are missing (mode 0755); InvalidArgument naming the directory and
// the system's reason when one cannot be made.
absl::Status MakeDirectories(const std::string& dir);

}  // namespace kcoll

#endif  // KCOLL_CHOICE_MACHINE_PROFILES_H_
