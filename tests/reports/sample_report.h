// A small run with every status, a NaN metric, a plugin, the torch peer and hostile text, shared
// by the writer tests. Its figures are chosen so the expected counts and ratios are easy by hand.
#pragma once

#include <string>

#include "reports/run_report.h"

namespace opcert::test {

/// A message with every character XML and Markdown treat specially, and two control characters.
inline const std::string kHostileMessage = "bound <1e-3> & \"quoted\" 'single' \x01 bell\x07 | pipe `tick`";

TensorMetrics metrics(const std::string& name, double rmse);

CaseResult result(const std::string& backend, const std::string& op, const std::string& case_id, Status status,
                  std::optional<double> rmse = std::nullopt);

/// Backends cpu (built-in), acme (plugin) and torch (peer). Results:
///   cpu   gemm     g1 PASSED rmse 0.5 | g2 FAILED rmse NaN, hostile message | g3 MISTRUSTED rmse 0
///   cpu   softmax  s1 SKIPPED | s2 CRASHED
///   acme  gemm     g1 PASSED rmse 0.1 | g2 TIMEOUT | g3 ERROR
///   torch gemm     g1 PASSED rmse 0.2 | g2 PASSED rmse 0.25 | g3 PASSED rmse 0
/// After fill_alignment: cpu g1 2.5, cpu g2 NaN, cpu g3 1, acme g1 0.5.
RunReport sample_report();

/// A bench run over sample_report()'s header: one benchmark of gemm g1 on acme (a GPU), two
/// repetitions sampled under --max-noise 0.5%: the first stopped by its noise (0.2%) with the GPU at
/// 1980 MHz, the second at the time limit (0.8%) with the GPU power-capped at 1755 MHz, then idle.
RunReport sample_bench_report();

}  // namespace opcert::test
