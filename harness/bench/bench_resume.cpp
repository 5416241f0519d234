#include "bench/bench_resume.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

std::string identity_of_result_line(const nlohmann::json& doc) {
  return result_identity(doc.value("backend", ""), doc.value("impl", ""), doc.value("case", ""), std::nullopt);
}

}  // namespace

void rewrite_kept_files(const std::filesystem::path& out_dir, const KeptBenchmarks& kept) {
  write_file_atomically(out_dir / kMeasurementsJsonlFileName, kept.measurements_text);
  write_file_atomically(out_dir / ResultsJsonl::kFileName, kept.results_text);
}

std::string check_identity(const BenchJob& job) {
  return result_identity(job.backend->name(), job.impl_key, job.test_case->id, std::nullopt);
}

KeptBenchmarks kept_benchmarks(const std::filesystem::path& out_dir, const std::vector<BenchJob>& jobs) {
  KeptBenchmarks kept;
  // The last line of a name or identity wins: a case cut short and measured again is written twice.
  std::map<std::string, const JsonlLine*> records;
  const std::vector<JsonlLine> measurement_lines = object_lines(out_dir / kMeasurementsJsonlFileName);
  for (const JsonlLine& l : measurement_lines) records[l.doc.value("name", "")] = &l;
  std::map<std::string, const JsonlLine*> results;
  std::vector<std::string> result_order;  // first appearance, for a stable rewrite
  const std::vector<JsonlLine> result_lines = object_lines(out_dir / ResultsJsonl::kFileName);
  for (const JsonlLine& l : result_lines) {
    const std::string id = identity_of_result_line(l.doc);
    if (!results.contains(id)) result_order.push_back(id);
    results[id] = &l;
  }

  // A case is kept when every one of its benchmarks was recorded, each check included.
  std::map<const Case*, bool> whole;
  for (const BenchJob& j : jobs) {
    bool& w = whole.try_emplace(j.test_case, true).first->second;
    w = w && records.contains(j.name) && (j.copy_baseline || results.contains(check_identity(j)));
  }
  try {
    for (const BenchJob& j : jobs) {
      if (!whole.at(j.test_case)) continue;
      const JsonlLine& record = *records.at(j.name);
      kept.records.emplace(j.name, bench_record_from_json(record.doc));
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
