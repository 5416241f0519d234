#include "model/case_result_json.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace opcert {
namespace {

using nlohmann::json;

double number_from(const json& j, const char* field) {
  std::optional<double> value;
  try {
    value = number_from_json(j);
  } catch (const std::invalid_argument&) {
  }
  if (!value) throw std::runtime_error(std::string("result field '") + field + "' is not a number");
  return *value;
}

const json& field(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) throw std::runtime_error(std::string("result has no field '") + name + "'");
  return *it;
}

// An integer field, refused unless the JSON holds an integer in range: a fractional or huge number
// converted would be undefined behaviour (found by fuzzing results.jsonl).
template <class Int>
Int integer_field(const json& j, const char* name) {
  const json& v = field(j, name);
  if (v.is_number_unsigned() && v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<Int>::max()))
    return static_cast<Int>(v.get<uint64_t>());
  if (v.is_number_integer() && !v.is_number_unsigned()) {
    const int64_t i = v.get<int64_t>();
    if (i >= static_cast<int64_t>(std::numeric_limits<Int>::min()) && i <= static_cast<int64_t>(std::numeric_limits<Int>::max()))
      return static_cast<Int>(i);
  }
  throw std::runtime_error(std::string("result field '") + name + "' is not an integer in range");
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
          {"biased", r.biased}};
}

RoundingMetrics rounding_from(const json& j) {
  RoundingMetrics r;
  r.decisive = integer_field<int64_t>(j, "decisive");
  r.misrounded = integer_field<int64_t>(j, "misrounded");
  r.bias_elements = integer_field<int64_t>(j, "bias_elements");
  r.bias_ulp = number_from(field(j, "bias_ulp"), "rounding.bias_ulp");
  r.bias_direction = field(j, "bias_direction").get<std::string>();
  r.bias_z = number_from(field(j, "bias_z"), "rounding.bias_z");  // bias_confidence follows from it
  if (j.contains("bias_batches")) r.bias_batches = integer_field<int64_t>(j, "bias_batches");  // since 2.5
  r.biased = field(j, "biased").get<bool>();
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
  m.name = field(j, "name").get<std::string>();
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
  const json& w = field(j, "worst");
  m.worst.index = integer_field<int64_t>(w, "index");
  m.worst.got = number_from(field(w, "got"), "worst.got");
  m.worst.expected = number_from(field(w, "expected"), "worst.expected");
  m.worst.bound = number_from(field(w, "bound"), "worst.bound");
  if (auto it = j.find("rounding"); it != j.end()) m.rounding = rounding_from(*it);  // since schema 2.4
  if (auto it = j.find("empty"); it != j.end()) m.empty = it->get<bool>();           // since schema 2.7
  return m;
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
  if (r.rank) j["rank"] = *r.rank;
  if (r.device) j["device"] = {{"index", r.device->index}, {"name", r.device->name}, {"host", r.device->host}};
  return j;
}

CaseResult case_result_from_json(const json& j) {
  if (!j.is_object()) throw std::runtime_error("a result must be a JSON object");
  CaseResult r;
  r.backend = field(j, "backend").get<std::string>();
  r.impl_key = field(j, "impl").get<std::string>();
  r.suite = field(j, "suite").get<std::string>();
  r.case_id = field(j, "case").get<std::string>();
  r.op = field(j, "op").get<std::string>();
  r.dtype = field(j, "dtype").get<std::string>();
  const auto status = parse_status(field(j, "status").get<std::string>());
  if (!status) throw std::runtime_error("result has an unknown status");
  r.status = *status;
  r.message = field(j, "message").get<std::string>();
  for (const auto& m : field(j, "metrics")) r.metrics.push_back(metrics_from(m));
  r.sampled = field(j, "sampled").get<bool>();
  r.out_of_bounds_write = field(j, "out_of_bounds_write").get<bool>();
  r.duration_ms = number_from(field(j, "duration_ms"), "duration_ms");
  r.repro = field(j, "repro").get<std::string>();
  if (auto it = j.find("peer_rmse"); it != j.end() && !it->is_null()) r.peer_rmse = number_from(*it, "peer_rmse");
  if (auto it = j.find("alignment_ratio"); it != j.end() && !it->is_null())
    r.alignment_ratio = number_from(*it, "alignment_ratio");
  if (auto it = j.find("rank"); it != j.end() && !it->is_null()) r.rank = integer_field<int>(j, "rank");
  if (auto it = j.find("device"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) throw std::runtime_error("result field 'device' is not an object");
    r.device = DeviceTag{integer_field<int>(*it, "index"), field(*it, "name").get<std::string>(),
                         field(*it, "host").get<std::string>()};
  }
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
