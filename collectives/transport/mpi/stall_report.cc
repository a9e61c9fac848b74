#include "collectives/transport/mpi/stall_report.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace kcoll {
namespace {

// A position as it travels: fixed size, the ranks' binaries being the same program.
constexpr int kListed = 32;  // ranks listed per list; more are left out (the report then sees fewer edges)
struct Wire {
  uint64_t call;
  int64_t began_at_ns;
  int64_t timed_out_at_ns;
  int32_t step;
  int32_t nwait;
  int32_t nheard;
  char collective[28];
  int32_t waiting[kListed];
  int32_t heard[kListed];
};

Wire Encode(const RankPosition& p) {
  Wire w;
  std::memset(&w, 0, sizeof(w));
  w.call = p.call;
  w.began_at_ns = static_cast<int64_t>(p.began_at * 1e9);
  w.timed_out_at_ns = static_cast<int64_t>(p.timed_out_at * 1e9);
  w.step = p.step;
  w.nwait = static_cast<int32_t>(std::min<size_t>(p.waiting_on.size(), kListed));
  w.nheard = static_cast<int32_t>(std::min<size_t>(p.heard_from.size(), kListed));
  std::strncpy(w.collective, p.collective.c_str(), sizeof(w.collective) - 1);
  for (int i = 0; i < w.nwait; ++i) w.waiting[i] = p.waiting_on[i];
  for (int i = 0; i < w.nheard; ++i) w.heard[i] = p.heard_from[i];
  return w;
}

RankPosition Decode(int rank, const Wire& w) {
  RankPosition p;
  p.rank = rank;
  p.call = w.call;
  p.began_at = static_cast<double>(w.began_at_ns) * 1e-9;
  p.timed_out_at = static_cast<double>(w.timed_out_at_ns) * 1e-9;
  p.step = w.step;
  p.collective = std::string(w.collective, strnlen(w.collective, sizeof(w.collective)));
  for (int i = 0; i < std::clamp(w.nwait, 0, kListed); ++i) p.waiting_on.push_back(w.waiting[i]);
  for (int i = 0; i < std::clamp(w.nheard, 0, kListed); ++i) p.heard_from.push_back(w.heard[i]);
  return p;
}

// The ranks reachable from `mine` through "waits for", each with the rank it was reached from (-1 for mine's own
// peers), in the order reached. A rank is followed further when it answered and is in the same call, or in an earlier
// call that it gave up on while this rank got through: whom it waited for there is what held both up.
std::vector<std::pair<int, int>> Reach(const RankPosition& mine, const std::map<int, RankPosition>& answers) {
  std::vector<std::pair<int, int>> reached;
  std::set<int> seen{mine.rank};
  std::deque<std::pair<int, int>> frontier;
  for (int q : mine.waiting_on) frontier.emplace_back(q, -1);
  while (!frontier.empty()) {
    const auto [q, from] = frontier.front();
    frontier.pop_front();
    if (!seen.insert(q).second) continue;
    reached.emplace_back(q, from);
    auto it = answers.find(q);
    if (it == answers.end() || it->second.call > mine.call) continue;
    for (int next : it->second.waiting_on) frontier.emplace_back(next, q);
  }
  return reached;
}

// The rank that `rank` was reached from in `reached`: -1 for this rank's own peers and for ranks not reached.
int WaitedForBy(int rank, const std::vector<std::pair<int, int>>& reached) {
  auto it = std::find_if(reached.begin(), reached.end(), [rank](const auto& r) { return r.first == rank; });
  return it == reached.end() ? -1 : it->second;
}

// "rank 1 (host n1)".
std::string RankOn(int rank, const std::function<std::string(int)>& host_of) {
  const std::string host = host_of ? host_of(rank) : "";
  return host.empty() ? absl::StrCat("rank ", rank) : absl::StrCat("rank ", rank, " (host ", host, ")");
}

// "this rank waits for rank 0, which waits for rank 1" ("which gave up on call 4 waiting for rank 1" where rank 0
// answered from an earlier call).
std::string Chain(int rank, const std::vector<std::pair<int, int>>& reached, const RankPosition& mine,
                  const std::map<int, RankPosition>& answers) {
  std::vector<int> path{rank};
  for (int at = WaitedForBy(rank, reached); at >= 0; at = WaitedForBy(at, reached)) path.push_back(at);
  if (path.size() < 2) return "";
  std::reverse(path.begin(), path.end());
  std::string chain = absl::StrCat("this rank waits for rank ", path[0]);
  for (size_t i = 1; i < path.size(); ++i) {
    auto it = answers.find(path[i - 1]);
    if (it != answers.end() && it->second.call < mine.call) {
      absl::StrAppend(&chain, ", which gave up on call ", it->second.call, " waiting for rank ", path[i]);
    } else {
      absl::StrAppend(&chain, ", which waits for rank ", path[i]);
    }
  }
  return chain;
}

// The call in which `rank` was reached: the earlier call of the rank that waited for it there, else this one.
uint64_t CallReachedIn(int rank, const std::vector<std::pair<int, int>>& reached, const RankPosition& mine,
                       const std::map<int, RankPosition>& answers) {
  const int by = WaitedForBy(rank, reached);
  auto from = by < 0 ? answers.end() : answers.find(by);
  return from == answers.end() ? mine.call : from->second.call;
}

}  // namespace

std::map<int, RankPosition> ExchangePositions(MPI_Comm comm, const RankPosition& mine, absl::Duration window) {
  std::map<int, RankPosition> answers{{mine.rank, mine}};
  int size = 1;
  MPI_Comm_size(comm, &size);
  if (size < 2) return answers;
  // On the heap: a send to a rank that cannot be reached, or the receive posted last, may outlive this function.
  auto out = std::make_unique<Wire>(Encode(mine));
  std::vector<MPI_Request> sends;
  for (int r = 0; r < size; ++r) {
    if (r == mine.rank) continue;
    sends.push_back(MPI_REQUEST_NULL);
    MPI_Isend(out.get(), sizeof(Wire), MPI_BYTE, r, kStallReportTag, comm, &sends.back());
  }
  auto in = std::make_unique<Wire>();
  MPI_Request recv = MPI_REQUEST_NULL;
  MPI_Irecv(in.get(), sizeof(Wire), MPI_BYTE, MPI_ANY_SOURCE, kStallReportTag, comm, &recv);
  const auto deadline = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(window);
  while (!ReportComplete(mine, answers) && std::chrono::steady_clock::now() < deadline) {
    int done = 0;
    MPI_Status status;
    if (MPI_Test(&recv, &done, &status) != MPI_SUCCESS) break;
    if (done) {
      answers[status.MPI_SOURCE] = Decode(status.MPI_SOURCE, *in);
      MPI_Irecv(in.get(), sizeof(Wire), MPI_BYTE, MPI_ANY_SOURCE, kStallReportTag, comm, &recv);
      continue;
    }
    int sent = 0;
    MPI_Testall(static_cast<int>(sends.size()), sends.data(), &sent, MPI_STATUSES_IGNORE);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  // The last receive is withdrawn if MPI can; otherwise its buffer stays with MPI.
  MPI_Cancel(&recv);
  int cancelled = 0;
  for (int poll = 0; poll < 100 && !cancelled; ++poll) {
    if (MPI_Test(&recv, &cancelled, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
    if (!cancelled) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  if (!cancelled) in.release();
  int sent = 0;
  MPI_Testall(static_cast<int>(sends.size()), sends.data(), &sent, MPI_STATUSES_IGNORE);
  if (!sent) {
    for (MPI_Request& s : sends) {
      if (s != MPI_REQUEST_NULL) MPI_Request_free(&s);
    }
    out.release();
  }
  return answers;
}

bool ReportComplete(const RankPosition& mine, const std::map<int, RankPosition>& answers) {
  for (const auto& [rank, from] : Reach(mine, answers)) {
    if (answers.count(rank) == 0) return false;
  }
  return true;
}

std::string ExplainStall(const RankPosition& mine, const std::map<int, RankPosition>& answers,
                         const std::function<std::string(int)>& host_of, absl::Duration window) {
  const std::vector<std::pair<int, int>> reached = Reach(mine, answers);
  if (reached.empty()) return "";
  std::vector<int> answered;
  for (const auto& [rank, position] : answers) {
    if (rank != mine.rank) answered.push_back(rank);
  }
  std::vector<std::string> causes;
  std::vector<int> silent;
  std::vector<int> gave_up_before;  // in this call, and timed out before this rank began it
  double gave_up_earliest = mine.began_at;
  for (const auto& [rank, from] : reached) {
    auto it = answers.find(rank);
    std::string what;
    if (it == answers.end()) {
      silent.push_back(rank);
      const uint64_t call = CallReachedIn(rank, reached, mine, answers);
      const std::string which = call == mine.call ? "this call" : absl::StrCat("call ", call);
      bool entered = false;
      for (const auto& [other, position] : answers) {
        entered |= position.call == call &&
                   std::find(position.heard_from.begin(), position.heard_from.end(), rank) != position.heard_from.end();
      }
      what = absl::StrCat(RankOn(rank, host_of),
                          entered ? absl::StrCat(" stopped in ", which, " (a rank received from it in the call)")
                                  : absl::StrCat(" never entered ", which,
                                                 ", as far as the ranks that answered can tell (none received from it "
                                                 "in the call)"),
                          ", and did not answer: it is stopped, killed, busy outside kcoll, or its host unreachable");
    } else if (it->second.call != mine.call) {
      // Every rank that answers has timed out: one in an earlier call gave up on it while this rank got through.
      // Where it waited there for a rank that did not answer, that rank is the cause, and this one only on its way.
      const bool leads_to_silent = std::any_of(reached.begin(), reached.end(), [&](const auto& r) {
        return r.second == rank && answers.count(r.first) == 0;
      });
      if (it->second.call < mine.call && leads_to_silent) continue;
      const std::string where = absl::StrCat("call ", it->second.call, " (", it->second.collective,
                                             it->second.step >= 0 ? absl::StrCat(", step ", it->second.step) : "", ")");
      what = it->second.call < mine.call
                 ? absl::StrCat(RankOn(rank, host_of), " gave up on ", where,
                                ", which this rank got through: this rank, or one it waited for there, was late")
                 : absl::StrCat(RankOn(rank, host_of), " timed out in ", where, ", past this one (", mine.call,
                                "): the ranks called collectives in a different order or number");
    } else {
      if (it->second.timed_out_at > 0 && it->second.timed_out_at < mine.began_at) {
        gave_up_before.push_back(rank);
        gave_up_earliest = std::min(gave_up_earliest, it->second.timed_out_at);
      }
      continue;
    }
    const std::string chain = Chain(rank, reached, mine, answers);
    if (!chain.empty()) absl::StrAppend(&what, " (", chain, ")");
    causes.push_back(std::move(what));
  }
  std::string report = absl::StrCat("; compared with the ranks that answered within ", absl::FormatDuration(window),
                                    " (", answered.empty() ? "none" : absl::StrJoin(answered, ", "), ") at call ",
                                    mine.call, " (", mine.collective, "): ");
  if (causes.empty() && !gave_up_before.empty()) {
    return absl::StrCat(report, "this rank is the cause: it began this call ",
                        absl::StrFormat("%.3f s", mine.began_at - gave_up_earliest), " after rank",
                        gave_up_before.size() > 1 ? "s " : " ", absl::StrJoin(gave_up_before, ", "),
                        " had given up on it (timed out waiting for this rank or for one that waited for it)");
  }
  if (causes.empty()) {
    std::vector<int> ranks;
    for (const auto& [rank, from] : reached) ranks.push_back(rank);
    return absl::StrCat(report, "ranks ", absl::StrJoin(ranks, ", "),
                        " are in this call too and wait for each other: their arguments differ, or a message was lost");
  }
  absl::StrAppend(&report, causes.size() == 1 ? "the cause is " : "the causes are ", absl::StrJoin(causes, "; "));
  // A rank whose own link is down hears from nobody on another host: say so, since the others are not to blame.
  if (host_of && !silent.empty()) {
    const std::string here = host_of(mine.rank);
    bool other_host_silent = false, other_host_answered = false;
    for (int rank : silent) other_host_silent |= host_of(rank) != here;
    for (int rank : answered) other_host_answered |= host_of(rank) != here;
    if (!here.empty() && other_host_silent && !other_host_answered) {
      absl::StrAppend(&report, "; no rank on another host answered: this rank's host ", here,
                      " may itself be cut off from the others");
    }
  }
  return report;
}

}  // namespace kcoll
