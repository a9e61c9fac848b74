// What verify runs: its rows (collective / algorithm, `auto` first), its setups (transport x execution space, the
// communicators it creates) and its columns (setup x numerics mode), and which cells do not apply, with the reason.
#ifndef KCOLL_TOOLS_VERIFY_GRID_H_
#define KCOLL_TOOLS_VERIFY_GRID_H_

#include <string>
#include <vector>

#include "base/names.h"
#include "base/transport_kind.h"
#include "collectives/options.h"
#include "tools/verify/options.h"

namespace kcoll {
namespace verify {

struct Row {
  Collective collective;
  Algorithm algorithm;
  std::string name;  // "all_reduce/ring"
};

struct Setup {
  TransportKind transport;
  ExecBackend exec;
  std::string name;  // "shm/serial"
};

struct Column {
  int setup;  // index into the setups
  Numerics numerics;
};

// Every selected collective's algorithms, `auto` first.
std::vector<Row> MakeRows(const VerifyOptions& options);

// The transports x execution spaces that can run here: host spaces with shm and mpi, cuda with nccl, cuda_ipc and
// mpi. `skipped` gets a line for each selected one that cannot ("cuda: ...").
std::vector<Setup> MakeSetups(const VerifyOptions& options, std::vector<std::string>* skipped);

std::vector<Column> MakeColumns(const VerifyOptions& options, const std::vector<Setup>& setups);

// Why a cell does not apply, decided before it runs ("" when it does), as a short code the matrix prints and a
// sentence its legend gives (NotApplicableLegend).
std::string NotApplicable(const Row& row, const Setup& setup, Numerics numerics);
std::vector<std::pair<std::string, std::string>> NotApplicableLegend();

}  // namespace verify
}  // namespace kcoll

#endif  // KCOLL_TOOLS_VERIFY_GRID_H_
