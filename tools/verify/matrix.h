// verify's result: the matrix of cells (rows: collective / algorithm; columns: transport / execution space x numerics
// mode), the vendor MPI's agreement with the reference, and how it prints: a table for people, JSON for tools.
#ifndef KCOLL_TOOLS_VERIFY_MATRIX_H_
#define KCOLL_TOOLS_VERIFY_MATRIX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/verify/cell.h"
#include "tools/verify/grid.h"

namespace kcoll {
namespace verify {

struct VendorRow {
  Collective collective;
  int64_t calls = 0;
  std::string disagreement;  // "" when MPI matched the reference on every call (on every rank)
};

struct Matrix {
  int ranks = 0;
  std::string mpi;  // the MPI library's version line
  std::vector<size_t> counts;
  std::vector<Row> rows;
  std::vector<Setup> setups;
  std::vector<std::string> setup_errors;  // per setup: "" or why its communicator could not be created
  std::vector<Column> columns;
  std::vector<std::vector<CellResult>> cells;  // [row][column]
  std::vector<VendorRow> vendor;
  std::vector<std::string> skipped;  // what this machine cannot run, and why
  double seconds = 0;

  int64_t Count(CellResult::State state) const;  // cells in `state`, vendor rows included (pass / fail)
};

std::string FormatMatrix(const Matrix& matrix);
std::string MatrixJson(const Matrix& matrix);

}  // namespace verify
}  // namespace kcoll

#endif  // KCOLL_TOOLS_VERIFY_MATRIX_H_
