#include "reports/bench_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "reports/eta.h"
#include "reports/number_format.h"
#include "util/byte_size.h"
#include "util/duration.h"
#include "util/significant_digits.h"

namespace opcert {
namespace {

constexpr std::size_t kMaxCaseWidth = 56;
constexpr int kCollectiveWidths[] = {7, 10, 5, 18, 5, 24, 10, 9, 9, 9, 6, 7};

std::string check_cell(const BenchRecord& r) {
  // A worker that died or hung in the benchmark gives its check that status and the reason.
  const bool worker_lost = r.check && (*r.check == Status::kCrashed || *r.check == Status::kTimeout);
  if (!r.error.empty() && !worker_lost) return "ERROR: " + r.error;
  if (r.copy_baseline) return "(copy baseline)";
  if (!r.check) return "-";
  std::string cell(status_name(*r.check));
  if (*r.check != Status::kPassed && !r.check_message.empty()) cell += ": " + r.check_message;
  return cell;
}

std::string percent_cell(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v) : "-"; }

std::string figure_cell(const std::optional<double>& v) { return v ? three_digits(*v) : "-"; }

// A check (or its absence) that makes a row of a selected backend untrustworthy.
bool row_failed(const BenchRecord& r) {
  if (r.peer) return false;
  if (!r.error.empty()) return true;
  return r.check && *r.check != Status::kPassed && *r.check != Status::kMistrusted;
}

// The SM clock at the first and last readings of a record's repetitions: "1755", "1980>1755".
std::string clocks_cell(const BenchRecord& r) {
  std::optional<uint32_t> first, last;
  for (const auto& reading : gpu_readings(r.runs)) {
    if (!reading.sm_clock_mhz) continue;
    if (!first) first = reading.sm_clock_mhz;
    last = reading.sm_clock_mhz;
  }
  std::string cell = !first ? "-" : *first == *last ? std::to_string(*first) : fmt::format("{}>{}", *first, *last);
  if (!r.condition_flags.empty()) cell += "*";
  return cell;
}

std::string noise_cell(const BenchRecord& r) {
  if (!r.noise) return "-";
  return fmt::format("{:.2f}%{}", 100 * *r.noise, r.noise_limited ? "!" : "");
}

// Every clock event reason of a record's readings, but idle.
std::set<std::string> slowing_reasons(const BenchRecord& r) {
  std::set<std::string> reasons;
  for (const auto& reading : gpu_readings(r.runs))
    if (reading.clock_reasons)
      for (const auto& name : clock_reason_names(*reading.clock_reasons))
        if (name != "gpu_idle") reasons.insert(name);
  return reasons;
}

class BenchTableSink final : public ResultSink {
 public:
  BenchTableSink(const std::vector<PlannedRow>& planned, BenchTableLayout layout, std::filesystem::path out_dir)
      : layout_(std::move(layout)), header_(bench_header(layout_)), out_dir_(std::move(out_dir)), total_(planned.size()) {
    widths_.assign(header_.size(), 0);
    for (std::size_t i = 0; i < header_.size(); ++i) widths_[i] = header_[i].size();
    for (const auto& row : planned) {
      widths_[0] = std::max(widths_[0], row.op.size());
      widths_[1] = std::max(widths_[1], std::min(row.case_id.size(), kMaxCaseWidth));
      widths_[2] = std::max(widths_[2], row.impl_key.size());
    }
    widths_[3] = std::max<std::size_t>(widths_[3], 15);
    for (std::size_t i = 4; i + 1 < widths_.size(); ++i) widths_[i] = std::max<std::size_t>(widths_[i], 7);
    for (std::size_t i = 0; i < header_.size(); ++i) {
      if (header_[i] == "SM MHz") widths_[i] = std::max<std::size_t>(widths_[i], 10);
      if (header_[i] == "device") widths_[i] = std::max<std::size_t>(widths_[i], 9);
    }
  }

  std::string name() const override { return "the bench table"; }

  void run_started(const RunReport&) override {
    print_row(header_);
    std::vector<std::string> rule;
    for (std::size_t w : widths_) rule.push_back(std::string(w, '-'));
    print_row(rule);
  }

  // The runner's notes (a resumed bench, a worker restarted) go to stderr, between the rows.
  void note(const std::string& line) override {
    std::fflush(stdout);
    fmt::print(stderr, "{}\n", line);
  }

  void benchmark_done(const BenchRecord& record) override {
    print_row(bench_row_cells(record, layout_));
    ++done_;
    show_eta();
    noise_limited_ += record.noise_limited ? 1 : 0;
    host_bound_ += record.host_bound ? 1 : 0;
    if (!record.condition_flags.empty()) {
      ++flagged_;
      for (const auto& reason : slowing_reasons(record)) reasons_.insert(reason);
    }
  }

  void run_finished(const RunReport& report) override {
    std::set<std::pair<std::string, std::string>> benchmarked;
    for (const auto& b : report.benchmarks) benchmarked.emplace(b.impl_key, b.case_id);
    for (const auto& r : report.results)
      if (!benchmarked.contains({r.impl_key, r.case_id}))
        fmt::print("not benchmarked: {} on {}: {} ({})\n", r.case_id, r.impl_key, status_name(r.status), r.message);
    const auto failed = std::count_if(report.benchmarks.begin(), report.benchmarks.end(), row_failed);
    if (failed > 0)
      fmt::print("{} benchmark(s) of a selected backend failed their check or their timing: their figures are not to be "
                 "trusted\n",
                 failed);
    if (noise_limited_ > 0)
      fmt::print("{} benchmark(s) reached --max-time without converging to --max-noise (marked !): compare them with "
                 "care, or give them longer\n",
                 noise_limited_);
    if (host_bound_ > 0)
      fmt::print("{} benchmark(s) were host-bound (marked h): issuing their launches took the host at least {:.0f}% of "
                 "the device's time to run them, so the device waited and the time is the host's rate of issue, "
                 "which moves with the host's load; their speedups compare how fast calls are issued\n",
                 host_bound_, 100 * kHostBoundShare);
    if (flagged_ > 0) {
      std::string reasons;
      for (const auto& r : reasons_) reasons += (reasons.empty() ? "" : ", ") + r;
      fmt::print("{} benchmark(s) ran with the GPU's clocks held down (marked *: {}); report.json has the readings\n",
                 flagged_, reasons);
    }
    fmt::print("{} benchmark(s); bench.json, report.json and measurements.jsonl in {}\n", report.benchmarks.size(),
               out_dir_.string());
    std::fflush(stdout);
  }

 private:
  // The pace on stderr, away from the table: once a few rows are done, then at most every 30 s.
  void show_eta() {
    const auto now = Eta::Clock::now();
    const std::string eta = eta_.text(done_, total_, now);
    if (eta.empty() || (last_eta_ && now - *last_eta_ < std::chrono::seconds(30))) return;
    last_eta_ = now;
    note(fmt::format("opcert: {}/{} benchmarks in {}, {}", done_, total_, short_duration(eta_.elapsed_s(now)), eta));
  }

  void print_row(const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const bool numeric = i >= 3 && i + 1 < cells.size();
      if (i + 1 == cells.size())
        line += cells[i];
      else if (numeric)
        line += fmt::format("{:>{}} | ", cells[i], widths_[i]);
      else
        line += fmt::format("{:<{}} | ", cells[i], widths_[i]);
    }
    fmt::print("{}\n", line);
    std::fflush(stdout);
  }

  BenchTableLayout layout_;
  std::vector<std::string> header_;
  std::size_t noise_limited_ = 0;
  std::size_t host_bound_ = 0;
  std::size_t flagged_ = 0;
  std::set<std::string> reasons_;
  std::vector<std::size_t> widths_;
  std::filesystem::path out_dir_;
  std::size_t total_ = 0, done_ = 0;
  Eta eta_;
  std::optional<Eta::Clock::time_point> last_eta_;
};

void print_collective_row(const std::vector<std::string>& cells) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const int width = i < std::size(kCollectiveWidths) ? kCollectiveWidths[i] : 8;
    // Text columns to the left, figures to the right.
    line += (i == 3 || i == 5 || i == 11) ? fmt::format("{:<{}} ", cells[i], width) : fmt::format("{:>{}} ", cells[i], width);
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  fmt::print("{}\n", line);
  std::fflush(stdout);
}

class CollectiveTableSink final : public ResultSink {
 public:
  explicit CollectiveTableSink(std::filesystem::path out_dir) : out_dir_(std::move(out_dir)) {}
  std::string name() const override { return "the collective bench table"; }

  void run_started(const RunReport& header) override {
    const auto& c = header.bench_settings.contains("collectives") ? header.bench_settings["collectives"]
                                                                  : nlohmann::json::object();
    fmt::print("{} ranks; {} timed and {} warm-up collectives per size; time: the mean over the ranks; "
               "busbw = algbw x the bus factor (nccl-tests)\n",
               header.ranks.value_or(1), c.value("iters", 0), c.value("warmup", 0));
    print_collective_row(collective_bench_header());
  }

  void benchmark_done(const BenchRecord& record) override {
    print_collective_row(collective_bench_cells(record));
    // A row that did not pass says why under it, once per implementation and reason: a sweep
    // repeats the same reason at every size.
    if (!record.check || *record.check == Status::kPassed || *record.check == Status::kMistrusted) return;
    if (reasons_.insert(record.impl_key + '\n' + record.check_message).second)
      fmt::print("        {} {}: {}\n", status_name(*record.check), record.impl_key,
                 record.check_message.empty() ? "no reason given" : record.check_message);
  }

  void run_finished(const RunReport& report) override {
    fmt::print("{} row(s) on {} rank(s); bench.json, report.json, measurements.jsonl and results.jsonl in {}\n",
               report.benchmarks.size(), report.ranks.value_or(1), out_dir_.string());
    std::fflush(stdout);
  }

 private:
  std::filesystem::path out_dir_;
  std::set<std::string> reasons_;  // "impl\nreason" already printed under a row
};

std::string gbps_cell(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "-"; }

}  // namespace

std::vector<std::string> bench_header(const BenchTableLayout& layout) {
  std::vector<std::string> header = {"op",     "case", "impl", "time", "noise", "TFLOP/s", "GB/s", "% peak",
                                     "vs " + (layout.peer.empty() ? std::string("peer") : layout.peer)};
  if (layout.copy_column) header.push_back("% copy");
  if (layout.clocks_column) header.push_back("SM MHz");
  if (layout.device_column) header.push_back("device");
  header.push_back("check");
  return header;
}

std::vector<std::string> bench_row_cells(const BenchRecord& r, const BenchTableLayout& layout) {
  std::string case_id = r.case_id;
  if (case_id.size() > kMaxCaseWidth) case_id = case_id.substr(0, kMaxCaseWidth - 3) + "...";
  std::vector<std::string> cells = {r.op, case_id, r.impl_key};
  if (!r.seconds || !r.error.empty()) {
    cells.insert(cells.end(), {"-", "-", "-", "-", "-", "-"});
    if (layout.copy_column) cells.push_back("-");
    if (layout.clocks_column) cells.push_back("-");
  } else {
    std::string time = format_duration(*r.seconds);
    if (r.spread) time += fmt::format(" ±{:.0f}%", 100 * *r.spread);
    if (r.host_bound) time += " h";
    cells.push_back(time);
    cells.push_back(noise_cell(r));
    cells.push_back(figure_cell(r.tflops));
    cells.push_back(figure_cell(r.gbps));
    cells.push_back(percent_cell(r.pct_peak));
    cells.push_back(r.speedup_vs_peer ? three_digits(*r.speedup_vs_peer) + "x" : r.peer ? "peer" : "-");
    if (layout.copy_column) cells.push_back(percent_cell(r.pct_of_copy));
    if (layout.clocks_column) cells.push_back(clocks_cell(r));
  }
  if (layout.device_column) cells.push_back(r.device ? device_label(r.device, r.rank) : "-");
  cells.push_back(check_cell(r));
  return cells;
}

std::vector<std::string> collective_bench_header() {
  return {"size", "count", "type", "op", "place", "impl", "time us", "algbw", "busbw", "peer bus", "ratio", "check"};
}

std::vector<std::string> collective_bench_cells(const BenchRecord& r) {
  const CollectiveFigures c = r.collective.value_or(CollectiveFigures{});
  std::string op = r.op;
  if (c.reduce_op) op += "." + *c.reduce_op;
  if (c.root) op += fmt::format(".root{}", *c.root);
  return {format_byte_size(static_cast<double>(c.size_bytes)),
          std::to_string(c.count),
          c.dtype,
          op,
          c.in_place ? "in" : "out",
          r.impl_key,
          r.seconds ? fmt::format("{:.2f}", *r.seconds * 1e6) : "-",
          gbps_cell(c.algbw_gbps),
          gbps_cell(c.busbw_gbps),
          r.peer ? "-" : gbps_cell(c.peer_busbw_gbps),
          c.ratio_vs_peer ? fmt::format("{:.2f}x", *c.ratio_vs_peer) : "-",
          r.check ? std::string(status_name(*r.check)) : "-"};
}

std::unique_ptr<ResultSink> make_bench_table_sink(const std::vector<PlannedRow>& planned, BenchTableLayout layout,
                                                  std::filesystem::path out_dir) {
  return std::make_unique<BenchTableSink>(planned, std::move(layout), std::move(out_dir));
}

std::unique_ptr<ResultSink> make_collective_table_sink(std::filesystem::path out_dir) {
  return std::make_unique<CollectiveTableSink>(std::move(out_dir));
}

}  // namespace opcert
