// opcert's schema, migration by migration (docs/HISTORY.md, "Schema"). A migration once released
// never changes: a change to the schema is a new migration at the end of the list.
#include "history/schema_migrations.h"

namespace opcert {

const std::vector<Migration>& store_migrations() {
  static const std::vector<Migration> migrations = {
      {1, "runs, their backends, results, benchmarks and every repetition's measurement", R"sql(
CREATE TABLE runs (
  id {{id}},
  uid TEXT NOT NULL UNIQUE,
  content_sha256 TEXT NOT NULL,
  kind TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  complete BIGINT NOT NULL,
  exit_code BIGINT NOT NULL,
  opcert_version TEXT NOT NULL,
  opcert_commit TEXT NOT NULL,
  project_commit TEXT NOT NULL,
  host TEXT NOT NULL,
  cpu_model TEXT NOT NULL,
  devices TEXT NOT NULL,
  driver_version TEXT NOT NULL,
  libraries TEXT NOT NULL,
  platform TEXT NOT NULL,
  suite TEXT NOT NULL,
  suite_sha256 TEXT NOT NULL,
  seed BIGINT NOT NULL,
  peer TEXT NOT NULL,
  command_line TEXT NOT NULL,
  source_dir TEXT NOT NULL,
  added_at TEXT NOT NULL,
  peaks TEXT NOT NULL,
  report TEXT NOT NULL
);
CREATE INDEX runs_started ON runs (started_at);
CREATE TABLE backends (
  run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  version TEXT NOT NULL,
  source TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  peer BIGINT NOT NULL,
  PRIMARY KEY (run_id, name)
);
CREATE TABLE results (
  id {{id}},
  run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  backend TEXT NOT NULL,
  impl_key TEXT NOT NULL,
  case_id TEXT NOT NULL,
  op TEXT NOT NULL,
  dtype TEXT NOT NULL,
  device TEXT NOT NULL,
  rank_index BIGINT,
  status TEXT NOT NULL,
  message TEXT NOT NULL,
  checked BIGINT NOT NULL,
  mismatches BIGINT NOT NULL,
  max_abs DOUBLE PRECISION,
  max_ulp BIGINT,
  error_ratio DOUBLE PRECISION,
  rmse DOUBLE PRECISION,
  peer_rmse DOUBLE PRECISION,
  alignment_ratio DOUBLE PRECISION,
  duration_ms DOUBLE PRECISION NOT NULL,
  repro TEXT NOT NULL
);
CREATE INDEX results_run ON results (run_id);
CREATE INDEX results_series ON results (case_id, impl_key);
CREATE TABLE benchmarks (
  id {{id}},
  run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  backend TEXT NOT NULL,
  impl_key TEXT NOT NULL,
  case_id TEXT NOT NULL,
  op TEXT NOT NULL,
  peer BIGINT NOT NULL,
  copy_baseline BIGINT NOT NULL,
  check_status TEXT,
  error TEXT NOT NULL,
  timing TEXT NOT NULL,
  flops DOUBLE PRECISION NOT NULL,
  bytes DOUBLE PRECISION NOT NULL,
  compute_dtype TEXT NOT NULL,
  platform TEXT NOT NULL,
  seconds DOUBLE PRECISION,
  spread DOUBLE PRECISION,
  tflops DOUBLE PRECISION,
  gbps DOUBLE PRECISION,
  pct_peak DOUBLE PRECISION,
  speedup_vs_peer DOUBLE PRECISION,
  pct_of_copy DOUBLE PRECISION,
  noise DOUBLE PRECISION,
  noise_limited BIGINT NOT NULL,
  conditions TEXT NOT NULL,
  size_bytes BIGINT,
  ranks BIGINT,
  algbw_gbps DOUBLE PRECISION,
  busbw_gbps DOUBLE PRECISION,
  peer_busbw_gbps DOUBLE PRECISION
);
CREATE INDEX benchmarks_run ON benchmarks (run_id);
CREATE INDEX benchmarks_series ON benchmarks (case_id, impl_key);
CREATE TABLE measurements (
  benchmark_id BIGINT NOT NULL REFERENCES benchmarks (id) ON DELETE CASCADE,
  repetition BIGINT NOT NULL,
  seconds DOUBLE PRECISION NOT NULL,
  cpu_seconds DOUBLE PRECISION NOT NULL,
  iterations BIGINT NOT NULL,
  throughput DOUBLE PRECISION,
  samples BIGINT,
  noise DOUBLE PRECISION,
  stopped_by TEXT NOT NULL,
  sampling_s DOUBLE PRECISION,
  sm_clock_mhz BIGINT,
  memory_clock_mhz BIGINT,
  power_w DOUBLE PRECISION,
  temperature_c BIGINT,
  clock_reasons BIGINT,
  PRIMARY KEY (benchmark_id, repetition)
);
)sql"},
      {2, "host-bound benchmarks: each repetition's host_share and the row's host_bound (report.json 2.12)", R"sql(
ALTER TABLE benchmarks ADD COLUMN host_bound BIGINT NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN host_share DOUBLE PRECISION;
)sql"},
  };
  return migrations;
}

}  // namespace opcert
