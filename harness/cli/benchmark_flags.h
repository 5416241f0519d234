// Google Benchmark's own flags, which `opcert bench` passes through to benchmark::Initialize
// (--benchmark_repetitions=N, ...): each is checked here first, value and all, because Google
// Benchmark keeps a flag whose value it cannot read ("unknown flag") and reads any word as false.
#pragma once

#include <string>
#include <vector>

namespace opcert {

/// The arguments CLI11 left over for `opcert bench`, checked: every one a --benchmark_NAME[=VALUE]
/// flag that Google Benchmark 1.7 knows, that opcert does not set itself, with a value of its
/// type. Throws CLI::ValidationError(flag, what), which main prints as the one line of bad usage.
std::vector<std::string> checked_benchmark_flags(const std::vector<std::string>& extras);

}  // namespace opcert
