// `opcert golden export` (docs/CERTIFY.md, "Golden sets"): writes each selected case's inputs and
// golden reference as safetensors, with a manifest of hashes, for `opcert run --golden` on a
// machine without LibTorch. Golden sets are large: the size is said before anything is written,
// and only what a suite or a certification plan names is exported.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "certify/certification_plan.h"
#include "check/suite.h"
#include "cli/build_info.h"
#include "cli/flag_checks.h"
#include "cli/verbs.h"
#include "golden/golden_export.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reference/reference.h"
#include "session/job_list.h"
#include "session/run_paths.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;

struct GoldenExportFlags {
  std::string suite;
  uint64_t seed = 1;
  std::string plan;
  std::string filter;
  std::string out;
  uint64_t max_size = 0;
  bool dry_run = false;
};

std::string mib(uint64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0)); }

fs::path nearest_existing_folder(const fs::path& path) {
  fs::path p = fs::absolute(path);
  while (!fs::exists(p) && p.has_parent_path() && p != p.parent_path()) p = p.parent_path();
  return p;
}

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
  const std::vector<GoldenExportSuite> suites = selected_suites(f);

  uint64_t total = 0;
  std::size_t cases = 0;
  for (const GoldenExportSuite& s : suites) {
    uint64_t bytes = 0;
    for (std::size_t i : s.cases) bytes += golden_case_bytes_bound(s.suite.cases[i]);
    fmt::print("opcert golden: suite {} (seed {}): {} case(s), at most {}\n", s.suite.name, s.seed, s.cases.size(), mib(bytes));
    total += bytes;
    cases += s.cases.size();
  }
  if (cases == 0)
    throw InputError(fmt::format("golden export: no case to export{} (collectives need none: each rank checks its own output)",
                                 f.filter.empty() ? "" : " matches --filter '" + f.filter + "'"));
  const fs::path dir(f.out);
  std::error_code ec;
  const fs::path existing = nearest_existing_folder(dir);  // the disk --out will be on
  const auto space = fs::space(existing, ec);
  fmt::print("opcert golden: {} case(s), at most {} in total, into {}{}\n", cases, mib(total), dir.string(),
             ec ? "" : fmt::format(" ({} free)", mib(space.available)));
  if (f.dry_run) {
    exit_code = kExitOk;
    return;
  }
  if (f.max_size > 0 && total > f.max_size)
    throw InputError(fmt::format("golden export: the set takes up to {}, above --max-size {}: narrow it with --filter, or "
                                 "raise --max-size",
                                 mib(total), mib(f.max_size)));
  if (!ec && total > space.available)
    throw InputError(fmt::format("golden export: the set takes up to {} and {} has {} free: give --out on a larger disk",
                                 mib(total), existing.string(), mib(space.available)));
  if (fs::exists(dir) && !(fs::is_directory(dir) && fs::is_empty(dir)))
    throw InputError(fmt::format("--out '{}' exists and is not empty: a golden set's manifest covers its whole folder; "
                                 "give a new directory", dir.string()));
  fs::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("--out '{}': cannot create it: {}", dir.string(), ec.message()));

  const GoldenProvenance provenance{std::string(build_info().version), std::string(build_info().git_commit), reference_library(),
                                    iso_utc(std::chrono::system_clock::now())};
  std::size_t done = 0, failed = 0;
  uint64_t written = 0;
  const GoldenManifest manifest = export_golden_set(suites, dir, provenance, [&](const GoldenCaseEntry& e) {
    ++done;
    written += e.bytes;
    if (!e.error.empty()) {
      ++failed;
      fmt::print("opcert golden: [{}/{}] {}: no reference: {}\n", done, cases, e.id, e.error);
    }
  });
  fmt::print("opcert golden: wrote {} case file(s) ({}) and manifest.json to {}{}\n", done - failed, mib(written), dir.string(),
             failed == 0 ? "" : fmt::format("; {} case(s) have no reference and will be ERROR in a run, as with LibTorch", failed));
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
