#include "collectives/profile_choice.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/env.h"
#include "base/status_macros.h"
#include "choice/machine_profiles.h"
#include "collectives/link_probe.h"
#include "collectives/transport/mpi/mpi_wait.h"
#include "models/profile_json.h"

namespace kcoll {
namespace {

// Far above any calibration's output (tens of KiB), and within one MPI count.
constexpr size_t kMaxProfileBytes = size_t{16} << 20;

// What rank 0 found for the machine's saved profile.
enum class Found : int64_t { kNone = 0, kText = 1, kError = 2 };

// Rank 0's look-up: the file's text, none (no such file, or the look-up is off), or why an existing file could not be
// read. `path` is set whenever a path was named.
Found LookUpSaved(const Topology& topology, TransportKind transport, std::string* path, std::string* body) {
  absl::StatusOr<std::string> named = MachineProfilePath(topology, transport);
  if (!named.ok()) return Found::kNone;
  *path = *named;
  if (access(path->c_str(), F_OK) != 0) return Found::kNone;
  std::ifstream in(*path, std::ios::binary);
  if (!in) {
    *body = absl::StrCat("saved profile '", *path, "' cannot be read: ", std::strerror(errno));
    return Found::kError;
  }
  std::ostringstream text;
  text << in.rdbuf();
  *body = text.str();
  if (body->size() > kMaxProfileBytes) {
    *body = absl::StrCat("saved profile '", *path, "' has ", body->size(), " bytes, over the ", kMaxProfileBytes,
                         " a profile can have");
    return Found::kError;
  }
  return Found::kText;
}

// Collective: rank 0's `header` (and then its `text`) on every rank, each wait bounded by `timeout`. The buffers are on
// the heap and left to MPI when a wait times out, as a broadcast cannot be cancelled (BroadcastWithin).
absl::Status BroadcastFromRankZero(MPI_Comm comm, int64_t header[3], std::string* text, absl::Duration timeout,
                                   const std::string& what) {
  const auto late = [&] {
    return absl::DeadlineExceededError(absl::StrCat(what, ": not every rank took part in choosing the profile within ",
                                                    absl::FormatDuration(timeout)));
  };
  std::vector<int> scratch;
  auto fixed = std::make_unique<int64_t[]>(3);
  std::copy(header, header + 3, fixed.get());
  KCOLL_ASSIGN_OR_RETURN(bool done, BroadcastWithin(fixed.get(), 3, MPI_INT64_T, 0, comm, timeout, &scratch));
  if (!done) {
    fixed.release();
    return late();
  }
  std::copy(fixed.get(), fixed.get() + 3, header);
  const int64_t length = header[1] + header[2];
  if (length == 0) return absl::OkStatus();
  auto bytes = std::make_unique<char[]>(length);
  std::copy(text->begin(), text->end(), bytes.get());  // rank 0's; the others' text is empty
  KCOLL_ASSIGN_OR_RETURN(done,
                         BroadcastWithin(bytes.get(), static_cast<int>(length), MPI_CHAR, 0, comm, timeout, &scratch));
  if (!done) {
    bytes.release();
    return late();
  }
  text->assign(bytes.get(), length);
  return absl::OkStatus();
}

// The named profile (profile_path, else $KCOLL_PROFILE), read on every rank; nullopt when none is named.
std::optional<absl::StatusOr<ProfileChoice>> NamedProfile(const std::string& profile_path, TransportKind transport) {
  const char* env = GetEnv("KCOLL_PROFILE");
  if (profile_path.empty() && env == nullptr) return std::nullopt;
  return ChooseProfile(profile_path, transport);
}

// The built-in profile, its link between nodes probed when `mode` asks for it (link_probe.h).
absl::StatusOr<ProfileChoice> BuiltInProfileFor(MPI_Comm comm, const Topology& topology, TransportKind transport,
                                                LinkProbeMode mode, absl::Duration timeout, const std::string& what,
                                                bool reuse_probe) {
  ProfileChoice choice = BuiltInProfileChoice(transport);
  if (!ShouldProbeLink(mode, topology)) return choice;
  absl::StatusOr<models::LinkParams> link = ProbeInterNodeLink(comm, topology, timeout, reuse_probe);
  if (!link.ok()) return absl::Status(link.status().code(), absl::StrCat(what, ": ", link.status().message()));
  choice.profile.inter = *link;
  const models::CurvePoint& first = link->curve.points.front();
  const models::CurvePoint& last = link->curve.points.back();
  absl::StrAppend(&choice.source, absl::StrFormat(", its link between nodes probed: %.1f us at %.0f B, "
                                                  "%.3f GB/s at %.0f KiB",
                                                  first.seconds * 1e6, first.bytes, last.bytes / last.seconds / 1e9,
                                                  last.bytes / 1024));
  return choice;
}

}  // namespace

absl::Status AgreeOnProfile(MPI_Comm comm, const absl::Status& local, absl::Duration timeout, const std::string& what) {
  // On the heap: a timed-out reduction cannot be cancelled, and MPI may still write into it later.
  auto failed_on = std::make_unique<int>(local.ok() ? 0 : 1);
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(MPI_IN_PLACE, failed_on.get(), 1, MPI_INT, MPI_SUM, comm, &request);
  std::vector<int> scratch;
  KCOLL_ASSIGN_OR_RETURN(bool done, WaitForRequests(&request, 1, timeout, &scratch));
  if (!done) {
    failed_on.release();  // left to MPI: see above
    return absl::DeadlineExceededError(
        absl::StrCat(what, ": not every rank called it within ", absl::FormatDuration(timeout)));
  }
  const int failed = *failed_on;
  if (!local.ok()) return local;
  if (failed > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the profile failed to load on ", failed, " other rank(s); see their error"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ProfileChoice> ChooseCommunicatorProfile(MPI_Comm comm, const std::string& profile_path,
                                                        const Topology& topology, TransportKind transport,
                                                        absl::Duration timeout, const std::string& what,
                                                        bool reuse_probe) {
  if (std::optional<absl::StatusOr<ProfileChoice>> named = NamedProfile(profile_path, transport)) {
    KCOLL_RETURN_IF_ERROR(AgreeOnProfile(comm, named->status(), timeout, what));
    return *std::move(*named);
  }
  // Read before any message, so that ranks given a bad value all fail here rather than wait for each other.
  KCOLL_ASSIGN_OR_RETURN(LinkProbeMode probe, LinkProbeModeFromEnv());
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // header: what rank 0 found, the length of the path, the length of the body; the text: path then body.
  int64_t header[3] = {static_cast<int64_t>(Found::kNone), 0, 0};
  std::string text;
  if (rank == 0) {
    std::string path, body;
    header[0] = static_cast<int64_t>(LookUpSaved(topology, transport, &path, &body));
    if (header[0] == static_cast<int64_t>(Found::kNone)) path.clear(), body.clear();
    header[1] = static_cast<int64_t>(path.size());
    header[2] = static_cast<int64_t>(body.size());
    text = path + body;
  }
  KCOLL_RETURN_IF_ERROR(BroadcastFromRankZero(comm, header, &text, timeout, what));
  const Found found = static_cast<Found>(header[0]);
  if (found == Found::kNone) return BuiltInProfileFor(comm, topology, transport, probe, timeout, what, reuse_probe);
  const std::string path = text.substr(0, header[1]);
  const std::string body = text.substr(header[1]);
  if (found == Found::kError) return absl::InvalidArgumentError(body);
  absl::StatusOr<models::Profile> profile = models::ProfileFromJson(body);
  if (!profile.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("saved profile '", path,
                                                   "' (rank 0's): ", profile.status().message(),
                                                   "; measure it again with //bench:calibrate --save, or delete it"));
  }
  ProfileChoice choice;
  choice.profile = *std::move(profile);
  choice.source = absl::StrCat("this machine (", path, ")");
  return choice;
}

}  // namespace kcoll
