#include "reports/bench_record_json.h"

#include "reports/number_format.h"

namespace opcert {
namespace {

using nlohmann::json;

json string_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json collective_json(const CollectiveFigures& c) {
  json per_rank = json::array();
  for (const auto& s : c.seconds_per_rank) per_rank.push_back(json_number(s));
  return {{"size_bytes", c.size_bytes},
          {"count", c.count},
          {"dtype", c.dtype},
          {"reduce_op", c.reduce_op ? json(*c.reduce_op) : json(nullptr)},
          {"root", c.root ? json(*c.root) : json(nullptr)},
          {"in_place", c.in_place},
          {"ranks", c.ranks},
          {"iters", c.iters},
          {"warmup", c.warmup},
          {"seconds_per_rank", per_rank},
          {"algbw_gbps", json_number(c.algbw_gbps)},
          {"bus_factor", c.bus_factor},
          {"busbw_gbps", json_number(c.busbw_gbps)},
          {"peer_busbw_gbps", json_number(c.peer_busbw_gbps)},
          {"ratio_vs_peer", json_number(c.ratio_vs_peer)}};
}

template <class T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json reading_json(const std::optional<GpuReading>& r) {
  if (!r) return nullptr;
  return {{"sm_clock_mhz", optional_json(r->sm_clock_mhz)},
          {"memory_clock_mhz", optional_json(r->memory_clock_mhz)},
          {"power_w", json_number(r->power_w)},
          {"temperature_c", optional_json(r->temperature_c)},
          {"clock_reasons", r->clock_reasons ? json(clock_reason_names(*r->clock_reasons)) : json(nullptr)}};
}

// A repetition's sampling: how many launches, how noisy, why it stopped, and the GPU's readings.
void add_sampling(json& j, const std::optional<Sampling>& s) {
  j["samples"] = s ? json(s->samples) : json(nullptr);
  j["noise"] = s ? json_number(s->noise) : json(nullptr);
  j["stopped_by"] = s ? string_or_null(s->stopped_by) : json(nullptr);
  j["sampling_s"] = s ? json_number(s->elapsed_s) : json(nullptr);
  j["conditions"] = s ? json{{"start", reading_json(s->conditions.start)}, {"end", reading_json(s->conditions.end)}}
                      : json(nullptr);
}

// Google Benchmark's time unit for opcert's benchmarks: microseconds.
constexpr double kMicroseconds = 1e6;

}  // namespace

json bench_record_json(const BenchRecord& r) {
  json repetitions = json::array();
  json aggregates = json::object();
  for (const auto& run : r.runs) {
    const json seconds = run.error.empty() ? json_number(run.seconds) : json(nullptr);
    if (run.aggregate.empty()) {
      json rep = {{"iterations", run.iterations}, {"seconds", seconds}};
      add_sampling(rep, run.sampling);
      repetitions.push_back(std::move(rep));
    } else
      aggregates[run.aggregate] = seconds;
  }
  json j = {{"name", r.name},
            {"backend", r.backend},
            {"impl_key", r.impl_key},
            {"case_id", r.case_id},
            {"op", r.op},
            {"peer", r.peer},
            {"copy_baseline", r.copy_baseline},
            {"check", r.check ? json(std::string(status_name(*r.check))) : json(nullptr)},
            {"error", string_or_null(r.error)},
            {"timing", string_or_null(r.timing)},
            {"library_call", string_or_null(r.library_call)},
            {"published_after_timing_bytes", r.published_bytes},
            {"flops", json_number(r.flops)},
            {"bytes", json_number(r.bytes)},
            {"compute_dtype", string_or_null(r.compute_dtype)},
            {"platform", string_or_null(r.platform)},
            {"repetitions", repetitions},
            {"aggregates", aggregates},
            {"seconds", json_number(r.seconds)},
            {"spread", json_number(r.spread)},
            {"tflops", json_number(r.tflops)},
            {"gbps", json_number(r.gbps)},
            {"pct_peak", json_number(r.pct_peak)},
            {"speedup_vs_peer", json_number(r.speedup_vs_peer)},
            {"pct_of_copy", json_number(r.pct_of_copy)},
            {"noise", json_number(r.noise)},
            {"noise_limited", r.noise_limited},
            {"condition_flags", r.condition_flags}};
  if (r.collective) j["collective"] = collective_json(*r.collective);
  return j;
}

json google_benchmark_runs_json(const BenchRecord& r) {
  json runs = json::array();
  const std::string label = r.copy_baseline ? "(copy baseline)" : r.check ? std::string(status_name(*r.check)) : "";
  for (const auto& run : r.runs) {
    json b = {{"name", run.name},
              {"family_index", run.family_index},
              {"per_family_instance_index", run.per_family_instance_index},
              {"run_name", run.run_name},
              {"run_type", run.aggregate.empty() ? "iteration" : "aggregate"},
              {"repetitions", run.repetitions},
              {"threads", run.threads}};
    if (run.aggregate.empty()) {
      b["repetition_index"] = run.repetition_index;
    } else {
      b["aggregate_name"] = run.aggregate;
      b["aggregate_unit"] = run.aggregate_is_percentage ? "percentage" : "time";
    }
    if (!run.error.empty()) {
      b["error_occurred"] = true;
      b["error_message"] = run.error;
    }
    b["iterations"] = run.iterations;
    const double scale = run.aggregate_is_percentage ? 1.0 : kMicroseconds;
    b["real_time"] = json_number(run.seconds * scale);
    b["cpu_time"] = json_number(run.cpu_seconds * scale);
    b["time_unit"] = "us";
    for (const auto& [name, value] : run.counters) b[name] = json_number(value);
    if (run.sampling) add_sampling(b, run.sampling);
    if (r.collective) {
      b["bytes"] = r.collective->size_bytes;
      b["count"] = r.collective->count;
      b["algbw_gbps"] = json_number(r.collective->algbw_gbps);
      b["busbw_gbps"] = json_number(r.collective->busbw_gbps);
      if (r.collective->peer_busbw_gbps) b["peer_busbw_gbps"] = *r.collective->peer_busbw_gbps;
      if (r.collective->ratio_vs_peer) b["ratio_vs_peer"] = *r.collective->ratio_vs_peer;
    }
    if (!label.empty()) b["label"] = label;
    runs.push_back(std::move(b));
  }
  return runs;
}

}  // namespace opcert
