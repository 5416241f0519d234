// The console side of `opcert bench`: a Google Benchmark display reporter that records what each
// benchmark measured into its BenchJob and prints one table row per benchmark as it finishes:
//   op | case | impl | time | TFLOP/s | GB/s | % peak | vs torch | [% copy |] check
// ("% copy" with --copy-baseline: the row's bandwidth as a percent of a copy of the same bytes).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/bench_job.h"

namespace opcert {

/// The table's header, with the "% copy" column or without.
std::vector<std::string> bench_header(bool copy_column);

/// The cells of a job's row, in the column order above; "-" where a figure does not apply.
std::vector<std::string> bench_row_cells(const BenchJob& job, const std::vector<BenchJob>& jobs,
                                         bool copy_column = false);

/// The speedup of `job` over its torch peer (peer time / job time), when both were measured.
std::optional<double> speedup_vs_peer(const BenchJob& job, const std::vector<BenchJob>& jobs);

/// "812 ns", "12.4 us", "3.21 ms", "1.05 s" (three significant digits).
std::string format_duration(double seconds);

class TableReporter : public benchmark::BenchmarkReporter {
 public:
  /// `on_reported` is called once per benchmark, when its row is printed (after the aggregates
  /// when there are repetitions).
  TableReporter(std::vector<BenchJob>& jobs, std::FILE* out, std::function<void(const BenchJob&)> on_reported);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;

 private:
  void print_row(const std::vector<std::string>& cells);

  std::vector<BenchJob>& jobs_;
  std::FILE* out_;
  std::function<void(const BenchJob&)> on_reported_;
  std::map<std::string, std::size_t> by_name_;
  bool copy_column_ = false;
  std::vector<std::string> header_;
  std::vector<std::size_t> widths_;
};

}  // namespace opcert
