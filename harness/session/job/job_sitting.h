// One sitting of a job of `opcert run` or `opcert bench` (docs/CLI.md, "Resuming a run"): both
// verbs start, open their outputs and finish alike. A sitting starts afresh, or with --resume goes
// on from an earlier sitting of the same job (job.json, session/job/job_record.h), keeping its start
// time and run id. What it keeps of the earlier sitting's data is the verb's own: run skips the
// jobs whose results it holds (run/conformance_runner.h), bench keeps the cases measured whole
// (bench/bench_resume.h).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "reports/result_stream.h"
#include "reports/run_report.h"
#include "session/job/job_record.h"
#include "session/planning/session_settings.h"

namespace opcert {

struct JobSitting {
  JobRecord job;                     ///< this sitting's job, as job.json records it
  std::optional<JobRecord> earlier;  ///< the sitting --resume goes on from; nullopt: a fresh start
  bool resumed() const { return earlier.has_value(); }
};

/// What a verb streams into out_dir, checked against job.json by --resume: "results.jsonl" with
/// its contents named "results", of "run".
struct StreamedData {
  std::string file;
  std::string contents;
  std::string verb;
};

/// The sitting of `job` in `out_dir`; with `resume`, the earlier sitting it goes on from, whose
/// start time and run id `report` takes. Throws InputError when out_dir holds another job (one line
/// naming the field that differs), or holds `data` but no job.json.
JobSitting start_sitting(RunReport& report, JobRecord job, const std::filesystem::path& out_dir, bool resume,
                         const StreamedData& data);

/// Opens the sitting's outputs in `out_dir` (made by prepare_out_dir): job.json when it starts
/// afresh, then `add_outputs` (the verb's sinks, reports/output_sets.h). Throws InputError
/// "--out 'DIR': why" when anything cannot be written.
void open_outputs(const JobSitting& sitting, const std::filesystem::path& out_dir,
                  const std::function<void()>& add_outputs);

/// Ends the sitting: `exit_code` (session/job/exit_rule.h) made worse when an output failed, the
/// finish time and environment recorded, the report delivered to every output. Returns the exit
/// code to exit with, which report.exit_code also holds.
int finish_sitting(ResultStream& stream, RunReport& report, const EnvironmentInputs& environment, int exit_code);

}  // namespace opcert
