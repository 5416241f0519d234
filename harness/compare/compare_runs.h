// BASE against NEW (`opcert compare BASE NEW`, `--baseline`): results matched by (case id,
// implementation key, seed, device), their status transitions, alignment drift, benchmark times
// with a rank test over the repetitions, and the environment facts that differ; then the gates.
#pragma once

#include <string>

#include "compare/compare_options.h"
#include "compare/comparison.h"
#include "reports/run_report.h"

namespace opcert {

/// Throws InputError when the runs cannot be matched: different seeds, different devices without
/// options.across_devices, no result or benchmark row in common (two suites); or when a timing gate
/// of options.asked has no timings to judge (a run without benchmarks on one side).
Comparison compare_runs(const RunReport& base, const RunReport& now, const std::string& base_label,
                        const std::string& new_label, const CompareOptions& options);

/// The device a run measured on, as its environment records it: its GPUs' names, else its CPU's
/// model ("" when neither is recorded).
std::string run_device(const RunReport& run);

/// Fills comparison.failures from its rows and `options` (the gates named in fail_on, and
/// peer_ratio when min_peer_ratio is set), and comparison.gates with the gates that were on.
void apply_gates(Comparison& comparison, const RunReport& now, const CompareOptions& options);

}  // namespace opcert
