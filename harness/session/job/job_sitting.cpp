#include "session/job/job_sitting.h"

#include <fmt/format.h>

#include "model/input_error.h"
#include "model/utc_time.h"
#include "reports/environment.h"

namespace opcert {

JobSitting start_sitting(RunReport& report, JobRecord job, const std::filesystem::path& out_dir, bool resume,
                         const StreamedData& data) {
  JobSitting sitting{std::move(job), std::nullopt};
  if (!resume) return sitting;
  sitting.earlier = job_to_resume(out_dir, sitting.job, data.file, data.contents, data.verb);
  if (sitting.earlier) {
    report.started_at = sitting.earlier->started_at;
    if (!sitting.earlier->run_id.empty()) report.run_id = sitting.earlier->run_id;  // "" before run ids: a new one
  }
  return sitting;
}

void open_outputs(const JobSitting& sitting, const std::filesystem::path& out_dir,
                  const std::function<void()>& add_outputs) {
  try {
    if (!sitting.resumed()) write_job_record(out_dir, sitting.job);
    add_outputs();
  } catch (const std::exception& e) {
    throw InputError(fmt::format("--out '{}': {}", out_dir.string(), e.what()));
  }
}

int finish_sitting(ResultStream& stream, RunReport& report, const EnvironmentInputs& environment, int exit_code) {
  report.exit_code = stream.exit_code_with_outputs(exit_code);  // results.jsonl on a full disk, say
  report.finished_at = now_utc();
  report.environment = capture_environment(environment);
  stream.run_finished(report);
  report.exit_code = stream.finish(report.exit_code);
  return report.exit_code;
}

}  // namespace opcert
