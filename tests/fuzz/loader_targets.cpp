#include "loader_targets.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "check/suite.h"
#include "loader/manifest.h"
#include "loader/platform/platform_config.h"
#include "reports/report_reader.h"
#include "reports/results_jsonl.h"
#include "session/job/job_record.h"

namespace opcert::fuzz {
namespace {

// A private folder for the loaders that read files, made once per process and removed at its end.
struct Scratch {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("opcert-fuzz-" + std::to_string(getpid()));
  Scratch() { std::filesystem::create_directories(dir); }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

const std::filesystem::path& scratch() {
  static const Scratch s;
  return s.dir;
}

std::filesystem::path write(const std::string& name, const std::string& bytes) {
  const auto path = scratch() / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

// A refusal is a std::runtime_error (InputError is one); anything else propagates.
template <class F>
void refusing(F&& load) {
  try {
    load();
  } catch (const std::runtime_error&) {
  }
}

}  // namespace

const std::vector<LoaderTarget>& loader_targets() {
  static const std::vector<LoaderTarget> targets = {
      {"suite", "suites", ".json",
       [](const std::string& b) { refusing([&] { (void)load_suite(write("suite.json", b).string(), 1); }); }},
      {"platform", "configs", ".json",
       [](const std::string& b) { refusing([&] { (void)parse_platform_configs(b, "fuzz.json"); }); }},
      {"manifest", "tests/fuzz/corpus/manifest", ".json",
       [](const std::string& b) { refusing([&] { (void)parse_manifest(b, "fuzz.json"); }); }},
      {"report", "tests/fuzz/corpus", "report.json",
       [](const std::string& b) { refusing([&] { (void)read_run_report(write("report.json", b)); }); }},
      {"results", "tests/fuzz/corpus", ".jsonl",
       [](const std::string& b) { refusing([&] { (void)read_results_jsonl(write("results.jsonl", b)); }); }},
      {"job", "tests/fuzz/corpus", "job.json", [](const std::string& b) {
         refusing([&] {
           write("job.json", b);
           (void)read_job_record(scratch());
         });
       }},
  };
  return targets;
}

}  // namespace opcert::fuzz
