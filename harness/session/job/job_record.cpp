#include "session/job/job_record.h"

#include <fmt/format.h>

#include "loader/file_digest.h"
#include "model/input_error.h"
#include "model/strict_json.h"
#include "model/text_file.h"
#include "reports/report_writer.h"

namespace opcert {
namespace {

std::string fingerprint_of(const nlohmann::json& fields) {
  const std::string canonical = fields.dump();  // nlohmann orders object keys: one text per value
  return sha256_hex(canonical);
}

std::string shown(const nlohmann::json& value) {
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  if (text.empty()) text = "(none)";
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

}  // namespace

nlohmann::json platform_config_digests(const SessionSettings& s) {
  nlohmann::json configs = nlohmann::json::array();
  if (s.platforms != nullptr)
    for (const auto& file : s.platforms->merged_files())
      configs.push_back(sha256_hex(file.text));
  return configs;
}

JobRecord job_record(const RunReport& header, const SessionSettings& s, const nlohmann::json& verb_fields) {
  nlohmann::json backends = nlohmann::json::array();
  for (const BackendRecord& b : header.backends)
    backends.push_back({{"name", b.name}, {"version", b.version}, {"source", b.source}, {"sha256", b.sha256},
                        {"peer", b.peer}});
  const auto golden = s.environment.libraries.find("golden_set");
  JobRecord job;
  job.fields = {{"kind", header.kind},
                {"opcert_version", s.environment.opcert_version},
                {"git_commit", s.environment.git_commit},
                {"suite", {{"name", header.suite}, {"sha256", header.suite_sha256}}},
                {"seed", header.seed},
                {"filter", s.filter},
                {"implementations", s.impl_selection},
                {"platform", s.platform},
                {"platform_configs", platform_config_digests(s)},
                {"peer", s.peer},
                {"golden_set", golden == s.environment.libraries.end() ? "" : golden->get<std::string>()},
                {"backends", backends},
                {"verb", verb_fields}};
  job.fingerprint = fingerprint_of(job.fields);
  job.started_at = header.started_at;
  job.run_id = header.run_id;
  return job;
}

void write_job_record(const std::filesystem::path& dir, const JobRecord& job) {
  const nlohmann::json doc = {{"kind", "opcert-job"},
                              {"schema_version", "1.0"},
                              {"fingerprint", job.fingerprint},
                              {"started_at", job.started_at},
                              {"run_id", job.run_id},
                              {"job", job.fields}};
  write_file_atomically(dir / kJobFileName, doc.dump(2) + "\n");
}

std::optional<JobRecord> read_job_record(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kJobFileName;
  const std::optional<std::string> text = read_text_file(path);
  if (!text) return std::nullopt;
  const auto fail = [&](const std::string& why) {
    return InputError(fmt::format("{}: {}; it is not the job file of an opcert run: start afresh with --out", path.string(), why));
  };
  nlohmann::json doc;
  try {
    doc = parse_strict_json(*text, path.string());
  } catch (const std::exception& e) {
    throw fail(e.what());
  }
  // (value() would throw on a "kind" that is not a string: the type is checked first)
  const auto kind = doc.is_object() ? doc.find("kind") : doc.end();
  if (kind == doc.end() || !kind->is_string() || *kind != "opcert-job") throw fail("kind is not \"opcert-job\"");
  if (!doc.contains("job") || !doc.contains("fingerprint") || !doc["fingerprint"].is_string() ||
      !doc.contains("started_at") || !doc["started_at"].is_string())
    throw fail("job, fingerprint or started_at is missing");
  JobRecord job{doc["job"], doc["fingerprint"].get<std::string>(), doc["started_at"].get<std::string>(),
                doc.contains("run_id") && doc["run_id"].is_string() ? doc["run_id"].get<std::string>() : ""};
  if (fingerprint_of(job.fields) != job.fingerprint) throw fail("its fingerprint does not match its fields (edited?)");
  return job;
}

std::string result_identity(const std::string& backend, const std::string& impl_key, const std::string& case_id,
                            std::optional<int> device) {
  return fmt::format("{}\n{}\n{}\n{}", backend, impl_key, case_id, device ? *device : -1);
}

std::string job_difference(const JobRecord& resumed, const JobRecord& now) {
  if (resumed.fingerprint == now.fingerprint) return "";
  for (const auto& [key, value] : now.fields.items()) {
    const auto there = resumed.fields.find(key);
    const nlohmann::json old = there == resumed.fields.end() ? nlohmann::json() : *there;
    if (old != value) return fmt::format("{}: {} here, {} in the run being resumed", key, shown(value), shown(old));
  }
  return "the job's fields differ";
}

std::optional<JobRecord> job_to_resume(const std::filesystem::path& dir, const JobRecord& now,
                                       const std::string& data_file, const std::string& data, const std::string& verb) {
  std::optional<JobRecord> earlier = read_job_record(dir);
  if (!earlier) {
    std::error_code ec;
    if (std::filesystem::file_size(dir / data_file, ec) > 0 && !ec)
      throw InputError(fmt::format("--resume '{}': it holds {} but no {}: not a {} opcert can resume (one from an older "
                                   "opcert, or not a {} folder); start afresh with --out",
                                   dir.string(), data, kJobFileName, verb, verb));
    return std::nullopt;  // nothing ran yet: a fresh start
  }
  if (const std::string why = job_difference(*earlier, now); !why.empty())
    throw InputError(fmt::format("--resume '{}': not the same job: {}; rerun with the arguments it was started with, or "
                                 "start afresh with --out",
                                 dir.string(), why));
  return earlier;
}

}  // namespace opcert
