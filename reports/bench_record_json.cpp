#include "reports/bench_record_json.h"

#include <algorithm>

#include "model/case_result_json.h"
#include "reports/number_format.h"
#include "reports/json_values.h"

#include <stdexcept>

namespace opcert {
namespace {

using nlohmann::json;


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
  j["batches"] = s ? json(s->batches) : json(nullptr);
  j["throttled_batches"] = s ? json(s->throttled_batches) : json(nullptr);
  j["stopped_by"] = s ? string_or_null(s->stopped_by) : json(nullptr);
  j["sampling_s"] = s ? json_number(s->elapsed_s) : json(nullptr);
  j["host_share"] = s && s->host_share ? json_number(*s->host_share) : json(nullptr);
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
            {"host_bound", r.host_bound},
            {"condition_flags", r.condition_flags}};
  if (r.collective) j["collective"] = collective_json(*r.collective);
  if (r.device) j["device"] = device_tag_json(*r.device);  // --devices only: a bench without it reads as before
  if (r.rank) j["rank"] = *r.rank;                         // across ranks only
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

namespace {

// A number written by json_number: a JSON number, or "nan", "inf", "-inf"; empty for null or absent.
std::optional<double> read_number(const json& doc, const char* name) {
  const auto it = doc.find(name);
  if (it == doc.end()) return std::nullopt;
  try {
    return number_from_json(*it);
  } catch (const std::invalid_argument&) {
    throw std::runtime_error(std::string("benchmark field '") + name + "' is not a number");
  }
}

std::string read_string(const json& doc, const char* name) {
  const auto it = doc.find(name);
  return it == doc.end() || it->is_null() ? std::string() : it->get<std::string>();
}

template <class T>
std::optional<T> read_optional(const json& doc, const char* name) {
  const auto it = doc.find(name);
  if (it == doc.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

std::optional<GpuReading> reading_from(const json& doc) {
  if (doc.is_null()) return std::nullopt;
  GpuReading r;
  r.sm_clock_mhz = read_optional<uint32_t>(doc, "sm_clock_mhz");
  r.memory_clock_mhz = read_optional<uint32_t>(doc, "memory_clock_mhz");
  r.power_w = read_number(doc, "power_w");
  r.temperature_c = read_optional<uint32_t>(doc, "temperature_c");
  return r;  // the reasons stay as their names in the file; the flags are the record's
}

std::optional<Sampling> sampling_from(const json& rep) {
  const auto samples = read_optional<int64_t>(rep, "samples");
  if (!samples) return std::nullopt;
  Sampling s;
  s.samples = *samples;
  s.noise = read_number(rep, "noise").value_or(0.0);
  s.batches = read_optional<int64_t>(rep, "batches").value_or(0);  // none before 2.9
  s.throttled_batches = read_optional<int64_t>(rep, "throttled_batches").value_or(0);
  s.stopped_by = read_string(rep, "stopped_by");
  s.elapsed_s = read_number(rep, "sampling_s").value_or(0.0);
  s.host_share = read_number(rep, "host_share");  // none before 2.12
  if (const auto c = rep.find("conditions"); c != rep.end() && c->is_object()) {
    s.conditions.start = reading_from(c->value("start", json(nullptr)));
    s.conditions.end = reading_from(c->value("end", json(nullptr)));
  }
  return s;
}

CollectiveFigures collective_from(const json& c) {
  CollectiveFigures f;
  f.size_bytes = c.value("size_bytes", uint64_t{0});
  f.count = c.value("count", int64_t{0});
  f.dtype = read_string(c, "dtype");
  if (auto op = read_string(c, "reduce_op"); !op.empty()) f.reduce_op = op;
  f.root = read_optional<int64_t>(c, "root");
  f.in_place = c.value("in_place", false);
  f.ranks = c.value("ranks", 1);
  f.iters = c.value("iters", 0);
  f.warmup = c.value("warmup", 0);
  if (const auto per = c.find("seconds_per_rank"); per != c.end() && per->is_array())
    for (const auto& v : *per) f.seconds_per_rank.push_back(v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt);
  f.algbw_gbps = read_number(c, "algbw_gbps");
  f.bus_factor = read_number(c, "bus_factor").value_or(0.0);
  f.busbw_gbps = read_number(c, "busbw_gbps");
  f.peer_busbw_gbps = read_number(c, "peer_busbw_gbps");
  f.ratio_vs_peer = read_number(c, "ratio_vs_peer");
  return f;
}

}  // namespace

BenchRecord bench_record_from_json(const json& doc) {
  if (!doc.is_object()) throw std::runtime_error("a benchmark is not a JSON object");
  BenchRecord r;
  r.name = read_string(doc, "name");
  r.backend = read_string(doc, "backend");
  r.impl_key = read_string(doc, "impl_key");
  r.case_id = read_string(doc, "case_id");
  r.op = read_string(doc, "op");
  r.peer = doc.value("peer", false);
  r.copy_baseline = doc.value("copy_baseline", false);
  if (const auto check = read_string(doc, "check"); !check.empty()) {
    const auto status = parse_status(check);
    if (!status) throw std::runtime_error("benchmark field 'check' is not a status: " + check);
    r.check = *status;
  }
  r.error = read_string(doc, "error");
  r.timing = read_string(doc, "timing");
  r.library_call = read_string(doc, "library_call");
  r.published_bytes = doc.value("published_after_timing_bytes", uint64_t{0});
  r.flops = read_number(doc, "flops").value_or(0.0);
  r.bytes = read_number(doc, "bytes").value_or(0.0);
  r.compute_dtype = read_string(doc, "compute_dtype");
  r.platform = read_string(doc, "platform");
  int64_t index = 0;
  for (const auto& rep : doc.value("repetitions", json::array())) {
    BenchRun run;
    run.name = run.run_name = r.name;
    run.repetition_index = index++;
    run.iterations = rep.value("iterations", int64_t{0});
    const auto seconds = read_number(rep, "seconds");
    if (seconds) run.seconds = *seconds;
    else run.error = "not timed";
    run.sampling = sampling_from(rep);
    r.runs.push_back(std::move(run));
  }
  const auto repetitions = static_cast<int64_t>(r.runs.size());
  for (auto& run : r.runs) run.repetitions = repetitions;
  const json aggregates = doc.value("aggregates", json::object());
  // In Google Benchmark's order (the JSON object's is alphabetical), then any other by name.
  std::vector<std::string> names;
  for (const char* known : {"mean", "median", "stddev", "cv"})
    if (aggregates.contains(known)) names.emplace_back(known);
  for (const auto& item : aggregates.items())
    if (std::find(names.begin(), names.end(), item.key()) == names.end()) names.push_back(item.key());
  for (const std::string& name : names) {
    BenchRun run;
    run.name = r.name + "_" + name;
    run.run_name = r.name;
    run.aggregate = name;
    run.aggregate_is_percentage = name == "cv";
    run.repetitions = repetitions;
    if (const auto v = read_number(aggregates, name.c_str())) run.seconds = *v;
    r.runs.push_back(std::move(run));
  }
  r.seconds = read_number(doc, "seconds");
  r.spread = read_number(doc, "spread");
  r.tflops = read_number(doc, "tflops");
  r.gbps = read_number(doc, "gbps");
  r.pct_peak = read_number(doc, "pct_peak");
  r.speedup_vs_peer = read_number(doc, "speedup_vs_peer");
  r.pct_of_copy = read_number(doc, "pct_of_copy");
  r.noise = read_number(doc, "noise");
  r.noise_limited = doc.value("noise_limited", false);
  r.host_bound = doc.value("host_bound", false);
  r.condition_flags = doc.value("condition_flags", std::vector<std::string>{});
  if (const auto c = doc.find("collective"); c != doc.end() && c->is_object()) r.collective = collective_from(*c);
  if (const auto d = doc.find("device"); d != doc.end() && !d->is_null()) r.device = device_tag_from_json(*d);
  if (const auto k = doc.find("rank"); k != doc.end() && k->is_number_integer()) r.rank = k->get<int>();
  return r;
}

}  // namespace opcert
