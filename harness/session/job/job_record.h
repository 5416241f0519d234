// What makes two runs the same job, so that one may finish the other (docs/CLI.md, "Resuming a
// run"): <out>/job.json, written before the first case runs, holds the job's defining fields and
// their fingerprint. `--resume DIR` recomputes them and goes on only when they are equal.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

#include "reports/run_report.h"
#include "session/planning/session_settings.h"

namespace opcert {

/// A run's job as job.json records it.
struct JobRecord {
  nlohmann::json fields;    // opcert version and commit, suite (name, sha256), seed, filter, implementations,
                            // platform and its configs' sha256, peer, golden set, backends (name, version,
                            // source, sha256), and what the verb adds (`verb_fields`)
  std::string fingerprint;  // sha256 of the fields' canonical JSON
  std::string started_at;   // when the job first started: a resumed run's report keeps it
  std::string run_id;       // the run's id (RunReport::run_id), kept by a resumed run; "" in job files before it
};

/// The sha256 of each platform config the settings' catalogue merged, in order: what a job, or the
/// ranks of a run, must agree on beside the platform's name.
nlohmann::json platform_config_digests(const SessionSettings& settings);

/// The job of a run about to start, from its header (run_header) and settings.
JobRecord job_record(const RunReport& header, const SessionSettings& settings, const nlohmann::json& verb_fields);

inline constexpr const char* kJobFileName = "job.json";

/// Writes <dir>/job.json atomically. Throws std::runtime_error naming the file.
void write_job_record(const std::filesystem::path& dir, const JobRecord& job);

/// <dir>/job.json, nullopt when there is none. Throws InputError naming the file when it is not
/// one (not JSON, another kind, a fingerprint that does not match its fields).
std::optional<JobRecord> read_job_record(const std::filesystem::path& dir);

/// What identifies a result within a job: its backend, implementation, case and device (a lane
/// runs each job once). A resumed run skips the jobs whose results it already holds.
std::string result_identity(const std::string& backend, const std::string& impl_key, const std::string& case_id,
                            std::optional<int> device);

/// "" when the jobs are the same; else one line naming the first field that differs, with both
/// values ("seed: 2 here, 1 in the run being resumed").
std::string job_difference(const JobRecord& resumed, const JobRecord& now);

/// The job recorded in `dir` that `--resume` of the job `now` goes on with; nullopt when nothing ran
/// there yet (a fresh start). Throws InputError when `dir` holds another job (naming the field that
/// differs), or holds `data_file` (what a `verb` streams, "results.jsonl") but no job.json; `data`
/// names that file's contents in the message ("results").
std::optional<JobRecord> job_to_resume(const std::filesystem::path& dir, const JobRecord& now,
                                       const std::string& data_file, const std::string& data, const std::string& verb);

}  // namespace opcert
