#include "bench/collective_bench_rows.h"

#include <fmt/format.h>

#include "bench/collective_sweep.h"
#include "model/dtype.h"
#include "reports/number_format.h"

namespace opcert {
namespace {

using nlohmann::json;

constexpr int kWidths[] = {7, 10, 5, 18, 5, 24, 10, 9, 9, 9, 6, 7};

std::string gbps_cell(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "-"; }

std::string op_cell(const CollectiveSpec& s, const Case& c) {
  if (s.reduces()) return fmt::format("{}.{}", c.op, reduce_op_name(s.reduce));
  if (s.rooted()) return fmt::format("{}.root{}", c.op, s.root);
  return c.op;
}

}  // namespace

bool collective_row_gates(Status s) { return s != Status::kPassed && s != Status::kMistrusted && s != Status::kSkipped; }

void print_collective_bench_row(std::FILE* out, const std::vector<std::string>& cells) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const int width = i < std::size(kWidths) ? kWidths[i] : 8;
    // Text columns to the left, figures to the right.
    line += (i == 3 || i == 5 || i == 11) ? fmt::format("{:<{}} ", cells[i], width) : fmt::format("{:>{}} ", cells[i], width);
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  fmt::print(out, "{}\n", line);
  std::fflush(out);
}

std::vector<std::string> collective_bench_header() {
  return {"size", "count", "type", "op", "place", "impl", "time us", "algbw", "busbw", "peer bus", "ratio", "check"};
}

std::optional<double> peer_busbw_gbps(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs, int ranks) {
  std::optional<double> best;
  for (const auto& other : jobs)
    if (other.peer && other.case_index == job.case_index && other.bytes == job.bytes && other.status() == Status::kPassed)
      if (const auto bw = other.busbw_gbps(ranks); bw && (!best || *bw > *best)) best = bw;
  return best;
}

std::optional<double> ratio_vs_peer(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs, int ranks) {
  if (job.peer) return std::nullopt;
  const auto ours = job.busbw_gbps(ranks);
  const auto peer = peer_busbw_gbps(job, jobs, ranks);
  if (!ours || !peer || *peer <= 0) return std::nullopt;
  return *ours / *peer;
}

std::vector<std::string> collective_bench_cells(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs,
                                                int ranks) {
  const auto t = job.mean_seconds();
  const auto ratio = ratio_vs_peer(job, jobs, ranks);
  return {format_byte_size(static_cast<double>(job.bytes)),
          std::to_string(job.spec.count),
          std::string(dtype_name(job.spec.dtype)),
          op_cell(job.spec, job.sized),
          job.spec.in_place ? "in" : "out",
          job.impl_key,
          t ? fmt::format("{:.2f}", *t * 1e6) : "-",
          gbps_cell(job.algbw_gbps()),
          gbps_cell(job.busbw_gbps(ranks)),
          job.peer ? "-" : gbps_cell(peer_busbw_gbps(job, jobs, ranks)),
          ratio ? fmt::format("{:.2f}x", *ratio) : "-",
          std::string(status_name(job.status()))};
}

json collective_bench_record_json(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs, int ranks,
                                  const CollectiveBenchSettings& settings) {
  const auto t = job.mean_seconds();
  json per_rank = json::array();
  for (const auto& s : job.seconds) per_rank.push_back(json_number(s));
  const Status status = job.status();
  const bool timed = t.has_value();
  return {{"name", job.name},
          {"backend", job.backend},
          {"impl_key", job.impl_key},
          {"case_id", job.sized.id},
          {"op", job.sized.op},
          {"peer", job.peer},
          {"copy_baseline", false},
          {"check", std::string(status_name(status))},
          {"error", timed && !collective_row_gates(status) ? json(nullptr) : json(job.message())},
          {"timing", job.timing_method.empty() ? json(nullptr) : json(job.timing_method)},
          {"flops", 0},
          {"bytes", static_cast<double>(job.bytes)},
          {"compute_dtype", nullptr},
          {"platform", nullptr},
          {"repetitions", json::array({{{"iterations", settings.iters}, {"seconds", json_number(t)}}})},
          {"aggregates", json::object()},
          {"seconds", json_number(t)},
          {"spread", nullptr},
          {"tflops", nullptr},
          {"gbps", json_number(job.algbw_gbps())},
          {"pct_peak", nullptr},
          {"speedup_vs_torch", nullptr},
          {"pct_of_copy", nullptr},
          {"collective",
           {{"size_bytes", job.bytes},
            {"count", job.spec.count},
            {"dtype", std::string(dtype_name(job.spec.dtype))},
            {"reduce_op", job.spec.reduces() ? json(std::string(reduce_op_name(job.spec.reduce))) : json(nullptr)},
            {"root", job.spec.rooted() ? json(job.spec.root) : json(nullptr)},
            {"in_place", job.spec.in_place},
            {"ranks", ranks},
            {"iters", settings.iters},
            {"warmup", settings.warmup},
            {"seconds_per_rank", per_rank},
            {"algbw_gbps", json_number(job.algbw_gbps())},
            {"bus_factor", job.spec.bus_factor(ranks)},
            {"busbw_gbps", json_number(job.busbw_gbps(ranks))},
            {"peer_busbw_gbps", job.peer ? json(nullptr) : json_number(peer_busbw_gbps(job, jobs, ranks))},
            {"ratio_vs_peer", json_number(ratio_vs_peer(job, jobs, ranks))}}}};
}

}  // namespace opcert
