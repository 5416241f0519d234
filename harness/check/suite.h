// Suites: JSON files of cases (docs/SUITES.md). A suite is named by its path under suites/
// without ".json" ("smoke", "sweeps/gemm", "models/llama3-8b") or given as a file path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/case.h"

namespace opcert {

struct Suite {
  std::string name;        // as asked for: "smoke" or the file path
  std::string path;        // the file read
  std::string sha256;      // of the file, for reports
  std::vector<Case> cases; // ids unique, in file order
};

/// Directories searched for named suites: OPCERT_SUITE_PATH entries, then the source tree's
/// suites/ and the installed share/opcert/suites.
std::vector<std::string> suite_search_path();

/// Loads and expands a suite; `seed` is stored in every case. Throws InputError with
/// "<file>:<line>:<column>: ..." or "<file>: cases[3] (<id>): ..." for every bad input.
Suite load_suite(const std::string& name_or_path, uint64_t seed);

/// Every suite name found on the search path, sorted.
std::vector<std::string> available_suites();

/// A folder name for `suite` under `seed`, for a certificate's reports and a golden set's files:
/// "smoke.seed1", "sweeps-gemm.seed7", "<a file's stem>.seed1".
std::string suite_folder_name(const std::string& suite, uint64_t seed);

}  // namespace opcert
