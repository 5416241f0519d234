// `opcert golden export` (docs/CERTIFY.md, "Golden sets"): writes each selected case's inputs and
// golden reference as safetensors, with a manifest of hashes, for `opcert run --golden` on a
// machine without LibTorch. Golden sets are large: the size is said before anything is written,
// and only what a suite or a certification plan names is exported.
#include <chrono>

#include "certify/certification_plan.h"
#include "check/suite.h"
#include "cli/build_info.h"
#include "cli/flag_checks.h"
#include "cli/verbs.h"
#include "golden/export_command.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reference/reference.h"
#include "session/job/run_paths.h"
#include "session/planning/job_list.h"

namespace opcert {
namespace {

struct GoldenExportFlags {
  std::string suite;
  uint64_t seed = 1;
  std::string plan;
  std::string filter;
  std::string out;
  uint64_t max_size = 0;
  bool dry_run = false;
};

std::vector<GoldenExportSuite> selected_suites(const GoldenExportFlags& f) {
  std::vector<GoldenExportSuite> out;
  if (!f.plan.empty()) {
    for (const PlannedSuite& p : load_certification_plan(f.plan).suites)
      out.push_back(select_golden_cases(load_suite(p.suite, p.seed), p.seed, f.filter));
  } else {
    out.push_back(select_golden_cases(load_suite(f.suite, f.seed), f.seed, f.filter));
  }
  return out;
}

void export_verb(const GoldenExportFlags& f, int& exit_code) {
  if (f.plan.empty() == f.suite.empty()) throw InputError("golden export: give --suite or --plan (one of them)");
  filter_cases({}, f.filter);  // a bad expression is bad usage before anything loads
  if (!reference_available())
    throw InputError("golden export: this opcert was built without LibTorch and cannot compute references; "
                     "export on a machine with it (libtorch-dev) and copy the folder");
  const GoldenProvenance provenance{std::string(build_info().version), std::string(build_info().git_commit),
                                    reference_library(), iso_utc(std::chrono::system_clock::now())};
  export_golden(selected_suites(f), {f.out, f.max_size, f.dry_run, f.filter}, provenance);
  exit_code = kExitOk;
}

}  // namespace

void add_golden_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand("golden", "Golden sets: references exported for machines without LibTorch");
  verb->require_subcommand(1);
  auto* exp = verb->add_subcommand(
      "export",
      "Write each case's inputs and golden reference (values, magnitudes, conditions, sampled indices) as safetensors, "
      "with a manifest of sha256 hashes, for `opcert run --golden DIR` on a build without LibTorch. Says the size first.");
  auto flags = std::make_shared<GoldenExportFlags>();
  exp->add_option("--suite", flags->suite, "Suite name (under suites/) or a suite file")->type_name("NAME|FILE");
  exp->add_option("--seed", flags->seed, "Seed of the generated inputs (with --suite)")
      ->check(whole_number())
      ->capture_default_str();
  exp->add_option("--plan", flags->plan, "Export every suite and seed of this certification plan (suites/certify/)")
      ->type_name("NAME|FILE");
  exp->add_option("--filter", flags->filter, "Export only cases whose id matches this regular expression (ECMAScript)")
      ->type_name("REGEX")
      ->check(regular_expression());
  exp->add_option("--out", flags->out, "The set's directory, new or empty")->type_name("DIR")->required();
  exp->add_option("--max-size", flags->max_size, "Refuse a set larger than this (e.g. 500MiB, 2GiB)")
      ->type_name("SIZE")
      ->transform(size_with_units());
  exp->add_flag("--dry-run", flags->dry_run, "Say what would be exported and its size; write nothing");
  exp->callback([flags, &exit_code] { export_verb(*flags, exit_code); });
}

}  // namespace opcert
