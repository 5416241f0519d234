#include "model/case_result_json.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "model/json_field.h"

namespace opcert {
namespace {

using nlohmann::json;

// A number as number_to_json writes it (a non-finite one as its text); `path` names it otherwise.
double number_from(const json& j, const char* path) {
  std::optional<double> value;
  try {
    value = number_from_json(j);
  } catch (const std::invalid_argument&) {
  }
  if (!value) throw JsonFieldError(path, json_mismatch("a number", j));
  return *value;
}

const json& field(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) throw JsonFieldError(name, "missing");
  return *it;
}

// An integer field, refused unless the JSON holds an integer in range: a fractional or huge number
// converted would be undefined behaviour (found by fuzzing results.jsonl).
template <class Int>
Int integer_field(const json& j, const char* name) {
  return json_field<Int>(j, name);
}

json rounding_json(const RoundingMetrics& r) {
  return {{"decisive", r.decisive},
          {"misrounded", r.misrounded},
          {"bias_elements", r.bias_elements},
          {"bias_ulp", number_to_json(r.bias_ulp)},
          {"bias_direction", r.bias_direction},
          {"bias_z", number_to_json(r.bias_z)},
          {"bias_batches", r.bias_batches},
          {"bias_confidence", number_to_json(1.0 - r.bias_chance())},
          {"biased", r.biased},
          {"worst_misrounded_ulp", r.worst_misrounded_ulp},
          {"worst_misrounded_exact_ulp", number_to_json(r.worst_misrounded_exact_ulp)}};
}

RoundingMetrics rounding_from(const json& j) {
  RoundingMetrics r;
  r.decisive = integer_field<int64_t>(j, "decisive");
  r.misrounded = integer_field<int64_t>(j, "misrounded");
  r.bias_elements = integer_field<int64_t>(j, "bias_elements");
  r.bias_ulp = number_from(field(j, "bias_ulp"), "bias_ulp");
  r.bias_direction = json_field<std::string>(j, "bias_direction");
  r.bias_z = number_from(field(j, "bias_z"), "bias_z");  // bias_confidence follows from it
  if (j.contains("bias_batches")) r.bias_batches = integer_field<int64_t>(j, "bias_batches");  // since 2.5
  r.biased = json_field<bool>(j, "biased");
  if (j.contains("worst_misrounded_ulp")) {  // since 2.7
    r.worst_misrounded_ulp = integer_field<int64_t>(j, "worst_misrounded_ulp");
    r.worst_misrounded_exact_ulp = number_from(field(j, "worst_misrounded_exact_ulp"), "worst_misrounded_exact_ulp");
  }
  return r;
}

json metrics_json(const TensorMetrics& m) {
  json j = {{"name", m.name},
          {"checked", m.checked},
          {"total", m.total},
          {"mismatches", m.mismatches},
          {"nan_inf_mismatches", m.nan_inf_mismatches},
          {"max_abs", number_to_json(m.max_abs)},
          {"max_rel", number_to_json(m.max_rel)},
          {"mean_abs", number_to_json(m.mean_abs)},
          {"rmse", number_to_json(m.rmse)},
          {"cosine", number_to_json(m.cosine)},
          {"max_ulp", m.max_ulp},
          {"error_ratio", number_to_json(m.error_ratio)},
          {"bound_rms", number_to_json(m.bound_rms)},
          {"zero_fraction", number_to_json(m.zero_fraction)},
          {"worst",
           {{"index", m.worst.index},
            {"got", number_to_json(m.worst.got)},
            {"expected", number_to_json(m.worst.expected)},
            {"bound", number_to_json(m.worst.bound)}}},
          {"rounding", rounding_json(m.rounding)}};
  if (m.empty) j["empty"] = true;  // since schema 2.7
  return j;
}

TensorMetrics metrics_from(const json& j) {
  TensorMetrics m;
  m.name = json_field<std::string>(j, "name");
  m.checked = integer_field<int64_t>(j, "checked");
  m.total = integer_field<int64_t>(j, "total");
  m.mismatches = integer_field<int64_t>(j, "mismatches");
  m.nan_inf_mismatches = integer_field<int64_t>(j, "nan_inf_mismatches");
  m.max_abs = number_from(field(j, "max_abs"), "max_abs");
  m.max_rel = number_from(field(j, "max_rel"), "max_rel");
  m.mean_abs = number_from(field(j, "mean_abs"), "mean_abs");
  m.rmse = number_from(field(j, "rmse"), "rmse");
  m.cosine = number_from(field(j, "cosine"), "cosine");
  m.max_ulp = integer_field<int64_t>(j, "max_ulp");
  m.error_ratio = number_from(field(j, "error_ratio"), "error_ratio");
  m.zero_fraction = number_from(field(j, "zero_fraction"), "zero_fraction");
  if (j.contains("bound_rms")) m.bound_rms = number_from(field(j, "bound_rms"), "bound_rms");  // since 2.7
  const json& w = field(j, "worst");
  m.worst.index = json_within("worst", [&] { return integer_field<int64_t>(w, "index"); });
  m.worst.got = number_from(field(w, "got"), "worst.got");
  m.worst.expected = number_from(field(w, "expected"), "worst.expected");
  m.worst.bound = number_from(field(w, "bound"), "worst.bound");
  if (auto it = j.find("rounding"); it != j.end()) m.rounding = json_within("rounding", [&] { return rounding_from(*it); });  // since schema 2.4
  if (j.contains("empty")) m.empty = json_field<bool>(j, "empty");  // since schema 2.7
  return m;
}

// The phases by their names in the report (reports/schema/report.schema.json, #/$defs/phases).
constexpr std::pair<const char*, double PhaseTimes::*> kPhaseFields[] = {
    {"generate", &PhaseTimes::generate}, {"copy", &PhaseTimes::copy},       {"launch", &PhaseTimes::launch},
    {"reference", &PhaseTimes::reference}, {"check", &PhaseTimes::check},   {"worker", &PhaseTimes::worker},
    {"startup", &PhaseTimes::startup},   {"ipc", &PhaseTimes::ipc}};

json phases_json(const PhaseTimes& p) {
  json j = json::object();
  for (const auto& [name, member] : kPhaseFields) j[name] = p.*member;
  return j;
}

PhaseTimes phases_from(const json& j) {
  if (!j.is_object()) throw JsonFieldError("phases", json_mismatch("an object", j));
  PhaseTimes p;
  // Not a structured binding: clang 14 (the asan tree) cannot capture one in a lambda.
  for (const auto& phase : kPhaseFields) {
    const char* name = phase.first;
    p.*phase.second = json_within("phases", [&] {
      const double seconds = number_from(field(j, name), name);
      if (!std::isfinite(seconds) || seconds < 0.0) throw JsonFieldError(name, "expected seconds: a number, at least 0");
      return seconds;
    });
  }
  return p;
}

}  // namespace

json to_json(const CaseResult& r) {
  json metrics = json::array();
  for (const auto& m : r.metrics) metrics.push_back(metrics_json(m));
  json j = {{"backend", r.backend},
            {"impl", r.impl_key},
            {"suite", r.suite},
            {"case", r.case_id},
            {"op", r.op},
            {"dtype", r.dtype},
            {"status", std::string(status_name(r.status))},
            {"message", r.message},
            {"metrics", metrics},
            {"sampled", r.sampled},
            {"out_of_bounds_write", r.out_of_bounds_write},
            {"duration_ms", r.duration_ms},
            {"repro", r.repro}};
  j["peer_rmse"] = r.peer_rmse ? number_to_json(*r.peer_rmse) : json(nullptr);
  j["alignment_ratio"] = r.alignment_ratio ? number_to_json(*r.alignment_ratio) : json(nullptr);
  if (!r.skip_reason.empty()) j["skip_reason"] = r.skip_reason;
  if (r.rank) j["rank"] = *r.rank;
  if (r.device) j["device"] = device_tag_json(*r.device);
  if (r.phases) j["phases"] = phases_json(*r.phases);  // since schema 2.8
  return j;
}

json device_tag_json(const DeviceTag& device) {
  const auto known = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };  // null: unknown
  return {{"index", device.index},        {"name", device.name},
          {"host", device.host},          {"uuid", known(device.uuid)},  // since 2.10
          {"pci_bus_id", known(device.pci_bus_id)}};
}

DeviceTag device_tag_from_json(const json& doc) {
  if (!doc.is_object()) throw JsonFieldError("device", json_mismatch("an object", doc));
  return DeviceTag{integer_field<int>(doc, "index"), json_field<std::string>(doc, "name"), json_field<std::string>(doc, "host"),
                   json_field_or<std::string>(doc, "uuid", ""), json_field_or<std::string>(doc, "pci_bus_id", "")};  // none before 2.10
}

CaseResult case_result_from_json(const json& j) {
  if (!j.is_object()) throw std::runtime_error("a result must be a JSON object");
  CaseResult r;
  r.backend = json_field<std::string>(j, "backend");
  r.impl_key = json_field<std::string>(j, "impl");
  r.suite = json_field<std::string>(j, "suite");
  r.case_id = json_field<std::string>(j, "case");
  r.op = json_field<std::string>(j, "op");
  r.dtype = json_field<std::string>(j, "dtype");
  const auto status = parse_status(json_field<std::string>(j, "status"));
  if (!status) throw JsonFieldError("status", "not a status opcert knows");
  r.status = *status;
  r.message = json_field<std::string>(j, "message");
  const json& metrics = field(j, "metrics");
  if (!metrics.is_array()) throw JsonFieldError("metrics", json_mismatch("an array", metrics));
  for (std::size_t i = 0; i < metrics.size(); ++i)
    r.metrics.push_back(json_within("metrics[" + std::to_string(i) + "]", [&] { return metrics_from(metrics[i]); }));
  r.sampled = json_field<bool>(j, "sampled");
  r.out_of_bounds_write = json_field<bool>(j, "out_of_bounds_write");
  r.duration_ms = number_from(field(j, "duration_ms"), "duration_ms");
  r.repro = json_field<std::string>(j, "repro");
  if (auto it = j.find("peer_rmse"); it != j.end() && !it->is_null()) r.peer_rmse = number_from(*it, "peer_rmse");
  if (auto it = j.find("alignment_ratio"); it != j.end() && !it->is_null())
    r.alignment_ratio = number_from(*it, "alignment_ratio");
  if (auto it = j.find("skip_reason"); it != j.end() && it->is_string()) r.skip_reason = it->get<std::string>();
  if (auto it = j.find("rank"); it != j.end() && !it->is_null()) r.rank = integer_field<int>(j, "rank");
  if (auto it = j.find("device"); it != j.end() && !it->is_null()) {
    r.device = device_tag_from_json(*it);
  }
  if (auto it = j.find("phases"); it != j.end() && !it->is_null()) r.phases = phases_from(*it);  // since 2.8
  return r;
}

std::optional<double> number_from_json(const json& value) {
  if (value.is_null()) return std::nullopt;
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const auto text = value.get<std::string>();
    if (text == "nan") return std::nan("");
    if (text == "inf") return INFINITY;
    if (text == "-inf") return -INFINITY;
  }
  throw std::invalid_argument("not a number: " + value.dump());
}

json number_to_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

}  // namespace opcert
