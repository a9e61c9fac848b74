// The nccl-tests text table: nccl-tests' header ("# nThread ... nGpus ...", "#  Rank  0 Group ..."), its column
// header lines, one line per size with out-of-place and in-place time/algbw/busbw/#wrong in nccl-tests' widths and
// units (us, GB/s), then kcoll's columns appended at the end of the line (so nccl-tests parsers that split on
// whitespace still find theirs): ideal busbw, efficiency out of place and in place, busbw relative to the MPI
// peer, and with --model the cost model's time and error. One block per (collective, implementation), each with
// nccl-tests' footer lines; a run footer with the best kcoll algorithm against MPI at every size.
#ifndef KCOLL_BENCH_REPORTS_TABLE_REPORT_H_
#define KCOLL_BENCH_REPORTS_TABLE_REPORT_H_

#include <benchmark/benchmark.h>

#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/reports/results.h"

namespace kcoll {
namespace bench {

// nccl-tests' number format: fits `value` in `width` characters with 2, 1 or 0 decimals, else in exponent form.
std::string FormatNcclNumber(double value, int width);

class TableWriter : public ResultListener {
 public:
  explicit TableWriter(std::ostream& out) : out_(out) {}

  void OnRunStart(const RunInfo& info) override;
  void OnBlockStart(const Block& block) override;
  void OnRow(const Row& row) override;
  void OnNote(const Block& block, const std::string& note) override;
  void OnBlockEnd(const Block& block, const BlockSummary& summary) override;
  void OnFinish(const RunSummary& summary) override;

  // The column header lines (nccl-tests' two or three lines plus kcoll's columns; with `model`, the model's time
  // and its error against the out-of-place time at the end).
  static std::vector<std::string> ColumnHeader(bool per_iter_timing, bool model = false, bool fingerprint = false);
  // One result line.
  static std::string FormatRow(const Row& row, bool per_iter_timing, bool model = false, bool fingerprint = false);

 private:
  std::ostream& out_;
  RunInfo info_;
  bool header_printed_ = false;
};

// A Google Benchmark reporter that prints the table: ResultSink events are formatted by a TableWriter into a buffer
// that goes to the reporter's output stream when Google Benchmark reports (after each benchmark), so the table
// appears size by size. Flush() prints what is left after the last benchmark (the run footer).
class NcclTableReporter : public benchmark::BenchmarkReporter, public ResultListener {
 public:
  NcclTableReporter() : writer_(buffer_) {}

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;
  void Flush();

  void OnRunStart(const RunInfo& info) override { writer_.OnRunStart(info); }
  void OnBlockStart(const Block& block) override { writer_.OnBlockStart(block); }
  void OnRow(const Row& row) override { writer_.OnRow(row); }
  void OnNote(const Block& block, const std::string& note) override { writer_.OnNote(block, note); }
  void OnBlockEnd(const Block& block, const BlockSummary& summary) override { writer_.OnBlockEnd(block, summary); }
  void OnFinish(const RunSummary& summary) override { writer_.OnFinish(summary); }

 private:
  std::ostringstream buffer_;
  TableWriter writer_;
};

// Reports nothing: the reporter of every rank but 0.
class NullReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
  void Finalize() override {}
};

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_REPORTS_TABLE_REPORT_H_
