#include "bench/bench_resume.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "model/case_result_json.h"
#include "model/input_error.h"
#include "reports/bench_record_json.h"
#include "reports/file_sinks.h"
#include "reports/jsonl_lines.h"
#include "reports/report_writer.h"
#include "reports/results_jsonl.h"
#include "session/job/job_record.h"

namespace opcert {
namespace {

// The lines of a .jsonl file of an earlier sitting, each a JSON object; none when it is absent.
std::vector<JsonlLine> object_lines(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  std::vector<JsonlLine> lines;
  try {
    lines = read_jsonl_lines(path);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("--resume: {}; not a file opcert wrote", e.what()));
  }
  for (const JsonlLine& l : lines)
    if (!l.doc.is_object())
      throw InputError(fmt::format("--resume: {}:{}: not a JSON object; not a file opcert wrote", path.string(), l.number));
  return lines;
}

// The device index a line names, when the jobs were placed on devices (each); nullopt otherwise.
std::optional<int> device_of_line(const nlohmann::json& doc, bool by_device) {
  if (!by_device) return std::nullopt;
  const auto it = doc.find("device");
  if (it == doc.end() || !it->is_object()) return std::nullopt;
  return it->value("index", -1);
}

std::string identity_of_result_line(const nlohmann::json& doc, bool by_device) {
  return result_identity(doc.value("backend", ""), doc.value("impl", ""), doc.value("case", ""),
                         device_of_line(doc, by_device));
}

std::string key_of(const std::string& name, std::optional<int> device) {
  return device ? fmt::format("{}\n{}", name, *device) : name;
}

std::optional<int> placed_device(const BenchJob& job) {
  return job.device ? std::optional(job.device->index) : std::nullopt;
}

}  // namespace

void rewrite_kept_files(const std::filesystem::path& out_dir, const KeptBenchmarks& kept) {
  write_file_atomically(out_dir / kMeasurementsJsonlFileName, kept.measurements_text);
  write_file_atomically(out_dir / ResultsJsonl::kFileName, kept.results_text);
}

std::string check_identity(const BenchJob& job) {
  return result_identity(job.backend->name(), job.impl_key, job.test_case->id, placed_device(job));
}

std::string kept_key(const BenchJob& job) { return key_of(job.name, placed_device(job)); }

KeptBenchmarks kept_benchmarks(const std::filesystem::path& out_dir, const std::vector<BenchJob>& jobs) {
  KeptBenchmarks kept;
  const bool by_device = std::any_of(jobs.begin(), jobs.end(), [](const BenchJob& j) { return j.device.has_value(); });
  // The last line of a name or identity wins: a case cut short and measured again is written twice.
  std::map<std::string, const JsonlLine*> records;
  const std::vector<JsonlLine> measurement_lines = object_lines(out_dir / kMeasurementsJsonlFileName);
  for (const JsonlLine& l : measurement_lines) records[key_of(l.doc.value("name", ""), device_of_line(l.doc, by_device))] = &l;
  std::map<std::string, const JsonlLine*> results;
  std::vector<std::string> result_order;  // first appearance, for a stable rewrite
  const std::vector<JsonlLine> result_lines = object_lines(out_dir / ResultsJsonl::kFileName);
  for (const JsonlLine& l : result_lines) {
    const std::string id = identity_of_result_line(l.doc, by_device);
    if (!results.contains(id)) result_order.push_back(id);
    results[id] = &l;
  }

  // A case is kept when every one of its benchmarks was recorded, each check included.
  // Each: a case of one device.
  std::map<std::pair<const Case*, int>, bool> whole;
  const auto unit = [](const BenchJob& j) { return std::make_pair(j.test_case, placed_device(j).value_or(-1)); };
  for (const BenchJob& j : jobs) {
    bool& w = whole.try_emplace(unit(j), true).first->second;
    w = w && records.contains(kept_key(j)) && (j.copy_baseline || results.contains(check_identity(j)));
  }
  try {
    for (const BenchJob& j : jobs) {
      if (!whole.at(unit(j))) continue;
      const JsonlLine& record = *records.at(kept_key(j));
      kept.records.emplace(kept_key(j), bench_record_from_json(record.doc));
      kept.measurements_text += record.text + "\n";
      if (j.copy_baseline) continue;
      kept.checks.emplace(check_identity(j), case_result_from_json(results.at(check_identity(j))->doc));
      kept.results_kept.insert(check_identity(j));
    }
  } catch (const std::exception& e) {
    throw InputError(fmt::format("--resume '{}': a measurement or result cannot be read back: {}", out_dir.string(), e.what()));
  }
  // The skips (unsupported, too big) are not kept: each sitting judges them afresh (free memory
  // may differ), and writes them again.
  for (const std::string& id : result_order)
    if (kept.results_kept.contains(id)) kept.results_text += results.at(id)->text + "\n";
  for (const auto& [c, w] : whole) kept.cases += w ? 1 : 0;
  return kept;
}

}  // namespace opcert
