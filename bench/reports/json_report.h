// The --json file: nccl-tests' JSON layout (version 3: "config", "results" with "out_of_place"/"in_place" objects
// of time/alg_bw/bus_bw/nwrong, "out_of_bounds", "average_bus_bandwidth"), so tools that read nccl-tests' JSON read
// it, plus kcoll's fields: per result the collective, the implementation (kcoll algorithm or peer), the ideal busbw,
// efficiencies and the ratio to MPI; a top-level "kcoll" object with the run's placement, the per-block notes
// (skipped implementations) and the best kcoll algorithm against MPI at every size.
//
// The file is rewritten (to a temporary file, then renamed) after every row, so an interrupted sweep leaves a valid
// file with every row measured so far ("kcoll": {"complete": false}).
#ifndef KCOLL_BENCH_REPORTS_JSON_REPORT_H_
#define KCOLL_BENCH_REPORTS_JSON_REPORT_H_

#include <string>

#include "absl/status/status.h"
#include "bench/reports/results.h"
#include "nlohmann/json.hpp"

namespace kcoll {
namespace bench {

class JsonReport : public ResultListener {
 public:
  explicit JsonReport(std::string path) : path_(std::move(path)) {}

  // Creates (truncates) the file; InvalidArgument naming the path when it cannot be written.
  absl::Status Open();

  void OnRunStart(const RunInfo& info) override;
  void OnBlockStart(const Block& block) override;
  void OnRow(const Row& row) override;
  void OnNote(const Block& block, const std::string& note) override;
  void OnBlockEnd(const Block& block, const BlockSummary& summary) override;
  void OnFinish(const RunSummary& summary) override;

  const nlohmann::ordered_json& document() const { return doc_; }
  // The last error writing the file (OK when every write succeeded).
  absl::Status status() const { return status_; }

  // One result object (exposed for tests).
  static nlohmann::ordered_json RowJson(const Row& row, const std::string& program);

 private:
  void UpdateTotals();
  void Save();

  std::string path_;
  nlohmann::ordered_json doc_;
  std::string program_;
  int64_t wrong_ = 0;
  double kcoll_busbw_sum_ = 0;
  int kcoll_measurements_ = 0;
  absl::Status status_;
};

// "2024-05-01 12:00:00", local time (nccl-tests' format).
std::string NowString();

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_REPORTS_JSON_REPORT_H_
