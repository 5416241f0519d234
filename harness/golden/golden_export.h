// Writing a golden set (`opcert golden export`): each selected case's inputs generated, its
// reference computed (LibTorch, fp64) and written as one safetensors file, then the manifest.
// Sizes are known before anything is written, so that the CLI can say them first.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "check/suite.h"
#include "golden/golden_set.h"

namespace opcert {

/// A suite loaded under one seed and the indices of its cases to export (collectives excluded:
/// they are checked per rank and need no reference).
struct GoldenExportSuite {
  Suite suite;
  uint64_t seed = 1;
  std::vector<std::size_t> cases;
};

/// The indices of the cases of `suite` matching `filter` that a golden set holds: every one but
/// the collectives (checked per rank, they need no reference).
std::vector<std::size_t> golden_case_indices(const Suite& suite, const std::string& filter);

/// `suite` with golden_case_indices as its cases to export.
GoldenExportSuite select_golden_cases(Suite suite, uint64_t seed, const std::string& filter);

/// An upper bound of the bytes of case `c`'s golden file: its inputs, for each output 8 bytes per
/// checked element for the values, the magnitudes and the conditions (and the index when sampled),
/// and the header.
uint64_t golden_case_bytes_bound(const Case& c);

/// What the manifest says about the exporter.
struct GoldenProvenance {
  std::string opcert_version;
  std::string opcert_commit;
  std::string reference;
  std::string created;
};

/// Writes every selected case's file under `dir` (which must exist) and then manifest.json, the
/// last file written, so that a set without a manifest is visibly unfinished. A case whose
/// reference fails is listed with its error instead of a file (a run reports that error for it).
/// `on_case` is told of each case as it is written. Throws std::runtime_error for a file that
/// cannot be written.
GoldenManifest export_golden_set(std::span<const GoldenExportSuite> suites, const std::filesystem::path& dir,
                                 const GoldenProvenance& provenance, const std::function<void(const GoldenCaseEntry&)>& on_case);

}  // namespace opcert
