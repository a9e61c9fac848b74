// What the drop-in library did with each MPI function: calls run on kcoll, calls forwarded to the MPI underneath and
// why. Logged by rank 0 of MPI_COMM_WORLD at MPI_Finalize under KCOLL_DEBUG=INFO (or TRACE), where kcoll logs
// (stderr, or KCOLL_DEBUG_FILE), one line per function:
//
//   ... KCOLL INFO kcoll_mpi: MPI_Allreduce: 20513 calls, 20007 on kcoll, 506 forwarded (a user op 500, op MPI_MAXLOC
//   6)
#ifndef KCOLL_MPI_DROP_IN_CALL_STATS_H_
#define KCOLL_MPI_DROP_IN_CALL_STATS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kcoll::drop_in {

// The MPI functions the library defines, in the order their lines are printed.
enum class MpiFunction {
  kAllreduce,
  kReduce,
  kBcast,
  kAllgather,
  kAlltoall,
  kGather,
  kScatter,
  kReduceScatterBlock,
  kScan,
  kExscan,
  kBarrier,
  kAllgatherv,
  kAlltoallv,
  kGatherv,
  kScatterv,
  kReduceScatter,
  // Nonblocking (nonblocking.h).
  kIallreduce,
  kIreduce,
  kIbcast,
  kIallgather,
  kIalltoall,
  kIscan,
  kIexscan,
  kIgather,
  kIscatter,
  kIreduceScatterBlock,
  kIallgatherv,
  kIalltoallv,
  kIgatherv,
  kIscatterv,
  kIreduceScatter,
  kIbarrier,
  kCount,  // not a function: the number of them
};

const char* MpiFunctionName(MpiFunction function);  // "MPI_Allreduce"

struct FunctionStats {
  std::map<std::string, uint64_t> forwarded;  // by reason
};

// This process's counts (not thread-safe by design: counted under the caller's MPI serialisation of collectives on a
// communicator; concurrent collectives on different communicators may miss a count, never a call).
// Calls run on kcoll, per function (counted inline: the common path); FunctionStats holds the forwarded ones.
inline std::array<uint64_t, static_cast<size_t>(MpiFunction::kCount)> calls_on_kcoll{};
inline void CountOnKcoll(MpiFunction function) { ++calls_on_kcoll[static_cast<size_t>(function)]; }
// Of those, the calls on the device route (device_route.h).
inline std::array<uint64_t, static_cast<size_t>(MpiFunction::kCount)> calls_on_device{};
inline void CountOnDevice(MpiFunction function) { ++calls_on_device[static_cast<size_t>(function)]; }
void CountForwarded(MpiFunction function, const std::string& reason);
const FunctionStats& StatsOf(MpiFunction function);

// The printed lines, one per function that was called.
std::vector<std::string> DescribeStats();

// Rank 0 of MPI_COMM_WORLD logs DescribeStats when KCOLL_DEBUG is INFO or TRACE.
void PrintStatsAtFinalize();

}  // namespace kcoll::drop_in

#endif  // KCOLL_MPI_DROP_IN_CALL_STATS_H_
