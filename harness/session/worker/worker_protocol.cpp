#include "session/worker/worker_protocol.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

#include "model/case_result_json.h"

namespace opcert {
namespace {

using nlohmann::json;

json parse_object(const std::string& line, const char* what) {
  json doc = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    throw std::runtime_error(std::string(what) + " is not a JSON object: '" + line.substr(0, 200) + "'");
  return doc;
}

std::string string_field(const json& doc, const char* name, const char* what) {
  const auto it = doc.find(name);
  if (it == doc.end() || !it->is_string())
    throw std::runtime_error(std::string(what) + " has no string field '" + name + "'");
  return it->get<std::string>();
}

}  // namespace

std::string encode_job(const JobRequest& job) {
  json doc{{"case", job.case_id}, {"impl", job.impl_key}};
  if (!job.bench.is_null()) doc["bench"] = job.bench;
  return doc.dump() + "\n";
}

std::string encode_hello(const WorkerHello& hello) {
  json doc{{"opcert_worker", kWorkerProtocolVersion}};
  if (!hello.fatal.empty()) {
    doc["fatal"] = hello.fatal;
  } else {
    doc["backend"] = hello.backend;
    doc["cases"] = hello.cases;
  }
  return doc.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string encode_result(const CaseResult& result) { return encode_answer({result, nullptr}); }

std::string encode_answer(const WorkerAnswer& answer) {
  json doc = to_json(answer.result);
  if (!answer.bench.is_null()) doc["bench"] = answer.bench;
  // Backend messages may hold bytes that are not UTF-8; replace them rather than fail the case.
  return doc.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string encode_phase_mark(bool backend) {
  return backend ? "{\"phase\":\"backend\"}\n" : "{\"phase\":\"harness\"}\n";
}

std::optional<bool> decode_phase_mark(const std::string& line) {
  // Exact lines only: a result is an object with other fields, never one of these.
  std::string_view text(line);
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (text == R"({"phase":"backend"})") return true;
  if (text == R"({"phase":"harness"})") return false;
  return std::nullopt;
}

JobRequest decode_job(const std::string& line) {
  const json doc = parse_object(line, "job");
  JobRequest job{string_field(doc, "case", "job"), string_field(doc, "impl", "job"), nullptr};
  if (const auto bench = doc.find("bench"); bench != doc.end()) {
    if (!bench->is_object()) throw std::runtime_error("job has a 'bench' field that is not an object");
    job.bench = *bench;
  }
  return job;
}

WorkerHello decode_hello(const std::string& line) {
  const json doc = parse_object(line, "worker greeting");
  const auto version = doc.find("opcert_worker");
  if (version == doc.end() || !version->is_number_integer())
    throw std::runtime_error("worker greeting has no 'opcert_worker' version: '" + line.substr(0, 200) + "'");
  if (version->get<int>() != kWorkerProtocolVersion)
    throw std::runtime_error("worker speaks protocol " + std::to_string(version->get<int>()) + ", the runner " +
                             std::to_string(kWorkerProtocolVersion));
  WorkerHello hello;
  if (doc.contains("fatal")) {
    hello.fatal = string_field(doc, "fatal", "worker greeting");
    if (hello.fatal.empty()) hello.fatal = "the worker failed without saying why";
    return hello;
  }
  hello.backend = string_field(doc, "backend", "worker greeting");
  const auto cases = doc.find("cases");
  if (cases == doc.end() || !cases->is_number_integer())
    throw std::runtime_error("worker greeting has no integer field 'cases'");
  hello.cases = cases->get<int64_t>();
  return hello;
}

CaseResult decode_result(const std::string& line) { return decode_answer(line).result; }

WorkerAnswer decode_answer(const std::string& line) {
  const json doc = parse_object(line, "worker result");
  WorkerAnswer answer{case_result_from_json(doc), nullptr};
  if (const auto bench = doc.find("bench"); bench != doc.end()) answer.bench = *bench;
  return answer;
}

}  // namespace opcert
