#include "golden/export_command.h"

#include <fmt/format.h>

#include "model/input_error.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;

std::string mib(uint64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0)); }

fs::path nearest_existing_folder(const fs::path& path) {
  fs::path p = fs::absolute(path);
  while (!fs::exists(p) && p.has_parent_path() && p != p.parent_path()) p = p.parent_path();
  return p;
}

// The new or empty folder the set goes into, created; InputError otherwise.
void make_set_folder(const fs::path& dir) {
  if (fs::exists(dir) && !(fs::is_directory(dir) && fs::is_empty(dir)))
    throw InputError(fmt::format("--out '{}' exists and is not empty: a golden set's manifest covers its whole folder; "
                                 "give a new directory", dir.string()));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("--out '{}': cannot create it: {}", dir.string(), ec.message()));
}

}  // namespace

void export_golden(const std::vector<GoldenExportSuite>& suites, const GoldenExportTarget& target,
                   const GoldenProvenance& provenance) {
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
                                 target.filter.empty() ? "" : " matches --filter '" + target.filter + "'"));
  const fs::path& dir = target.dir;
  std::error_code ec;
  const fs::path existing = nearest_existing_folder(dir);  // the disk --out will be on
  const auto space = fs::space(existing, ec);
  fmt::print("opcert golden: {} case(s), at most {} in total, into {}{}\n", cases, mib(total), dir.string(),
             ec ? "" : fmt::format(" ({} free)", mib(space.available)));
  if (target.dry_run) return;
  if (target.max_size > 0 && total > target.max_size)
    throw InputError(fmt::format("golden export: the set takes up to {}, above --max-size {}: narrow it with --filter, or "
                                 "raise --max-size",
                                 mib(total), mib(target.max_size)));
  if (!ec && total > space.available)
    throw InputError(fmt::format("golden export: the set takes up to {} and {} has {} free: give --out on a larger disk",
                                 mib(total), existing.string(), mib(space.available)));
  make_set_folder(dir);

  std::size_t done = 0, failed = 0;
  uint64_t written = 0;
  export_golden_set(suites, dir, provenance, [&](const GoldenCaseEntry& e) {
    ++done;
    written += e.bytes;
    if (!e.error.empty()) {
      ++failed;
      fmt::print("opcert golden: [{}/{}] {}: no reference: {}\n", done, cases, e.id, e.error);
    }
  });
  fmt::print("opcert golden: wrote {} case file(s) ({}) and manifest.json to {}{}\n", done - failed, mib(written), dir.string(),
             failed == 0 ? "" : fmt::format("; {} case(s) have no reference and will be ERROR in a run, as with LibTorch", failed));
}

}  // namespace opcert
