#include "collectives/topology/discover.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/env.h"
#include "base/rank_info_json.h"
#include "base/status_macros.h"
#include "collectives/topology/local_machine.h"

namespace kcoll {
namespace {

absl::Status MpiCheck(int code, const char* what) {
  if (code == MPI_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, " failed (MPI error ", code, ")"));
}

// Node labels from MPI: ranks that can share memory get the lowest rank among them as their label.
absl::StatusOr<std::vector<int>> NodeLabelsFromMpi(MPI_Comm comm, int rank, int nranks) {
  MPI_Comm node_comm = MPI_COMM_NULL;
  KCOLL_RETURN_IF_ERROR(MpiCheck(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm),
                                 "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)"));
  int label = rank;
  const absl::Status min =
      MpiCheck(MPI_Allreduce(MPI_IN_PLACE, &label, 1, MPI_INT, MPI_MIN, node_comm), "MPI_Allreduce");
  MPI_Comm_free(&node_comm);
  KCOLL_RETURN_IF_ERROR(min);
  std::vector<int> labels(nranks);
  KCOLL_RETURN_IF_ERROR(MpiCheck(MPI_Allgather(&label, 1, MPI_INT, labels.data(), 1, MPI_INT, comm), "MPI_Allgather"));
  return labels;
}

// Every rank's RankInfo, gathered to every rank as serialized records of any length.
absl::StatusOr<std::vector<RankInfo>> GatherRankInfo(MPI_Comm comm, int nranks, const RankInfo& mine) {
  const std::string bytes = SerializeRankInfo(mine);
  int length = static_cast<int>(bytes.size());
  std::vector<int> lengths(nranks), offsets(nranks);
  KCOLL_RETURN_IF_ERROR(
      MpiCheck(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm), "MPI_Allgather(lengths)"));
  int total = 0;
  for (int r = 0; r < nranks; ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(total, '\0');
  KCOLL_RETURN_IF_ERROR(
      MpiCheck(MPI_Allgatherv(bytes.data(), length, MPI_CHAR, &all[0], lengths.data(), offsets.data(), MPI_CHAR, comm),
               "MPI_Allgatherv(rank info)"));
  std::vector<RankInfo> out;
  out.reserve(nranks);
  for (int r = 0; r < nranks; ++r) {
    absl::StatusOr<RankInfo> info = DeserializeRankInfo(absl::string_view(all).substr(offsets[r], lengths[r]));
    if (!info.ok()) return absl::InternalError(absl::StrCat("rank ", r, ": ", info.status().message()));
    out.push_back(*std::move(info));
  }
  return out;
}

}  // namespace

absl::StatusOr<int> ChooseRanksPerNode(int requested, int nranks) {
  int rpn = requested;
  std::string source = "ranks_per_node";
  if (rpn == 0) {
    if (const char* env = GetEnv("KCOLL_RANKS_PER_NODE")) {
      source = "KCOLL_RANKS_PER_NODE";
      if (!absl::SimpleAtoi(env, &rpn)) {
        return absl::InvalidArgumentError(absl::StrCat(source, ": '", env, "' is not an integer"));
      }
      if (rpn == 0) return absl::InvalidArgumentError(absl::StrCat(source, ": 0 ranks per node"));
    }
  }
  if (rpn < 0 || (rpn > 0 && nranks % rpn != 0)) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", rpn, " does not divide the number of ranks ", nranks));
  }
  return rpn;
}

absl::StatusOr<int> ChooseChannelCount(int requested, int default_count) {
  int n = requested;
  std::string source = "nchannels";
  std::string text = absl::StrCat(requested);
  if (n == 0) {
    const char* env = GetEnv("KCOLL_NCHANNELS");
    if (env == nullptr) return default_count;
    source = "KCOLL_NCHANNELS";
    text = env;
    if (!absl::SimpleAtoi(env, &n)) n = -1;
  }
  if (n < 1 || n > Topology::kMaxChannels) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": '", text, "' is not a channel count (an integer from 1 to ", Topology::kMaxChannels, ")"));
  }
  return n;
}

absl::StatusOr<Topology> DiscoverTopology(MPI_Comm comm, const TopologyOptions& options) {
  int rank = 0, nranks = 1;
  KCOLL_RETURN_IF_ERROR(MpiCheck(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank"));
  KCOLL_RETURN_IF_ERROR(MpiCheck(MPI_Comm_size(comm, &nranks), "MPI_Comm_size"));
  int ranks_per_node = 0;
  if (!options.emulated_node.has_value()) {
    KCOLL_ASSIGN_OR_RETURN(ranks_per_node, ChooseRanksPerNode(options.ranks_per_node, nranks));
  }
  KCOLL_ASSIGN_OR_RETURN(const int nchannels, ChooseChannelCount(options.nchannels, options.default_nchannels));

  RankInfo mine = DiscoverLocalRankInfo();
  mine.gpu = options.gpu;
  KCOLL_ASSIGN_OR_RETURN(std::vector<RankInfo> ranks, GatherRankInfo(comm, nranks, mine));

  Topology t;
  if (options.emulated_node.has_value()) {
    std::vector<int> labels(nranks);
    int mine_label = *options.emulated_node;
    KCOLL_RETURN_IF_ERROR(
        MpiCheck(MPI_Allgather(&mine_label, 1, MPI_INT, labels.data(), 1, MPI_INT, comm), "MPI_Allgather"));
    t = MakeTopology(rank, labels, /*emulated=*/true, nchannels);
  } else if (ranks_per_node > 0) {
    t = MakeEmulatedTopology(rank, nranks, ranks_per_node, nchannels);
  } else {
    KCOLL_ASSIGN_OR_RETURN(std::vector<int> labels, NodeLabelsFromMpi(comm, rank, nranks));
    t = MakeTopology(rank, labels, /*emulated=*/false, nchannels);
  }
  t.ranks = std::move(ranks);
  t.comm_id = StableHash(absl::StrCat(nranks, "/", SerializeRankInfo(t.ranks[0])));
  return t;
}

}  // namespace kcoll
