// `opcert golden export` once its suites are chosen (docs/CERTIFY.md, "Golden sets"): says the
// size of the set and the room on the disk first, refuses a set too large for either, then writes
// it and says what it wrote.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "golden/golden_export.h"

namespace opcert {

/// Where and how much: --out, --max-size (0: no cap), --dry-run, and --filter for messages.
struct GoldenExportTarget {
  std::filesystem::path dir;
  uint64_t max_size = 0;
  bool dry_run = false;
  std::string filter;
};

/// Prints each suite's cases and size bound, then the total and the free space; with dry_run,
/// nothing more. InputError (nothing written) for no case to export, a set above max_size or the
/// free space, or a `dir` that is not new or empty or cannot be created.
void export_golden(const std::vector<GoldenExportSuite>& suites, const GoldenExportTarget& target,
                   const GoldenProvenance& provenance);

}  // namespace opcert
