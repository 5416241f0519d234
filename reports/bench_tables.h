// The tables `opcert bench` prints on stdout, one row per benchmark as it finishes:
//   compute:      op | case | impl | time | noise | TFLOP/s | GB/s | % peak | vs <peer> | [% copy |]
//                 [SM MHz |] check
//                 noise: the samples' relative standard deviation, "!" when sampling hit --max-time
//                 above --max-noise; SM MHz: the GPU's SM clock at the first and the last reading,
//                 "*" when it was throttled or clock-capped at any (footer: which)
//   collectives:  size count type op place impl | time us algbw busbw peer bus ratio | check
//                 (nccl-tests' columns), a failing row's reason under it once per impl and reason
// and a footer at the end: what was not benchmarked and why, what failed, where the files are.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "model/bench_record.h"
#include "reports/result_sink.h"

namespace opcert {

/// A row the compute table will print, for its column widths.
struct PlannedRow {
  std::string op;
  std::string case_id;
  std::string impl_key;
};

/// The compute table's optional columns and its ratio column's name.
struct BenchTableLayout {
  bool copy_column = false;    ///< "% copy" (--copy-baseline)
  bool clocks_column = false;  ///< "SM MHz": a GPU is benchmarked
  bool device_column = false;  ///< "device": --devices, each row's device
  std::string peer;            ///< names "vs <peer>"; empty: "vs peer", every cell "-"
};

/// The compute table.
std::unique_ptr<ResultSink> make_bench_table_sink(const std::vector<PlannedRow>& planned, BenchTableLayout layout,
                                                  std::filesystem::path out_dir);

/// The collective sweep's table (RunReport::ranks and bench_settings.collectives give its header).
std::unique_ptr<ResultSink> make_collective_table_sink(std::filesystem::path out_dir);

/// The compute table's header and a record's cells ("-" where a figure does not apply).
std::vector<std::string> bench_header(const BenchTableLayout& layout);
std::vector<std::string> bench_row_cells(const BenchRecord& record, const BenchTableLayout& layout);

/// The collective table's header and a record's cells.
std::vector<std::string> collective_bench_header();
std::vector<std::string> collective_bench_cells(const BenchRecord& record);

}  // namespace opcert
