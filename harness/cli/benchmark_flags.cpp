#include "cli/benchmark_flags.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <limits>
#include <string_view>

#include "bench/bench_runner.h"
#include "bench/sampling_policy.h"
#include "cli/flag_checks.h"

namespace opcert {
namespace {

enum class ValueKind { kText, kTruth, kRepetitions, kColor, kTimeUnit, kTime };

struct PassThrough {
  std::string_view name;
  ValueKind kind;
};

// Google Benchmark 1.7.1's flags (benchmark.cc), less those opcert sets (is_reserved_benchmark_flag).
constexpr PassThrough kPassThrough[] = {
    {"--benchmark_filter", ValueKind::kText},
    {"--benchmark_min_time", ValueKind::kTime},
    {"--benchmark_min_warmup_time", ValueKind::kTime},
    {"--benchmark_repetitions", ValueKind::kRepetitions},
    {"--benchmark_enable_random_interleaving", ValueKind::kTruth},
    {"--benchmark_report_aggregates_only", ValueKind::kTruth},
    {"--benchmark_display_aggregates_only", ValueKind::kTruth},
    {"--benchmark_counters_tabular", ValueKind::kTruth},
    {"--benchmark_color", ValueKind::kColor},
    {"--benchmark_time_unit", ValueKind::kTimeUnit},
    {"--benchmark_perf_counters", ValueKind::kText},
    {"--benchmark_context", ValueKind::kText},
};

// "" when `value` suits `kind`, else what is wrong with it.
std::string check_value(ValueKind kind, std::string value, const std::string& flag) {
  const std::vector<std::string> truths = {"true", "false", "yes", "no", "on", "off", "1", "0"};
  switch (kind) {
    case ValueKind::kText: return "";
    case ValueKind::kTruth: return one_of(truths)(value);
    case ValueKind::kRepetitions: return whole_number(1, std::numeric_limits<int32_t>::max())(value);
    case ValueKind::kColor: {
      std::vector<std::string> colors = truths;
      colors.insert(colors.begin(), "auto");
      return one_of(colors)(value);
    }
    case ValueKind::kTimeUnit: return one_of({"ns", "us", "ms", "s"})(value);
    case ValueKind::kTime: {
      std::vector<std::string> flags = {flag};
      SamplingPolicy scratch;
      try {
        take_time_flags(flags, scratch);  // opcert reads these two itself: its rules
      } catch (const std::exception& e) {
        return e.what();
      }
      return "";
    }
  }
  return "";
}

}  // namespace

std::vector<std::string> checked_benchmark_flags(const std::vector<std::string>& extras) {
  for (const std::string& arg : extras) {
    if (!arg.starts_with("--benchmark_"))
      throw CLI::ValidationError(fmt::format("{} '{}': only Google Benchmark's --benchmark_* flags pass through",
                                             arg.starts_with("-") ? "unknown flag" : "unexpected argument", arg));
    const std::string name = arg.substr(0, arg.find('='));
    if (is_reserved_benchmark_flag(arg) || is_reserved_benchmark_flag(name + "="))
      throw CLI::ValidationError(name, "is set by opcert bench (the table is its display; bench.json in --out is "
                                       "Google Benchmark's JSON): drop the flag");
    const PassThrough* known = nullptr;
    for (const PassThrough& p : kPassThrough)
      if (p.name == name) known = &p;
    if (known == nullptr)
      throw CLI::ValidationError(name, "is not a flag of Google Benchmark 1.7 (see docs/CLI.md, `opcert bench`)");
    const bool has_value = name.size() < arg.size();
    // A truth flag alone means true, as in Google Benchmark; every other flag needs its value.
    if (!has_value && known->kind != ValueKind::kTruth)
      throw CLI::ValidationError(name, fmt::format("needs a value: {}=VALUE", name));
    if (has_value) {
      const std::string problem = check_value(known->kind, arg.substr(name.size() + 1), arg);
      if (!problem.empty()) throw CLI::ValidationError(name, problem);
    }
  }
  return extras;
}

}  // namespace opcert
