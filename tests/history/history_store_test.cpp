// The results store on a real SQLite file: migrations (an old store brought up, a newer or foreign
// one refused), adding runs (idempotent, a resumed run replacing its older report), reading them
// back, removing, exporting. tests/history/postgres_store_test.py runs the same store on a real
// PostgreSQL server.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <sqlite3.h>

#include <fstream>

#include "history/history_commands.h"
#include "history/history_store.h"
#include "history/schema_migrations.h"
#include "history/sql_connection.h"
#include "history/sqlite_connection.h"
#include "loader/temp_dir.h"
#include "model/input_error.h"
#include "reports/json_report_writer.h"
#include "reports/report_writer.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;

CaseResult result(const std::string& case_id, Status status, double rmse) {
  CaseResult r;
  r.backend = "cpu";
  r.impl_key = "cpu.softmax.rowwise";
  r.suite = "smoke";
  r.case_id = case_id;
  r.op = "softmax";
  r.dtype = "fp32";
  r.status = status;
  r.repro = "opcert run --filter " + case_id;
  TensorMetrics m;
  m.name = "y";
  m.checked = 64;
  m.total = 64;
  m.rmse = rmse;
  r.metrics.push_back(m);
  return r;
}

BenchRecord benchmark(const std::string& case_id, std::vector<double> repetitions) {
  BenchRecord b;
  b.name = case_id + "/cpu.softmax.rowwise";
  b.backend = "cpu";
  b.impl_key = "cpu.softmax.rowwise";
  b.case_id = case_id;
  b.op = "softmax";
  b.check = Status::kPassed;
  b.timing = "wall";
  b.bytes = 1e6;
  for (size_t i = 0; i < repetitions.size(); ++i) {
    BenchRun run;
    run.name = run.run_name = b.name;
    run.repetition_index = static_cast<int64_t>(i);
    run.repetitions = static_cast<int64_t>(repetitions.size());
    run.iterations = 10;
    run.seconds = repetitions[i];
    b.runs.push_back(run);
  }
  b.seconds = typical_seconds(b.runs);
  b.gbps = b.bytes / *b.seconds / 1e9;
  return b;
}

RunReport report(const std::string& started_at, bool bench = false) {
  RunReport r;
  r.run_id = "0123456789abcdef0123456789ab" + started_at.substr(11, 2) + (bench ? "be" : "00");
  r.kind = bench ? kBenchReportKind : "opcert-conformance-report";
  r.opcert_version = "0.1.0";
  r.suite = "smoke";
  r.suite_sha256 = "abc";
  r.seed = 1;
  r.started_at = started_at;
  r.finished_at = started_at;
  r.environment = {{"host", "ci-1"}, {"cpu", {{"model", "Test CPU"}}}, {"git_commit", "0123456789ab"},
                   {"libraries", {{"torch", "2.11"}}}};
  r.backends.push_back({"cpu", "0.2.0", "built-in", "", "", false, {}});
  r.results = {result("softmax.a", Status::kPassed, 1e-7), result("softmax.b", Status::kFailed, 1e-3)};
  if (bench) {
    r.benchmarks = {benchmark("softmax.a", {1e-3, 1.1e-3, 0.9e-3})};
    // Host-bound (schema 2): the row's flag and its first repetition's share are kept.
    r.benchmarks[0].host_bound = true;
    r.benchmarks[0].runs[0].sampling = Sampling{.samples = 10, .stopped_by = "noise", .host_share = 1.25};
  }
  return r;
}

fs::path write_run(const fs::path& dir, const RunReport& r) {
  fs::create_directories(dir);
  make_json_report_writer()->write(r, dir);
  return dir;
}

class HistoryStoreTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  std::string db() const { return (dir_.path() / "h.db").string(); }
};

TEST_F(HistoryStoreTest, AddingARunTwiceChangesNothing) {
  const fs::path run = write_run(dir_.path() / "r1", report("2026-11-26T10:00:00Z", true));
  auto store = HistoryStore::open(db(), true);
  const AddResult first = store->add(run, "feedc0de", PlatformCatalog::builtin());
  EXPECT_EQ(first.outcome, AddOutcome::kAdded);
  const AddResult again = store->add(run / "report.json", "feedc0de", PlatformCatalog::builtin());
  EXPECT_EQ(again.outcome, AddOutcome::kUnchanged);
  EXPECT_EQ(again.id, first.id);
  const auto runs = store->list({});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].kind, "bench");
  EXPECT_EQ(runs[0].results, 2);
  EXPECT_EQ(runs[0].passed, 1);
  EXPECT_EQ(runs[0].failed, 1);
  EXPECT_EQ(runs[0].benchmarks, 1);
  EXPECT_EQ(runs[0].project_commit, "feedc0de");
  EXPECT_EQ(runs[0].cpu_model, "Test CPU");
  EXPECT_EQ(runs[0].libraries.value("torch", ""), "2.11");
  // Each repetition is a row of its own, with the throughput it reached.
  const auto rows = store->connection().query("SELECT seconds, throughput FROM measurements ORDER BY repetition");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_DOUBLE_EQ(*sql_real(rows[1][0]), 1.1e-3);
  EXPECT_NEAR(*sql_real(rows[1][1]), 1e6 / 1.1e-3 / 1e9, 1e-9);
}

TEST_F(HistoryStoreTest, AResumedRunsNewerReportReplacesItsOlderOneUnderTheSameId) {
  RunReport r = report("2026-11-26T10:00:00Z");
  r.complete = false;
  r.results.pop_back();
  const fs::path run = write_run(dir_.path() / "r1", r);
  auto store = HistoryStore::open(db(), true);
  const AddResult first = store->add(run, "", PlatformCatalog::builtin());
  write_run(run, report("2026-11-26T10:00:00Z"));  // finished by --resume: same start, more results
  const AddResult second = store->add(run, "", PlatformCatalog::builtin());
  EXPECT_EQ(second.outcome, AddOutcome::kReplaced);
  EXPECT_EQ(second.id, first.id);
  const auto runs = store->list({});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_TRUE(runs[0].complete);
  EXPECT_EQ(runs[0].results, 2);
  EXPECT_EQ(store->report(first.id).results.size(), 2u);
}

TEST_F(HistoryStoreTest, TwoRunsStartedInTheSameSecondAreTwoRuns) {
  // Two CI jobs on one host, split by --backend: same start, same seed, same suite; their ids differ.
  RunReport a = report("2026-11-26T10:00:00Z"), b = a;
  b.run_id = "ffffffffffffffffffffffffffffffff";
  b.backends[0].name = "torch";
  auto store = HistoryStore::open(db(), true);
  EXPECT_EQ(store->add(write_run(dir_.path() / "a", a), "", PlatformCatalog::builtin()).outcome, AddOutcome::kAdded);
  EXPECT_EQ(store->add(write_run(dir_.path() / "b", b), "", PlatformCatalog::builtin()).outcome, AddOutcome::kAdded);
  EXPECT_EQ(store->list({}).size(), 2u);
}

TEST_F(HistoryStoreTest, RunsReadBackListFilterRemoveAndExport) {
  auto store = HistoryStore::open(db(), true);
  const int64_t a = store->add(write_run(dir_.path() / "a", report("2026-11-26T10:00:00Z")), "", PlatformCatalog::builtin()).id;
  const int64_t b = store->add(write_run(dir_.path() / "b", report("2026-11-26T11:00:00Z", true)), "", PlatformCatalog::builtin()).id;
  EXPECT_NE(a, b);
  EXPECT_EQ(store->list({}).size(), 2u);
  EXPECT_EQ(store->list({.kind = "bench"}).size(), 1u);
  EXPECT_EQ(store->list({.limit = 1}).at(0).id, b);  // the latest
  const RunReport back = store->report(b);
  EXPECT_EQ(back.results.size(), 2u);
  ASSERT_EQ(back.benchmarks.size(), 1u);
  EXPECT_EQ(repetition_seconds(back.benchmarks[0].runs).size(), 3u);

  const auto doc = store->export_json({});
  ASSERT_EQ(doc.at("runs").size(), 2u);
  EXPECT_EQ(doc["runs"][1]["results"].size(), 2u);
  EXPECT_EQ(doc["runs"][1]["benchmarks"][0]["measurements"].size(), 3u);
  EXPECT_EQ(doc["runs"][1]["benchmarks"][0]["host_bound"], 1);
  EXPECT_EQ(doc["runs"][1]["benchmarks"][0]["measurements"][0]["host_share"], 1.25);
  EXPECT_TRUE(doc["runs"][1]["benchmarks"][0]["measurements"][1]["host_share"].is_null());
  EXPECT_EQ(doc["runs"][1]["results"][1]["status"], "FAILED");
  EXPECT_THROW(store->export_json({99}), InputError);

  EXPECT_TRUE(store->remove(a));
  EXPECT_FALSE(store->remove(a));
  EXPECT_EQ(store->list({}).size(), 1u);
  // Nothing of the removed run is left behind.
  EXPECT_EQ(*sql_int(store->connection().query("SELECT count(*) FROM results")[0][0]), 2);
  // A new run never takes a removed run's id: links to it stay wrong rather than misleading.
  const int64_t c = store->add(write_run(dir_.path() / "c", report("2026-11-26T12:00:00Z")), "", PlatformCatalog::builtin()).id;
  EXPECT_GT(c, b);
}

TEST_F(HistoryStoreTest, AnOlderStoreIsMigratedAndANewerOneRefused) {
  std::vector<Migration> migrations = store_migrations();
  const int known = migrations.back().version;
  {
    auto c = open_sqlite(db(), true);
    EXPECT_EQ(migrate(*c, migrations), known);
  }
  migrations.push_back({known + 1, "a column for the test", "ALTER TABLE runs ADD COLUMN note TEXT"});
  {
    auto c = open_sqlite(db(), false);
    EXPECT_EQ(schema_version(*c), known);
    EXPECT_EQ(migrate(*c, migrations), known + 1);
    EXPECT_NO_THROW(c->query("SELECT note FROM runs"));
    EXPECT_EQ(migrate(*c, migrations), known + 1);  // nothing left to do
  }
  // This opcert knows up to `known` only: the store at known + 1 is refused, not misread.
  try {
    (void)HistoryStore::open(db(), false);
    FAIL() << "a newer store was opened";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(fmt::format("newer than this opcert's {}", known)), std::string::npos)
        << e.what();
  }
}

// A store of version 1 (before host-bound rows) holding a bench keeps its rows through migration 2,
// which reads them as not host-bound, and takes a new bench's host_bound and host_share.
TEST_F(HistoryStoreTest, AVersionOneStoreGainsTheHostBoundColumnsAndKeepsItsRows) {
  const std::vector<Migration>& all = store_migrations();
  ASSERT_GE(all.size(), 2u);
  {
    auto c = open_sqlite(db(), true);
    EXPECT_EQ(migrate(*c, {all.front()}), 1);
    c->query("INSERT INTO runs (uid, content_sha256, kind, started_at, finished_at, complete, exit_code, "
             "opcert_version, opcert_commit, project_commit, host, cpu_model, devices, driver_version, libraries, "
             "platform, suite, suite_sha256, seed, peer, command_line, source_dir, added_at, peaks, report) VALUES ('u1', "
             "'s', 'opcert-bench-report', 't0', 't1', 1, 0, 'v', 'c', '', 'h', 'cpu', '[]', '', '{}', '', "
             "'bench/smoke', 'x', 1, '', '', '', 't2', '{}', '{}')");
    c->query("INSERT INTO benchmarks (run_id, name, backend, impl_key, case_id, op, peer, copy_baseline, error, timing, "
             "flops, bytes, compute_dtype, platform, noise_limited, conditions) VALUES (1, 'n', 'cpu', 'k', 'case', "
             "'softmax', 0, 0, '', 'wall', 0, 0, '', '', 0, '[]')");
  }
  auto c = open_sqlite(db(), false);
  EXPECT_EQ(migrate(*c, all), all.back().version);
  const auto rows = c->query("SELECT host_bound FROM benchmarks");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(sql_int(rows.at(0).at(0)), 0);
  EXPECT_NO_THROW(c->query("SELECT host_share FROM measurements"));
}

TEST_F(HistoryStoreTest, AFailingMigrationLeavesTheStoreAsItWas) {
  std::vector<Migration> migrations = store_migrations();
  const int known = migrations.back().version;
  migrations.push_back({known + 1, "broken", "ALTER TABLE runs ADD COLUMN ok TEXT; ALTER TABLE nosuch ADD COLUMN x TEXT"});
  auto c = open_sqlite(db(), true);
  EXPECT_THROW(migrate(*c, migrations), StoreError);
  EXPECT_EQ(schema_version(*c), known);
  EXPECT_THROW(c->query("SELECT ok FROM runs"), StoreError);  // its first statement was rolled back too
}

TEST_F(HistoryStoreTest, WhatIsNotAStoreIsRefusedWithOneLine) {
  EXPECT_THROW((void)HistoryStore::open((dir_.path() / "missing.db").string(), false), InputError);
  std::ofstream(dir_.path() / "text.db") << "not a database, but long enough to be read as one's header..........";
  EXPECT_THROW((void)HistoryStore::open((dir_.path() / "text.db").string(), false), InputError);
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open((dir_.path() / "other.db").c_str(), &raw), SQLITE_OK);
    sqlite3_exec(raw, "CREATE TABLE accounts (id INTEGER)", nullptr, nullptr, nullptr);
    sqlite3_close(raw);
  }
  try {
    (void)HistoryStore::open((dir_.path() / "other.db").string(), false);
    FAIL() << "another program's database was taken for a store";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no opcert schema version"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)HistoryStore::open((dir_.path() / "no/such/dir/h.db").string(), true), InputError);
  // A reader never makes a store, not even in an empty file that SQLite would take for a database.
  std::ofstream(dir_.path() / "empty.db").close();
  EXPECT_THROW((void)HistoryStore::open((dir_.path() / "empty.db").string(), false), InputError);
  EXPECT_EQ(fs::file_size(dir_.path() / "empty.db"), 0u);
}

TEST(HistoryLocation, PostgresUrlsAreToldFromFilesAndTheirPasswordsHidden) {
  EXPECT_TRUE(is_postgres_location("postgresql://ci@db:5432/opcert"));
  EXPECT_TRUE(is_postgres_location("postgres://db/opcert"));
  EXPECT_FALSE(is_postgres_location("history.db"));
  EXPECT_EQ(redacted_location("postgresql://ci:s3cret@db:5432/opcert"), "postgresql://ci:***@db:5432/opcert");
  EXPECT_EQ(redacted_location("postgresql://ci@db/opcert"), "postgresql://ci@db/opcert");
  EXPECT_EQ(redacted_location("postgresql://db/opcert?user=ci&password=s3cret&sslmode=require"),
            "postgresql://db/opcert?user=ci&password=***&sslmode=require");
  // A refused connection names the server, never the password.
  try {
    (void)HistoryStore::open("postgresql://ci:s3cret@127.0.0.1:1/opcert?connect_timeout=2", false);
    FAIL() << "connected to port 1";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find("s3cret"), std::string::npos) << e.what();
  }
}

// The subcommands' steps (history/history_commands.h): remove checks every id before it removes
// one, and a missing run or an unwritable --out is one InputError naming it.
TEST_F(HistoryStoreTest, RemoveChecksEveryIdFirstAndShowAndExportNameWhatIsWrong) {
  auto store = HistoryStore::open(db(), true);
  ::testing::internal::CaptureStdout();
  add_runs(*store, {write_run(dir_.path() / "a", report("2026-11-26T10:00:00Z")).string()}, "", PlatformCatalog::builtin());
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "run 1 added: " + (dir_.path() / "a").string() + "\n");
  try {
    remove_runs(*store, {1, 7});
    FAIL() << "removed with an unknown id";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has no run 7: `opcert history list` shows the ids"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(store->find(1)) << "run 1 was removed although id 7 was refused";
  EXPECT_THROW(print_run(*store, 7, false), InputError);
  const std::string out = (dir_.path() / "no-such-dir" / "export.json").string();
  try {
    export_runs(*store, {}, out);
    FAIL() << "exported into a missing folder";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--out '" + out + "': ", 0), 0u) << e.what();
  }
  ::testing::internal::CaptureStdout();
  remove_runs(*store, {1, 1});
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "run 1 removed\n");
  EXPECT_FALSE(store->find(1));
}

}  // namespace
}  // namespace opcert
