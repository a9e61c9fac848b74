#include "mpi_drop_in/call_stats.h"

#include <mpi.h>

#include "absl/strings/str_cat.h"
#include "collectives/observability/log.h"

namespace kcoll::drop_in {
namespace {

std::array<FunctionStats, static_cast<size_t>(MpiFunction::kCount)>& AllStats() {
  static auto* stats = new std::array<FunctionStats, static_cast<size_t>(MpiFunction::kCount)>();
  return *stats;
}

}  // namespace

const char* MpiFunctionName(MpiFunction function) {
  switch (function) {
    case MpiFunction::kAllreduce:
      return "MPI_Allreduce";
    case MpiFunction::kReduce:
      return "MPI_Reduce";
    case MpiFunction::kBcast:
      return "MPI_Bcast";
    case MpiFunction::kAllgather:
      return "MPI_Allgather";
    case MpiFunction::kAlltoall:
      return "MPI_Alltoall";
    case MpiFunction::kGather:
      return "MPI_Gather";
    case MpiFunction::kScatter:
      return "MPI_Scatter";
    case MpiFunction::kReduceScatterBlock:
      return "MPI_Reduce_scatter_block";
    case MpiFunction::kScan:
      return "MPI_Scan";
    case MpiFunction::kExscan:
      return "MPI_Exscan";
    case MpiFunction::kBarrier:
      return "MPI_Barrier";
    case MpiFunction::kAllgatherv:
      return "MPI_Allgatherv";
    case MpiFunction::kAlltoallv:
      return "MPI_Alltoallv";
    case MpiFunction::kGatherv:
      return "MPI_Gatherv";
    case MpiFunction::kScatterv:
      return "MPI_Scatterv";
    case MpiFunction::kReduceScatter:
      return "MPI_Reduce_scatter";
    case MpiFunction::kIallreduce:
      return "MPI_Iallreduce";
    case MpiFunction::kIreduce:
      return "MPI_Ireduce";
    case MpiFunction::kIbcast:
      return "MPI_Ibcast";
    case MpiFunction::kIallgather:
      return "MPI_Iallgather";
    case MpiFunction::kIalltoall:
      return "MPI_Ialltoall";
    case MpiFunction::kIscan:
      return "MPI_Iscan";
    case MpiFunction::kIexscan:
      return "MPI_Iexscan";
    case MpiFunction::kIgather:
      return "MPI_Igather";
    case MpiFunction::kIscatter:
      return "MPI_Iscatter";
    case MpiFunction::kIreduceScatterBlock:
      return "MPI_Ireduce_scatter_block";
    case MpiFunction::kIallgatherv:
      return "MPI_Iallgatherv";
    case MpiFunction::kIalltoallv:
      return "MPI_Ialltoallv";
    case MpiFunction::kIgatherv:
      return "MPI_Igatherv";
    case MpiFunction::kIscatterv:
      return "MPI_Iscatterv";
    case MpiFunction::kIreduceScatter:
      return "MPI_Ireduce_scatter";
    case MpiFunction::kIbarrier:
      return "MPI_Ibarrier";
    case MpiFunction::kCount:
      break;
  }
  return "?";
}

void CountForwarded(MpiFunction function, const std::string& reason) {
  ++AllStats()[static_cast<size_t>(function)].forwarded[reason];
}

const FunctionStats& StatsOf(MpiFunction function) { return AllStats()[static_cast<size_t>(function)]; }

std::vector<std::string> DescribeStats() {
  std::vector<std::string> lines;
  for (size_t i = 0; i < static_cast<size_t>(MpiFunction::kCount); ++i) {
    const FunctionStats& stats = StatsOf(static_cast<MpiFunction>(i));
    const uint64_t on_kcoll = calls_on_kcoll[i];
    uint64_t forwarded = 0;
    std::string reasons;
    for (const auto& [reason, calls] : stats.forwarded) {
      forwarded += calls;
      absl::StrAppend(&reasons, reasons.empty() ? "" : ", ", reason, " ", calls);
    }
    if (on_kcoll + forwarded == 0) continue;
    std::string line = absl::StrCat("kcoll_mpi: ", MpiFunctionName(static_cast<MpiFunction>(i)), ": ",
                                    on_kcoll + forwarded, " calls, ", on_kcoll, " on kcoll");
    if (calls_on_device[i] > 0) absl::StrAppend(&line, " (", calls_on_device[i], " on the device route)");
    absl::StrAppend(&line, ", ", forwarded, " forwarded");
    if (!reasons.empty()) absl::StrAppend(&line, " (", reasons, ")");
    lines.push_back(std::move(line));
  }
  return lines;
}

void PrintStatsAtFinalize() {
  absl::StatusOr<LogConfig> config = LogConfigFromEnv();
  if (!config.ok() || config->level < LogLevel::kInfo) return;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  absl::StatusOr<Logger> logger = Logger::Create(*config, rank, rank);
  if (!logger.ok()) return;
  for (const std::string& line : DescribeStats()) logger->Log(LogLevel::kInfo, line);
}

}  // namespace kcoll::drop_in
