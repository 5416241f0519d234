#include "bench/bench_protocol.h"

#include <stdexcept>

#include "model/case_result_json.h"

namespace opcert {
namespace {

using nlohmann::json;

// Reads `name` of `doc` as T, saying which field is wrong when it is missing or mistyped.
template <class T>
T field(const json& doc, const char* name) {
  const auto it = doc.find(name);
  if (it == doc.end()) throw std::runtime_error(std::string("bench field '") + name + "' is missing");
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw std::runtime_error(std::string("bench field '") + name + "' has the wrong type: " + it->dump());
  }
}

// A double, exactly, NaN and the infinities included (JSON has no words for them).
double number_field(const json& doc, const char* name) {
  try {
    return number_from_json(field<json>(doc, name)).value();
  } catch (const std::exception&) {
    throw std::runtime_error(std::string("bench field '") + name + "' is not a number");
  }
}

json counters_json(const std::map<std::string, double>& counters) {
  json j = json::object();
  for (const auto& [name, value] : counters) j[name] = number_to_json(value);
  return j;
}

std::map<std::string, double> counters_from(const json& doc) {
  const json counters_doc = field<json>(doc, "counters");
  std::map<std::string, double> counters;
  for (const auto& item : counters_doc.items()) counters[item.key()] = number_field(counters_doc, item.key().c_str());
  return counters;
}

template <class T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <class T>
std::optional<T> optional_field(const json& doc, const char* name) {
  const json value = field<json>(doc, name);
  if (value.is_null()) return std::nullopt;
  return field<T>(doc, name);
}

json reading_json(const std::optional<GpuReading>& r) {
  if (!r) return nullptr;
  return {{"sm_clock_mhz", optional_json(r->sm_clock_mhz)},
          {"memory_clock_mhz", optional_json(r->memory_clock_mhz)},
          {"power_w", optional_json(r->power_w)},
          {"temperature_c", optional_json(r->temperature_c)},
          {"clock_reasons", optional_json(r->clock_reasons)}};
}

std::optional<GpuReading> reading_from(const json& doc) {
  if (doc.is_null()) return std::nullopt;
  return GpuReading{optional_field<uint32_t>(doc, "sm_clock_mhz"), optional_field<uint32_t>(doc, "memory_clock_mhz"),
                    optional_field<double>(doc, "power_w"), optional_field<uint32_t>(doc, "temperature_c"),
                    optional_field<uint64_t>(doc, "clock_reasons")};
}

json sampling_json(const std::optional<Sampling>& s) {
  if (!s) return nullptr;
  return {{"samples", s->samples},
          {"noise", number_to_json(s->noise)},
          {"batches", s->batches},
          {"throttled_batches", s->throttled_batches},
          {"stopped_by", s->stopped_by},
          {"elapsed_s", number_to_json(s->elapsed_s)},
          {"host_share", s->host_share ? number_to_json(*s->host_share) : json(nullptr)},
          {"start", reading_json(s->conditions.start)},
          {"end", reading_json(s->conditions.end)}};
}

std::optional<Sampling> sampling_from(const json& doc) {
  if (doc.is_null()) return std::nullopt;
  Sampling s;
  s.samples = field<int64_t>(doc, "samples");
  s.noise = number_field(doc, "noise");
  s.batches = field<int64_t>(doc, "batches");
  s.throttled_batches = field<int64_t>(doc, "throttled_batches");
  s.stopped_by = field<std::string>(doc, "stopped_by");
  s.elapsed_s = number_field(doc, "elapsed_s");
  if (const auto h = doc.find("host_share"); h != doc.end() && !h->is_null()) s.host_share = number_field(doc, "host_share");
  s.conditions.start = reading_from(field<json>(doc, "start"));
  s.conditions.end = reading_from(field<json>(doc, "end"));
  return s;
}

json run_json(const BenchRun& r) {
  return {{"name", r.name},
          {"run_name", r.run_name},
          {"aggregate", r.aggregate},
          {"aggregate_is_percentage", r.aggregate_is_percentage},
          {"family_index", r.family_index},
          {"per_family_instance_index", r.per_family_instance_index},
          {"repetitions", r.repetitions},
          {"repetition_index", r.repetition_index},
          {"threads", r.threads},
          {"iterations", r.iterations},
          {"seconds", number_to_json(r.seconds)},
          {"cpu_seconds", number_to_json(r.cpu_seconds)},
          {"error", r.error},
          {"counters", counters_json(r.counters)},
          {"sampling", sampling_json(r.sampling)}};
}

BenchRun run_from(const json& doc) {
  BenchRun r;
  r.name = field<std::string>(doc, "name");
  r.run_name = field<std::string>(doc, "run_name");
  r.aggregate = field<std::string>(doc, "aggregate");
  r.aggregate_is_percentage = field<bool>(doc, "aggregate_is_percentage");
  r.family_index = field<int64_t>(doc, "family_index");
  r.per_family_instance_index = field<int64_t>(doc, "per_family_instance_index");
  r.repetitions = field<int64_t>(doc, "repetitions");
  r.repetition_index = field<int64_t>(doc, "repetition_index");
  r.threads = field<int64_t>(doc, "threads");
  r.iterations = field<int64_t>(doc, "iterations");
  r.seconds = number_field(doc, "seconds");
  r.cpu_seconds = number_field(doc, "cpu_seconds");
  r.error = field<std::string>(doc, "error");
  r.counters = counters_from(doc);
  r.sampling = sampling_from(field<json>(doc, "sampling"));
  return r;
}

}  // namespace

json bench_worker_settings_json(const BenchWorkerSettings& s) {
  const SamplingPolicy& p = s.sampling;
  return {{"sampling",
           {{"min_time_s", p.min_time_s},
            {"fixed_samples", optional_json(p.fixed_samples)},
            {"max_noise", p.max_noise},
            {"max_time_s", p.max_time_s},
            {"min_samples", p.min_samples},
            {"warmup_s", p.warmup_s},
            {"warmup_launches", p.warmup_launches}}},
          {"cold_l2", s.cold_l2},
          {"benchmark_flags", s.benchmark_flags}};
}

BenchWorkerSettings bench_worker_settings_from_json(const json& doc) {
  BenchWorkerSettings s;
  const json sampling = field<json>(doc, "sampling");
  s.sampling.min_time_s = field<double>(sampling, "min_time_s");
  s.sampling.fixed_samples = optional_field<int64_t>(sampling, "fixed_samples");
  s.sampling.max_noise = field<double>(sampling, "max_noise");
  s.sampling.max_time_s = field<double>(sampling, "max_time_s");
  s.sampling.min_samples = field<int64_t>(sampling, "min_samples");
  s.sampling.warmup_s = field<double>(sampling, "warmup_s");
  s.sampling.warmup_launches = field<int64_t>(sampling, "warmup_launches");
  s.cold_l2 = field<bool>(doc, "cold_l2");
  s.benchmark_flags = field<std::vector<std::string>>(doc, "benchmark_flags");
  return s;
}

json bench_request_json(const BenchRequest& r) {
  return {{"copy_baseline", r.copy_baseline},
          {"platform", r.platform},
          {"peer_mean_s", r.peer_mean_s},
          {"copy_mean_s", r.copy_mean_s},
          {"support_only", r.support_only}};
}

BenchRequest bench_request_from_json(const json& doc) {
  return {field<bool>(doc, "copy_baseline"), field<std::string>(doc, "platform"), field<double>(doc, "peer_mean_s"),
          field<double>(doc, "copy_mean_s"), field<bool>(doc, "support_only")};
}

json bench_measurement_json(const BenchMeasurement& m) {
  json runs = json::array();
  for (const BenchRun& r : m.runs) runs.push_back(run_json(r));
  return {{"checked", m.checked},
          {"error", m.error},
          {"timing_method", m.timing_method},
          {"library_call", m.library_call},
          {"published_bytes", m.published_bytes},
          {"latest_mean_s", number_to_json(m.latest_mean_s)},
          {"runs", runs},
          {"conditions", m.conditions}};
}

BenchMeasurement bench_measurement_from_json(const json& doc) {
  if (!doc.is_object()) throw std::runtime_error("the bench measurement is not a JSON object");
  BenchMeasurement m;
  m.checked = field<bool>(doc, "checked");
  m.error = field<std::string>(doc, "error");
  m.timing_method = field<std::string>(doc, "timing_method");
  m.library_call = field<std::string>(doc, "library_call");
  m.published_bytes = field<uint64_t>(doc, "published_bytes");
  m.latest_mean_s = number_field(doc, "latest_mean_s");
  for (const json& r : field<json>(doc, "runs")) m.runs.push_back(run_from(r));
  m.conditions = field<json>(doc, "conditions");
  return m;
}

}  // namespace opcert
