// The rule a certificate is judged by (docs/CERTIFY.md, "The bundle"), written once: `certify`
// applies it to the results it has just run, and `verify` applies it again to the results a bundle
// holds, to check the counts and the verdict that bundle claims.
#pragma once

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "certify/certification_bundle.h"
#include "model/case_result.h"

namespace opcert {

/// One suite's results of the certified backend, as the manifest and summary.md count them.
struct SuiteTally {
  PlannedSuite planned;
  int exit_code = 0;                  ///< of the suite's run
  int results = 0;
  int failing = 0;                    ///< results with a status the plan fails
  std::map<std::string, int> counts;  ///< results by status name ("PASSED")
  /// Results that ran on a chosen device (--devices), by device: its identity label
  /// (device_identity_label) and how many of its results fail; 0 for a device that passes.
  std::map<std::tuple<int, std::string, int>, std::pair<std::string, int>> devices;  ///< key: rank, host, index
};

/// Counts `backend`'s results among `results` (the other backends', the peer's, are not certified).
SuiteTally tally_suite(const PlannedSuite& planned, int exit_code, const std::vector<CaseResult>& results,
                       const std::string& backend, const std::set<Status>& fail_statuses);

/// Certified when no result has a failing status, every suite's run exited 0, and there is at
/// least one result; otherwise the reason, in one line. Where the results ran on chosen devices,
/// a reason of failing results names each device they failed on and those that passed.
Certificate judge_certificate(const std::vector<SuiteTally>& suites, const std::string& backend);

/// manifest.json's `verdict`: "certified" or "not certified".
std::string verdict_text(const Certificate& certificate);

/// summary.md's verdict line: "**Certified**", or "**Not certified**: <reason>".
std::string summary_verdict_line(const Certificate& certificate);

/// "120 PASSED, 6 SKIPPED": the counts as summary.md and verify's messages write them.
std::string statuses_text(const std::map<std::string, int>& counts);

/// The suite's row of summary.md's table: "| smoke | 1 | 126 | 120 PASSED, 6 SKIPPED | pass |".
std::string summary_row(const SuiteTally& suite);

}  // namespace opcert
