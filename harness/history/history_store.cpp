#include "history/history_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "compare/compare_runs.h"
#include "history/postgres_connection.h"
#include "history/schema_migrations.h"
#include "history/sqlite_connection.h"
#include "loader/file_digest.h"
#include "model/input_error.h"
#include "model/utc_time.h"
#include "reports/json_report_writer.h"
#include "reports/report_reader.h"

namespace opcert {
namespace {

using nlohmann::json;

constexpr const char* kRunColumns =
    "id, kind, started_at, finished_at, added_at, complete, exit_code, opcert_version, opcert_commit, "
    "project_commit, host, cpu_model, devices, driver_version, libraries, platform, suite, suite_sha256, peer, "
    "command_line, source_dir, seed, "
    "(SELECT count(*) FROM results r WHERE r.run_id = runs.id), "
    "(SELECT count(*) FROM results r WHERE r.run_id = runs.id AND r.status = 'PASSED'), "
    "(SELECT count(*) FROM results r WHERE r.run_id = runs.id AND r.status = 'SKIPPED'), "
    "(SELECT count(*) FROM benchmarks b WHERE b.run_id = runs.id)";

std::string env_text(const json& env, const char* outer, const char* inner) {
  if (!env.is_object() || !env.contains(outer) || !env[outer].is_object()) return "";
  const json& o = env[outer];
  return o.contains(inner) && o[inner].is_string() ? o[inner].get<std::string>() : "";
}

std::string gpu_field(const json& env, const char* field) {
  std::set<std::string> seen;
  std::string out;
  if (env.is_object() && env.contains("gpus") && env["gpus"].is_array())
    for (const json& gpu : env["gpus"])
      if (gpu.contains(field) && gpu[field].is_string() && seen.insert(gpu[field].get<std::string>()).second)
        out += (out.empty() ? "" : ", ") + gpu[field].get<std::string>();
  return out;
}

// The run's identity: what stays the same when a resumed run rewrites its report. Its run_id;
// a report from before run ids (schema < 2.6) is known by what it says of itself, its command
// line included, so that two jobs split by --backend or --filter and started in one second differ.
std::string run_uid(const RunReport& r) {
  if (!r.run_id.empty()) return r.run_id;
  return sha256_hex(fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}", r.kind, environment_string(r, "host"), r.started_at,
                               r.seed, r.suite_sha256, r.platform, r.command_line));
}

json peaks_json(const PeakFigures& p) {
  json out = {{"tflops", p.tflops}};
  out["memory_gbps"] = p.memory_gbps ? json(*p.memory_gbps) : json(nullptr);
  out["link_gbps"] = p.link_gbps ? json(*p.link_gbps) : json(nullptr);
  return out;
}

// The peaks of every platform the run names (its own, and each benchmark's), as the catalogue has
// them now: kept with the run, so a dashboard made elsewhere draws the same roofs.
json run_peaks(const RunReport& r, const PlatformCatalog& platforms) {
  std::set<std::string> names;
  if (!r.platform.empty()) names.insert(r.platform);
  for (const BenchRecord& b : r.benchmarks)
    if (!b.platform.empty()) names.insert(b.platform);
  json out = json::object();
  for (const std::string& name : names)
    if (const PlatformConfig* p = platforms.find(name)) out[name] = peaks_json(p->peaks);
  return out;
}

SqlValue optional_double(const std::optional<double>& v) { return sql_nullable(v); }

SqlValue optional_uint(const std::optional<uint32_t>& v) {
  return v ? SqlValue(static_cast<int64_t>(*v)) : SqlValue(std::monostate{});
}

int64_t returned_id(const std::vector<SqlRow>& rows) {
  if (rows.empty() || !sql_int(rows[0].at(0))) throw StoreError("the store returned no id for a row it inserted");
  return *sql_int(rows[0][0]);
}

void insert_result(SqlConnection& c, int64_t run_id, const CaseResult& res) {
  int64_t checked = 0, mismatches = 0;
  std::optional<double> max_abs, error_ratio, rmse;
  std::optional<int64_t> max_ulp;
  for (const TensorMetrics& m : res.metrics) {
    checked += m.checked;
    mismatches += m.mismatches;
    max_abs = std::max(max_abs.value_or(0.0), m.max_abs);
    error_ratio = std::max(error_ratio.value_or(0.0), m.error_ratio);
    max_ulp = std::max(max_ulp.value_or(0), m.max_ulp);
  }
  if (!res.metrics.empty()) rmse = res.metrics.front().rmse;
  c.query("INSERT INTO results (run_id, backend, impl_key, case_id, op, dtype, device, rank_index, status, message, "
          "checked, mismatches, max_abs, max_ulp, error_ratio, rmse, peer_rmse, alignment_ratio, duration_ms, repro) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          {run_id, res.backend, res.impl_key, res.case_id, res.op, res.dtype, device_label(res.device, std::nullopt),
           res.rank ? SqlValue(int64_t{*res.rank}) : SqlValue(std::monostate{}), std::string(status_name(res.status)),
           res.message, checked, mismatches, optional_double(max_abs), sql_nullable(max_ulp),
           optional_double(error_ratio), optional_double(rmse), optional_double(res.peer_rmse),
           optional_double(res.alignment_ratio), res.duration_ms, res.repro});
}

void insert_benchmark(SqlConnection& c, int64_t run_id, const BenchRecord& b) {
  const CollectiveFigures* coll = b.collective ? &*b.collective : nullptr;
  const int64_t id = returned_id(c.query(
      "INSERT INTO benchmarks (run_id, name, backend, impl_key, case_id, op, peer, copy_baseline, check_status, error, "
      "timing, flops, bytes, compute_dtype, platform, seconds, spread, tflops, gbps, pct_peak, speedup_vs_peer, "
      "pct_of_copy, noise, noise_limited, host_bound, conditions, size_bytes, ranks, algbw_gbps, busbw_gbps, "
      "peer_busbw_gbps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
      "RETURNING id",
      {run_id, b.name, b.backend, b.impl_key, b.case_id, b.op, int64_t{b.peer}, int64_t{b.copy_baseline},
       b.check ? SqlValue(std::string(status_name(*b.check))) : SqlValue(std::monostate{}), b.error, b.timing,
       b.flops, b.bytes, b.compute_dtype, b.platform, optional_double(b.seconds), optional_double(b.spread),
       optional_double(b.tflops), optional_double(b.gbps), optional_double(b.pct_peak),
       optional_double(b.speedup_vs_peer), optional_double(b.pct_of_copy), optional_double(b.noise),
       int64_t{b.noise_limited}, int64_t{b.host_bound}, json(b.condition_flags).dump(),
       coll ? SqlValue(static_cast<int64_t>(coll->size_bytes)) : SqlValue(std::monostate{}),
       coll ? SqlValue(int64_t{coll->ranks}) : SqlValue(std::monostate{}),
       coll ? optional_double(coll->algbw_gbps) : SqlValue(std::monostate{}),
       coll ? optional_double(coll->busbw_gbps) : SqlValue(std::monostate{}),
       coll ? optional_double(coll->peer_busbw_gbps) : SqlValue(std::monostate{})}));
  // Each repetition as measured; its throughput in the row's figure (TFLOP/s for a compute-bound
  // op, GB/s for a memory-bound one).
  int64_t repetition = 0;
  for (const BenchRun& run : b.runs) {
    if (!run.aggregate.empty() || !run.error.empty()) continue;
    std::optional<double> throughput;
    if (run.seconds > 0) {
      if (!b.compute_dtype.empty() && b.flops > 0)
        throughput = b.flops / run.seconds / 1e12;
      else if (b.bytes > 0)
        throughput = b.bytes / run.seconds / 1e9;
    }
    const Sampling* s = run.sampling ? &*run.sampling : nullptr;
    // The clocks as the sampling ended: what the last samples ran at.
    const GpuReading* reading = s ? (s->conditions.end ? &*s->conditions.end
                                                        : (s->conditions.start ? &*s->conditions.start : nullptr))
                                  : nullptr;
    c.query("INSERT INTO measurements (benchmark_id, repetition, seconds, cpu_seconds, iterations, throughput, "
            "samples, noise, stopped_by, sampling_s, sm_clock_mhz, memory_clock_mhz, power_w, temperature_c, "
            "clock_reasons, host_share) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            {id, repetition++, run.seconds, run.cpu_seconds, run.iterations, optional_double(throughput),
             s ? SqlValue(s->samples) : SqlValue(std::monostate{}), s ? SqlValue(s->noise) : SqlValue(std::monostate{}),
             s ? s->stopped_by : std::string(), s ? SqlValue(s->elapsed_s) : SqlValue(std::monostate{}),
             reading ? optional_uint(reading->sm_clock_mhz) : SqlValue(std::monostate{}),
             reading ? optional_uint(reading->memory_clock_mhz) : SqlValue(std::monostate{}),
             reading ? optional_double(reading->power_w) : SqlValue(std::monostate{}),
             reading ? optional_uint(reading->temperature_c) : SqlValue(std::monostate{}),
             reading && reading->clock_reasons ? SqlValue(static_cast<int64_t>(*reading->clock_reasons))
                                               : SqlValue(std::monostate{}),
             s ? optional_double(s->host_share) : SqlValue(std::monostate{})});
  }
}

void insert_run(SqlConnection& c, std::optional<int64_t> id, const std::string& uid, const std::string& content,
                const RunReport& r, const json& document, const std::string& source_dir,
                const std::string& project_commit, const json& peaks, int64_t& new_id) {
  const json& env = r.environment;
  const json libraries = env.is_object() && env.contains("libraries") && env["libraries"].is_object()
                             ? env["libraries"]
                             : json::object();
  const std::string kind = r.kind == kBenchReportKind ? "bench" : "run";
  std::vector<SqlValue> values = {uid,
                                  content,
                                  kind,
                                  r.started_at,
                                  r.finished_at,
                                  int64_t{r.complete},
                                  int64_t{r.exit_code},
                                  r.opcert_version,
                                  environment_string(r, "git_commit"),
                                  project_commit,
                                  environment_string(r, "host"),
                                  env_text(env, "cpu", "model"),
                                  gpu_field(env, "name"),
                                  gpu_field(env, "driver_version"),
                                  libraries.dump(),
                                  r.platform,
                                  r.suite,
                                  r.suite_sha256,
                                  static_cast<int64_t>(r.seed),
                                  r.peer,
                                  r.command_line,
                                  source_dir,
                                  now_utc(),
                                  peaks.dump(),
                                  document.dump()};
  std::string columns =
      "uid, content_sha256, kind, started_at, finished_at, complete, exit_code, opcert_version, opcert_commit, "
      "project_commit, host, cpu_model, devices, driver_version, libraries, platform, suite, suite_sha256, seed, "
      "peer, command_line, source_dir, added_at, peaks, report";
  std::string marks = "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?";
  if (id) {  // a replaced run keeps its id, so links to it stay good
    columns = "id, " + columns;
    marks = "?, " + marks;
    values.insert(values.begin(), *id);
  }
  new_id = returned_id(c.query(fmt::format("INSERT INTO runs ({}) VALUES ({}) RETURNING id", columns, marks), values));
  for (const BackendRecord& b : r.backends)
    c.query("INSERT INTO backends (run_id, name, version, source, sha256, peer) VALUES (?, ?, ?, ?, ?, ?)",
            {new_id, b.name, b.version, b.source, b.sha256, int64_t{b.peer}});
  for (const CaseResult& res : r.results) insert_result(c, new_id, res);
  for (const BenchRecord& b : r.benchmarks) insert_benchmark(c, new_id, b);
}

StoredRun stored_run_from(const SqlRow& row) {
  StoredRun s;
  size_t i = 0;
  s.id = sql_int(row[i++]).value_or(0);
  s.kind = sql_text(row[i++]);
  s.started_at = sql_text(row[i++]);
  s.finished_at = sql_text(row[i++]);
  s.added_at = sql_text(row[i++]);
  s.complete = sql_int(row[i++]).value_or(1) != 0;
  s.exit_code = static_cast<int>(sql_int(row[i++]).value_or(0));
  for (std::string* text : {&s.opcert_version, &s.opcert_commit, &s.project_commit, &s.host, &s.cpu_model,
                            &s.devices, &s.driver_version})
    *text = sql_text(row[i++]);
  s.libraries = json::parse(sql_text(row[i++]), nullptr, false);
  if (s.libraries.is_discarded()) s.libraries = json::object();
  for (std::string* text : {&s.platform, &s.suite, &s.suite_sha256, &s.peer, &s.command_line, &s.source_dir})
    *text = sql_text(row[i++]);
  s.seed = static_cast<uint64_t>(sql_int(row[i++]).value_or(0));
  s.results = sql_int(row[i++]).value_or(0);
  s.passed = sql_int(row[i++]).value_or(0);
  s.skipped = sql_int(row[i++]).value_or(0);
  s.benchmarks = sql_int(row[i++]).value_or(0);
  s.failed = s.results - s.passed - s.skipped;
  return s;
}

// Rows of `sql` as JSON objects named by `names`, numbers as numbers.
json rows_json(SqlConnection& c, const std::string& sql, const std::vector<SqlValue>& params,
               const std::vector<std::string>& names) {
  json out = json::array();
  for (const SqlRow& row : c.query(sql, params)) {
    json o = json::object();
    for (size_t i = 0; i < names.size() && i < row.size(); ++i) {
      const SqlValue& v = row[i];
      if (const auto* n = std::get_if<int64_t>(&v))
        o[names[i]] = *n;
      else if (const auto* d = std::get_if<double>(&v))
        o[names[i]] = *d;
      else if (const auto* t = std::get_if<std::string>(&v))
        o[names[i]] = *t;
      else
        o[names[i]] = nullptr;
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<std::string> split_columns(const std::string& columns) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= columns.size()) {
    const size_t comma = columns.find(',', start);
    std::string name = columns.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    name.erase(0, name.find_first_not_of(' '));
    names.push_back(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return names;
}

}  // namespace

std::string outcome_name(AddOutcome outcome) {
  switch (outcome) {
    case AddOutcome::kAdded: return "added";
    case AddOutcome::kUnchanged: return "unchanged";
    case AddOutcome::kReplaced: return "replaced";
  }
  return "?";
}

bool is_postgres_location(const std::string& location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

std::string redacted_location(const std::string& location) {
  return is_postgres_location(location) ? redacted_url(location) : location;
}

std::unique_ptr<HistoryStore> HistoryStore::open(const std::string& location, bool create) {
  if (location.empty()) throw InputError("--db: give a SQLite file or a postgresql:// URL");
  std::unique_ptr<SqlConnection> connection =
      is_postgres_location(location) ? open_postgres(location) : open_sqlite(location, create);
  if (!create) {
    // A reader finds a store or says there is none: it never makes one (an empty PostgreSQL
    // database, an empty file).
    SqlTransaction look(*connection, SqlTransaction::Kind::kRead);
    const int at = schema_version(*connection);
    const bool foreign = at == 0 && has_other_tables(*connection);
    look.commit();
    if (foreign) throw foreign_database(*connection);
    if (at == 0)
      throw InputError(fmt::format("{} holds no results store: add runs to it first (`opcert history add RUN --db "
                                   "{}`)",
                                   connection->describe(), redacted_location(location)));
  }
  migrate(*connection, store_migrations());
  return std::make_unique<HistoryStore>(std::move(connection));
}

HistoryStore::HistoryStore(std::unique_ptr<SqlConnection> connection) : connection_(std::move(connection)) {}

int HistoryStore::version() { return schema_version(*connection_); }

AddResult HistoryStore::add(const std::filesystem::path& run, const std::string& project_commit,
                            const PlatformCatalog& platforms) {
  const ReportDocument read = read_report_document(run);
  const json& document = read.doc;
  const std::filesystem::path& file = read.file;
  const RunReport report = run_report_from_json(document, file.string());
  if (report.started_at.empty())
    throw InputError(fmt::format("'{}' has no started_at: not a run opcert can place in a history", file.string()));
  const std::string uid = run_uid(report);
  const std::string content = sha256_hex(document.dump());
  std::error_code ec;
  const std::string source_dir = std::filesystem::weakly_canonical(std::filesystem::absolute(file).parent_path(), ec).string();
  const json peaks = run_peaks(report, platforms);

  SqlConnection& c = *connection_;
  SqlTransaction tx(c, SqlTransaction::Kind::kWrite);
  const auto existing = c.query("SELECT id, content_sha256 FROM runs WHERE uid = ?", {uid});
  std::optional<int64_t> keep_id;
  AddResult result;
  if (!existing.empty()) {
    keep_id = sql_int(existing[0][0]);
    if (sql_text(existing[0][1]) == content) {
      tx.commit();
      return {*keep_id, AddOutcome::kUnchanged};
    }
    c.query("DELETE FROM runs WHERE id = ?", {*keep_id});
    result.outcome = AddOutcome::kReplaced;
  }
  insert_run(c, keep_id, uid, content, report, document, source_dir, project_commit, peaks, result.id);
  tx.commit();
  return result;
}

std::vector<StoredRun> HistoryStore::list(const RunFilter& filter) {
  std::string where = "1 = 1";
  std::vector<SqlValue> params;
  const std::pair<const char*, const std::string*> narrowing[] = {
      {"platform", &filter.platform}, {"suite", &filter.suite}, {"kind", &filter.kind}, {"host", &filter.host}};
  for (const auto& [column, value] : narrowing)
    if (!value->empty()) {
      where += fmt::format(" AND {} = ?", column);
      params.push_back(*value);
    }
  SqlTransaction tx(*connection_, SqlTransaction::Kind::kRead);
  const auto rows =
      connection_->query(fmt::format("SELECT {} FROM runs WHERE {} ORDER BY started_at, id", kRunColumns, where), params);
  tx.commit();
  std::vector<StoredRun> runs;
  for (const SqlRow& row : rows) runs.push_back(stored_run_from(row));
  if (filter.limit && static_cast<int64_t>(runs.size()) > *filter.limit)
    runs.erase(runs.begin(), runs.end() - *filter.limit);
  return runs;
}

std::optional<StoredRun> HistoryStore::find(int64_t id) {
  const auto rows = connection_->query(fmt::format("SELECT {} FROM runs WHERE id = ?", kRunColumns), {id});
  if (rows.empty()) return std::nullopt;
  return stored_run_from(rows[0]);
}

json HistoryStore::report_document(int64_t id) {
  const auto rows = connection_->query("SELECT report FROM runs WHERE id = ?", {id});
  if (rows.empty()) throw InputError(fmt::format("{} has no run {}: `opcert history list` shows the ids", describe(), id));
  return json::parse(sql_text(rows[0][0]));
}

RunReport HistoryStore::report(int64_t id) {
  return run_report_from_json(report_document(id), fmt::format("run {} of {}", id, describe()));
}

json HistoryStore::peaks(int64_t id) {
  const auto rows = connection_->query("SELECT peaks FROM runs WHERE id = ?", {id});
  if (rows.empty()) return json::object();
  json p = json::parse(sql_text(rows[0][0]), nullptr, false);
  return p.is_object() ? p : json::object();
}

bool HistoryStore::remove(int64_t id) {
  SqlTransaction tx(*connection_, SqlTransaction::Kind::kWrite);
  const bool there = !connection_->query("SELECT id FROM runs WHERE id = ?", {id}).empty();
  if (there) connection_->query("DELETE FROM runs WHERE id = ?", {id});
  tx.commit();
  return there;
}

json HistoryStore::export_json(const std::vector<int64_t>& ids) {
  static const std::string run_columns =
      "id, uid, content_sha256, kind, started_at, finished_at, complete, exit_code, opcert_version, opcert_commit, "
      "project_commit, host, cpu_model, devices, driver_version, libraries, platform, suite, suite_sha256, seed, peer, "
      "command_line, source_dir, added_at, peaks";
  static const std::string backend_columns = "name, version, source, sha256, peer";
  static const std::string result_columns =
      "backend, impl_key, case_id, op, dtype, device, rank_index, status, message, checked, mismatches, max_abs, "
      "max_ulp, error_ratio, rmse, peer_rmse, alignment_ratio, duration_ms, repro";
  static const std::string benchmark_columns =
      "id, name, backend, impl_key, case_id, op, peer, copy_baseline, check_status, error, timing, flops, bytes, "
      "compute_dtype, platform, seconds, spread, tflops, gbps, pct_peak, speedup_vs_peer, pct_of_copy, noise, "
      "noise_limited, host_bound, conditions, size_bytes, ranks, algbw_gbps, busbw_gbps, peer_busbw_gbps";
  static const std::string measurement_columns =
      "repetition, seconds, cpu_seconds, iterations, throughput, samples, noise, stopped_by, sampling_s, sm_clock_mhz, "
      "memory_clock_mhz, power_w, temperature_c, clock_reasons, host_share";
  SqlConnection& c = *connection_;
  SqlTransaction tx(c, SqlTransaction::Kind::kRead);
  json runs = rows_json(c, fmt::format("SELECT {} FROM runs ORDER BY started_at, id", run_columns), {},
                        split_columns(run_columns));
  json out_runs = json::array();
  for (json& run : runs) {
    const int64_t id = run["id"].get<int64_t>();
    if (!ids.empty() && std::find(ids.begin(), ids.end(), id) == ids.end()) continue;
    for (const char* doc_field : {"libraries", "peaks"}) run[doc_field] = json::parse(run[doc_field].get<std::string>());
    run["backends"] = rows_json(c, fmt::format("SELECT {} FROM backends WHERE run_id = ? ORDER BY name", backend_columns),
                                {id}, split_columns(backend_columns));
    run["results"] = rows_json(c, fmt::format("SELECT {} FROM results WHERE run_id = ? ORDER BY id", result_columns),
                               {id}, split_columns(result_columns));
    json benchmarks = rows_json(
        c, fmt::format("SELECT {} FROM benchmarks WHERE run_id = ? ORDER BY id", benchmark_columns), {id},
        split_columns(benchmark_columns));
    for (json& b : benchmarks) {
      b["conditions"] = json::parse(b["conditions"].get<std::string>());
      b["measurements"] = rows_json(
          c, fmt::format("SELECT {} FROM measurements WHERE benchmark_id = ? ORDER BY repetition", measurement_columns),
          {b["id"].get<int64_t>()}, split_columns(measurement_columns));
      b.erase("id");
    }
    run["benchmarks"] = std::move(benchmarks);
    out_runs.push_back(std::move(run));
  }
  tx.commit();
  for (const int64_t id : ids)
    if (std::none_of(out_runs.begin(), out_runs.end(), [&](const json& r) { return r["id"] == id; }))
      throw InputError(fmt::format("{} has no run {}: `opcert history list` shows the ids", describe(), id));
  return {{"kind", "opcert-history-export"}, {"schema_version", version()}, {"runs", std::move(out_runs)}};
}

}  // namespace opcert
