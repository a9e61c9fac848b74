// Which profile a communicator's `auto` prices with, the same on every rank. Ranks that priced with different
// profiles would run different algorithms for the same call and wait for each other until the timeout, so:
//
// - A profile named by the application (CommunicatorOptions::profile_path or Communicator::SetProfile's path, else
//   $KCOLL_PROFILE) is read by every rank (every rank is given the same file); if it fails to load on any rank, every
//   rank fails with InvalidArgument.
// - Otherwise rank 0 looks for the profile saved for this machine and the job's shape (choice/machine_profiles.h,
//   written by //bench:calibrate --save) and sends its text to every rank, which all parse the same bytes: ranks on
//   other hosts, with other files or none, price as rank 0 does. A saved file that is not a valid profile is an
//   InvalidArgument on every rank naming the file and the field. With none saved, the shipped profile
//   (choice/auto_choice.h); on real hosts its link between nodes is measured first (link_probe.h).
#ifndef KCOLL_COLLECTIVES_PROFILE_CHOICE_H_
#define KCOLL_COLLECTIVES_PROFILE_CHOICE_H_

#include <mpi.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/topology.h"
#include "base/transport_kind.h"
#include "choice/auto_choice.h"

namespace kcoll {

// The profile for a communicator of `topology` over `transport` on `comm` (collective over `comm`). `profile_path`:
// the application's file, empty for none. Waits for the other ranks at most `timeout` (DeadlineExceeded naming
// `what`, the call, when they do not all take part). `reuse_probe`: a link between hosts this process has measured
// is not measured again (link_probe.h).
absl::StatusOr<ProfileChoice> ChooseCommunicatorProfile(MPI_Comm comm, const std::string& profile_path,
                                                        const Topology& topology, TransportKind transport,
                                                        absl::Duration timeout, const std::string& what,
                                                        bool reuse_probe = true);

// Every rank learns whether `local` failed on any rank: `local` where it failed, else InvalidArgument saying how
// many other ranks failed, else OK. DeadlineExceeded naming `what` when not every rank took part within `timeout`.
absl::Status AgreeOnProfile(MPI_Comm comm, const absl::Status& local, absl::Duration timeout, const std::string& what);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_PROFILE_CHOICE_H_
