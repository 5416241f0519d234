// reports/bench_tables.h: the compute table's cells for a benchmark's noise and the GPU's clocks.
#include "reports/bench_tables.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sample_report.h"

namespace opcert {
namespace {

TEST(BenchTable, NoiseAndClocksHaveTheirColumnsAndMarks) {
  const BenchTableLayout layout{.copy_column = false, .clocks_column = true, .peer = "torch"};
  const auto header = bench_header(layout);
  const auto cells = bench_row_cells(test::sample_bench_report().benchmarks.at(0), layout);
  ASSERT_EQ(cells.size(), header.size());
  const auto cell = [&](const std::string& column) {
    const auto at = std::find(header.begin(), header.end(), column);
    return at == header.end() ? std::string("no such column") : cells.at(at - header.begin());
  };
  EXPECT_EQ(cell("noise"), "0.80%!");      // the worst repetition, which stopped at the time limit
  EXPECT_EQ(cell("SM MHz"), "1980>1755*");  // first and last reading; throttled at one
  EXPECT_EQ(cell("vs torch"), "-");
}

TEST(BenchTable, AQuietRowOffAGpuHasNeitherMark) {
  BenchRecord r = test::sample_bench_report().benchmarks.at(0);
  r.noise = 0.0012;
  r.noise_limited = false;
  r.condition_flags.clear();
  for (auto& run : r.runs) run.sampling->conditions = {};
  const BenchTableLayout with_clocks{.copy_column = true, .clocks_column = true, .peer = ""};
  const auto header = bench_header(with_clocks);
  const auto cells = bench_row_cells(r, with_clocks);
  ASSERT_EQ(cells.size(), header.size());
  EXPECT_EQ(cells.at(4), "0.12%");
  EXPECT_EQ(cells.at(header.size() - 2), "-");
  EXPECT_EQ(header.at(8), "vs peer");
  const BenchTableLayout plain{};
  const auto plain_header = bench_header(plain);
  EXPECT_EQ(std::find(plain_header.begin(), plain_header.end(), "SM MHz"), plain_header.end());
  EXPECT_EQ(bench_row_cells(r, plain).size(), bench_header(plain).size());
}

}  // namespace
}  // namespace opcert
