#include "collectives/argument_comparison.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "collectives/call_sizes.h"
#include "collectives/transport/call_tracking.h"
#include "collectives/transport/mpi/agreement.h"
#include "collectives/transport/mpi/mpi_wait.h"

namespace kcoll {
namespace {

constexpr int kFields = 7;
static_assert(sizeof(ArgsRecord) == kFields * sizeof(int64_t), "ArgsRecord is sent as kFields int64 values");

std::string Describe(const char* field, int64_t value) {
  const std::string field_name(field);
  if (value < 0) return absl::StrCat("no ", field_name);
  if (field_name == "collective") return std::string(CollectiveName(static_cast<Collective>(value)));
  if (field_name == "type") return absl::StrCat("type ", DataTypeName(static_cast<DataType>(value)));
  if (field_name == "op") return absl::StrCat("op ", ReduceOpName(static_cast<ReduceOp>(value)));
  if (field_name == "algorithm") return absl::StrCat("algorithm ", AlgorithmName(static_cast<Algorithm>(value)));
  return absl::StrCat(field_name, " ", value);
}

}  // namespace

ArgsRecord MakeArgsRecord(const CollectiveArgs& args, Algorithm algorithm, bool accepted) {
  ArgsRecord r;
  r.accepted = accepted ? 1 : 0;
  r.collective = static_cast<int64_t>(args.collective);
  if (args.collective != Collective::kBarrier) {
    r.count = static_cast<int64_t>(args.count);
    r.type = static_cast<int64_t>(args.type);
  }
  // AllGatherV's and ReduceScatterV's recvcounts must be the same array on every rank: its total is compared (and
  // the array's fingerprint is in the call's signature). AllToAllV's counts are each rank's own (CheckTransposedCounts
  // compares them pairwise).
  if (args.collective == Collective::kAllGatherV || args.collective == Collective::kReduceScatterV) {
    r.count = static_cast<int64_t>(TotalCount(args.recv_counts, args.counts_size));
  }
  if (args.collective == Collective::kAllToAllV || args.collective == Collective::kGatherV ||
      args.collective == Collective::kScatterV) {
    r.count = -1;  // each rank's own (GatherV's and ScatterV's counts are the root's)
  }
  if (Reduces(args.collective)) r.op = static_cast<int64_t>(args.op);
  if (IsRooted(args.collective)) r.root = args.root;
  r.algorithm = static_cast<int64_t>(algorithm);
  return r;
}

absl::Status CompareArgsRecords(const std::vector<ArgsRecord>& records) {
  if (records.empty()) return absl::OkStatus();
  const ArgsRecord& first = records[0];
  // The collective rank 0 called names the error, so that every rank's message is the same.
  const std::string name = first.collective >= 0
                               ? std::string(CollectiveName(static_cast<Collective>(first.collective)))
                               : std::string("collective");
  for (size_t r = 0; r < records.size(); ++r) {
    if (records[r].accepted == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": rank ", r, " rejected its arguments (see its error); no rank ran the call"));
    }
  }
  using Member = int64_t ArgsRecord::*;
  struct Field {
    const char* name;
    Member member;
  };
  constexpr Field kCompared[] = {{"collective", &ArgsRecord::collective},
                                 {"count", &ArgsRecord::count},
                                 {"type", &ArgsRecord::type},
                                 {"op", &ArgsRecord::op},
                                 {"root", &ArgsRecord::root},
                                 {"algorithm", &ArgsRecord::algorithm}};
  for (size_t r = 1; r < records.size(); ++r) {
    for (const Field& f : kCompared) {
      if (records[r].*f.member == first.*f.member) continue;
      return absl::InvalidArgumentError(absl::StrCat(name, ": arguments differ across ranks: rank ", r, " has ",
                                                     Describe(f.name, records[r].*f.member), " but rank 0 has ",
                                                     Describe(f.name, first.*f.member), " (field '", f.name, "')"));
    }
  }
  return absl::OkStatus();
}

absl::Status CompareArgumentsAcrossRanks(MPI_Comm comm, const CollectiveArgs& args, Algorithm algorithm,
                                         const absl::Status& local, absl::Duration timeout) {
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  // On the heap: a timed-out exchange cannot be cancelled, and MPI may still write into it later.
  struct Exchange {
    ArgsRecord mine;
    std::vector<ArgsRecord> all;
  };
  auto exchange = std::make_unique<Exchange>();
  exchange->mine = MakeArgsRecord(args, algorithm, local.ok());
  exchange->all.resize(nranks);
  MPI_Request request = MPI_REQUEST_NULL;
  const int code =
      MPI_Iallgather(&exchange->mine, kFields, MPI_INT64_T, exchange->all.data(), kFields, MPI_INT64_T, comm, &request);
  if (code != MPI_SUCCESS) return absl::InternalError("argument check: MPI_Iallgather failed");
  std::vector<int> scratch;
  absl::StatusOr<bool> done = WaitForRequests(&request, 1, timeout, &scratch);
  if (!done.ok()) return done.status();
  if (!*done) {
    exchange.release();  // left to MPI: see above
    // A collective waits for every other rank.
    int me = 0;
    MPI_Comm_rank(comm, &me);
    std::vector<int> others;
    for (int r = 0; r < nranks; ++r) {
      if (r != me) others.push_back(r);
    }
    return WithWaitedPeers(absl::DeadlineExceededError(absl::StrCat(
                               CollectiveName(args.collective),
                               ": the cross-rank argument check (KCOLL_CHECK_ARGS) did not complete within ",
                               absl::FormatDuration(timeout), ": some rank has not called ",
                               CollectiveName(args.collective), " (it stopped, died, or called another collective)")),
                           0, others);
  }
  // A rank that rejected its own arguments sends its message to the others (only on this error path), so that every
  // rank's error names the argument. The collective rank 0 called names the error on every rank.
  for (int r = 0; r < nranks; ++r) {
    if (exchange->all[r].accepted != 0) continue;
    const ArgsRecord& first = exchange->all[0];
    const absl::string_view name =
        first.collective >= 0 ? CollectiveName(static_cast<Collective>(first.collective)) : "collective";
    return RelayRejection(comm, name, r, local, timeout);
  }
  KCOLL_RETURN_IF_ERROR(CompareArgsRecords(exchange->all));
  if (args.collective == Collective::kAllToAllV) return CheckTransposedCounts(comm, args, timeout);
  return absl::OkStatus();
}

absl::Status CheckTransposedCounts(MPI_Comm comm, const CollectiveArgs& args, absl::Duration timeout) {
  int nranks = 1, rank = 0;
  MPI_Comm_size(comm, &nranks);
  MPI_Comm_rank(comm, &rank);
  // On the heap, as above: a timed-out exchange cannot be cancelled.
  struct Exchange {
    std::vector<uint64_t> sent, told;
    int64_t first_bad = 0, mine = 0;
  };
  auto exchange = std::make_unique<Exchange>();
  exchange->sent.assign(args.send_counts, args.send_counts + nranks);
  exchange->told.resize(nranks);
  std::vector<int> scratch;
  auto wait = [&](MPI_Request* request, const char* what) -> absl::Status {
    absl::StatusOr<bool> done = WaitForRequests(request, 1, timeout, &scratch);
    if (!done.ok()) return done.status();
    if (*done) return absl::OkStatus();
    exchange.release();  // left to MPI
    return absl::DeadlineExceededError(absl::StrCat("alltoallv: the cross-rank check of the counts (", what,
                                                    ") did not complete within ", absl::FormatDuration(timeout)));
  };
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Ialltoall(exchange->sent.data(), 1, MPI_UINT64_T, exchange->told.data(), 1, MPI_UINT64_T, comm, &request) !=
      MPI_SUCCESS) {
    return absl::InternalError("argument check: MPI_Ialltoall failed");
  }
  KCOLL_RETURN_IF_ERROR(wait(&request, "MPI_Ialltoall"));
  // The first mismatch in (receiver, sender) order, the same on every rank: receiver * nranks + sender.
  const int64_t none = int64_t{nranks} * nranks;
  exchange->mine = none;
  for (int j = 0; j < nranks && exchange->mine == none; ++j) {
    if (exchange->told[j] != args.recv_counts[j]) exchange->mine = int64_t{rank} * nranks + j;
  }
  if (MPI_Iallreduce(&exchange->mine, &exchange->first_bad, 1, MPI_INT64_T, MPI_MIN, comm, &request) != MPI_SUCCESS) {
    return absl::InternalError("argument check: MPI_Iallreduce failed");
  }
  KCOLL_RETURN_IF_ERROR(wait(&request, "MPI_Iallreduce"));
  if (exchange->first_bad == none) return absl::OkStatus();
  const int64_t receiver = exchange->first_bad / nranks, sender = exchange->first_bad % nranks;
  // The receiver knows both numbers; the others name the pair.
  if (receiver == rank) {
    return absl::InvalidArgumentError(absl::StrCat("alltoallv: arguments differ across ranks: rank ", sender, " sends ",
                                                   exchange->told[sender], " elements to rank ", rank,
                                                   ", whose recvcounts[", sender, "] = ", args.recv_counts[sender]));
  }
  return absl::InvalidArgumentError(absl::StrCat("alltoallv: arguments differ across ranks: rank ", sender,
                                                 "'s sendcounts[", receiver, "] is not rank ", receiver,
                                                 "'s recvcounts[", sender, "]"));
}

uint32_t CallSignature(const CollectiveArgs& args, Algorithm algorithm) {
  const ArgsRecord r = MakeArgsRecord(args, algorithm, /*accepted=*/true);
  const int64_t fields[] = {r.collective,
                            r.count,
                            r.type,
                            r.op,
                            r.root,
                            r.algorithm,
                            static_cast<int64_t>(args.options.nchannels),
                            static_cast<int64_t>(args.options.chunk_bytes)};
  uint64_t hash = 0x9e3779b97f4a7c15ull;  // each field mixed in with a multiply-xorshift step
  auto mix = [&hash](uint64_t field) {
    hash = (hash ^ field) * 0xff51afd7ed558ccdull;
    hash ^= hash >> 33;
  };
  for (int64_t field : fields) mix(static_cast<uint64_t>(field));
  // AllGatherV: every rank's recvcounts, which must be the same array everywhere.
  if ((args.collective == Collective::kAllGatherV || args.collective == Collective::kReduceScatterV) &&
      args.recv_counts != nullptr) {
    for (int j = 0; j < args.counts_size; ++j) mix(args.recv_counts[j]);
  }
  return static_cast<uint32_t>(hash ^ (hash >> 32));
}

}  // namespace kcoll
