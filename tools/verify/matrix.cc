#include "tools/verify/matrix.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench/implementations/mpi_peer.h"
#include "nlohmann/json.hpp"

namespace kcoll {
namespace verify {
namespace {

constexpr int kCellWidth = 8;

const char* ShortName(Numerics numerics) {
  switch (numerics) {
    case Numerics::kFast:
      return "fast";
    case Numerics::kDeterministic:
      return "determ";
    case Numerics::kExact:
      return "exact";
  }
  return "?";
}

const char* StateName(CellResult::State state) {
  switch (state) {
    case CellResult::State::kPass:
      return "pass";
    case CellResult::State::kFail:
      return "fail";
    case CellResult::State::kNotApplicable:
      return "n/a";
  }
  return "?";
}

std::string ColumnName(const Matrix& m, const Column& c) {
  return absl::StrCat(m.setups[c.setup].name, "/", NumericsName(c.numerics));
}

// The negative control: on rounding data, how many different all_reduce float64 sums the cells of each numerics mode
// produced (rank 0's result). fast: several where algorithms sum in different orders (3 or more ranks);
// deterministic and exact: one.
std::string Agreement(const Matrix& m) {
  std::map<Numerics, std::set<uint64_t>> distinct;
  std::map<Numerics, int> cells;
  for (size_t r = 0; r < m.rows.size(); ++r) {
    if (m.rows[r].collective != Collective::kAllReduce) continue;
    for (size_t c = 0; c < m.columns.size(); ++c) {
      const CellResult& cell = m.cells[r][c];
      if (cell.fingerprint == 0 || cell.state != CellResult::State::kPass) continue;
      distinct[m.columns[c].numerics].insert(cell.fingerprint);
      ++cells[m.columns[c].numerics];
    }
  }
  std::vector<std::string> parts;
  for (const auto& [numerics, values] : distinct) {
    parts.push_back(absl::StrCat(NumericsName(numerics), " ", values.size(), " over ", cells[numerics], " cells"));
  }
  if (parts.empty()) return "";
  return absl::StrCat("all_reduce float64 sum of rounding data, different results: ", absl::StrJoin(parts, "; "), "\n");
}

}  // namespace

int64_t Matrix::Count(CellResult::State state) const {
  int64_t n = 0;
  for (const auto& row : cells) {
    for (const CellResult& cell : row) n += cell.state == state ? 1 : 0;
  }
  for (const VendorRow& v : vendor) {
    if (state == CellResult::State::kPass) n += v.disagreement.empty() ? 1 : 0;
    if (state == CellResult::State::kFail) n += v.disagreement.empty() ? 0 : 1;
  }
  return n;
}

std::string FormatMatrix(const Matrix& m) {
  std::string out = absl::StrFormat("kcoll verify: %d ranks, %s; counts %s; %.1f s\n", m.ranks, m.mpi,
                                    absl::StrJoin(m.counts, ","), m.seconds);
  for (const std::string& s : m.skipped) absl::StrAppend(&out, "not on this machine: ", s, "\n");
  size_t name_width = 20;
  for (const Row& r : m.rows) name_width = std::max(name_width, r.name.size() + 2);
  // Header: one group per setup, one column per numerics mode in it.
  std::string groups(name_width, ' '), modes = absl::StrFormat("%-*s", static_cast<int>(name_width), "row");
  for (size_t s = 0; s < m.setups.size(); ++s) {
    int width = 0;
    for (const Column& c : m.columns) {
      if (c.setup != static_cast<int>(s)) continue;
      absl::StrAppendFormat(&modes, "%-*s", kCellWidth, ShortName(c.numerics));
      width += kCellWidth;
    }
    absl::StrAppendFormat(&groups, "%-*s", width + 1, m.setups[s].name);
    modes += " ";
  }
  for (std::string* line : {&groups, &modes}) {
    while (!line->empty() && line->back() == ' ') line->pop_back();
  }
  absl::StrAppend(&out, groups, "\n", modes, "\n");
  for (size_t r = 0; r < m.rows.size(); ++r) {
    std::string line = absl::StrFormat("%-*s", static_cast<int>(name_width), m.rows[r].name);
    for (size_t c = 0; c < m.columns.size(); ++c) {
      absl::StrAppendFormat(&line, "%-*s", kCellWidth, m.cells[r][c].code);
      if (c + 1 == m.columns.size() || m.columns[c + 1].setup != m.columns[c].setup) line += " ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    absl::StrAppend(&out, line, "\n");
  }
  for (size_t s = 0; s < m.setups.size(); ++s) {
    if (!m.setup_errors[s].empty()) absl::StrAppend(&out, m.setups[s].name, ": not run: ", m.setup_errors[s], "\n");
  }
  std::vector<std::string> vendor;
  for (const VendorRow& v : m.vendor) {
    vendor.push_back(absl::StrCat(bench::MpiCollectiveName(v.collective), v.disagreement.empty() ? " pass" : " FAIL"));
  }
  if (!vendor.empty()) {
    absl::StrAppend(&out, "vendor MPI on the same exact data, against the reference: ", absl::StrJoin(vendor, ", "),
                    "\n");
  }
  absl::StrAppend(&out, Agreement(m));
  absl::StrAppend(&out, "not applicable:\n");
  for (const auto& [code, why] : NotApplicableLegend()) absl::StrAppendFormat(&out, "  %-8s %s\n", code, why);
  bool any_failure = false;
  for (size_t r = 0; r < m.rows.size(); ++r) {
    for (size_t c = 0; c < m.columns.size(); ++c) {
      const CellResult& cell = m.cells[r][c];
      if (cell.state != CellResult::State::kFail) continue;
      if (!any_failure) absl::StrAppend(&out, "failures (the first mismatch of each failed cell):\n");
      any_failure = true;
      absl::StrAppend(&out, "  ", m.rows[r].name, " ", ColumnName(m, m.columns[c]), ": ", cell.first_failure, "\n");
    }
  }
  for (const VendorRow& v : m.vendor) {
    if (v.disagreement.empty()) continue;
    if (!any_failure) absl::StrAppend(&out, "failures (the first mismatch of each failed cell):\n");
    any_failure = true;
    absl::StrAppend(&out, "  ", bench::MpiCollectiveName(v.collective), ": ", v.disagreement, "\n");
  }
  absl::StrAppend(&out, m.Count(CellResult::State::kNotApplicable), " cells do not apply (codes above)\n");
  absl::StrAppend(&out, m.Count(CellResult::State::kPass), " passed, ", m.Count(CellResult::State::kFail), " failed\n");
  return out;
}

std::string MatrixJson(const Matrix& m) {
  nlohmann::json doc;
  doc["ranks"] = m.ranks;
  doc["mpi"] = m.mpi;
  doc["counts"] = m.counts;
  doc["seconds"] = m.seconds;
  doc["skipped"] = m.skipped;
  nlohmann::json columns = nlohmann::json::array();
  for (const Column& c : m.columns) {
    const Setup& s = m.setups[c.setup];
    columns.push_back({{"name", ColumnName(m, c)},
                       {"transport", std::string(TransportKindName(s.transport))},
                       {"exec", std::string(ExecBackendName(s.exec))},
                       {"numerics", std::string(NumericsName(c.numerics))},
                       {"setup_error", m.setup_errors[c.setup]}});
  }
  doc["columns"] = columns;
  nlohmann::json rows = nlohmann::json::array();
  for (size_t r = 0; r < m.rows.size(); ++r) {
    nlohmann::json cells = nlohmann::json::array();
    for (const CellResult& cell : m.cells[r]) {
      nlohmann::json j = {
          {"state", StateName(cell.state)}, {"code", cell.code}, {"calls", cell.calls}, {"refused", cell.refused}};
      if (!cell.first_failure.empty()) j["first_failure"] = cell.first_failure;
      cells.push_back(j);
    }
    rows.push_back({{"name", m.rows[r].name},
                    {"collective", std::string(CollectiveName(m.rows[r].collective))},
                    {"algorithm", std::string(AlgorithmName(m.rows[r].algorithm))},
                    {"cells", cells}});
  }
  doc["rows"] = rows;
  nlohmann::json vendor = nlohmann::json::array();
  for (const VendorRow& v : m.vendor) {
    vendor.push_back({{"collective", std::string(CollectiveName(v.collective))},
                      {"mpi_call", bench::MpiCollectiveName(v.collective)},
                      {"calls", v.calls},
                      {"state", v.disagreement.empty() ? "pass" : "fail"},
                      {"first_failure", v.disagreement}});
  }
  doc["vendor"] = vendor;
  doc["passed"] = m.Count(CellResult::State::kPass);
  doc["failed"] = m.Count(CellResult::State::kFail);
  doc["not_applicable"] = m.Count(CellResult::State::kNotApplicable);
  return doc.dump(1) + "\n";
}

}  // namespace verify
}  // namespace kcoll
