// Whether a certification bundle agrees with itself (docs/CERTIFY.md, "Verifying"). SHA256SUMS only
// proves the files are those it lists; in a bundle that is not signed, or verified without --pubkey,
// whoever edits a file can list it again. So verify also checks that every file tells the same story
// as results.jsonl, the record each case was written to as it finished:
// - report.json holds the same results, case by case (case id, implementation, rank and device),
//   each once, with the same backend and status; and its `summary` counts are those results';
// - each report's summary.md counts them the same, backend by backend and op by op;
// - the manifest's counts per suite, its totals, its verdict and reason are what the certificate's
//   rule (certificate_rule.h) gives for those results under plan.json's failing statuses;
// - the bundle's summary.md has the same verdict line and the same row per suite.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "model/case_result.h"

namespace opcert {

/// One line per disagreement, `<file>: <case or claim>: <what it says>; <what results.jsonl gives>`.
/// Empty when the bundle agrees with itself. `manifest` is manifest.json as read.
std::vector<std::string> consistency_problems(const std::filesystem::path& bundle, const nlohmann::json& manifest);

/// The results a suite of the manifest (an entry of its `suites`) recorded: its results.jsonl,
/// which reruns draw their cases and recorded verdicts from. Throws InputError naming the file when
/// the manifest's report path leaves the bundle or the file cannot be read.
std::vector<CaseResult> recorded_results(const std::filesystem::path& bundle, const nlohmann::json& manifest_suite);

}  // namespace opcert
