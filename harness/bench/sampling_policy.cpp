#include "bench/sampling_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "model/input_error.h"

namespace opcert {

StopReason should_stop(const SamplingPolicy& policy, const BatchMeans& batches, double wall_s) {
  if (policy.fixed_samples) return batches.samples() >= *policy.fixed_samples ? StopReason::kSamples : StopReason::kContinue;
  const bool enough = batches.kept_batches() >= policy.min_batches && batches.kept_samples() >= policy.min_samples &&
                      batches.kept_seconds() >= policy.min_time_s;
  if (enough && policy.max_noise <= 0) return StopReason::kMinTime;
  if (enough && batches.relative_standard_error() <= policy.max_noise &&
      batches.halves_gap() <= policy.drift_factor * policy.max_noise)
    return StopReason::kNoise;
  if (wall_s >= policy.max_time_s && batches.samples() > 0) return StopReason::kTimeLimit;
  return StopReason::kContinue;
}

BatchMeans batch_means_for(const SamplingPolicy& policy) { return BatchMeans(policy.batch_s, policy.throttle_fraction); }

std::string stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::kNoise: return "noise";
    case StopReason::kMinTime: return "min_time";
    case StopReason::kTimeLimit: return "time_limit";
    case StopReason::kSamples: return "samples";
    case StopReason::kContinue: break;
  }
  return "";
}

namespace {

constexpr std::string_view kRepetitionsFlag = "--benchmark_repetitions=";

// A finite, non-negative number of seconds: "0.3" or "0.3s".
std::optional<double> parse_seconds(std::string text) {
  if (!text.empty() && text.back() == 's') text.pop_back();
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

// A positive count of launches: "100x".
std::optional<int64_t> parse_count(const std::string& text) {
  if (text.size() < 2 || text.back() != 'x') return std::nullopt;
  const std::string digits = text.substr(0, text.size() - 1);
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 12) return std::nullopt;
  const int64_t n = std::stoll(digits);
  if (n < 1) return std::nullopt;
  return n;
}

// The value of "--name=value" when `flag` is that flag, else empty; InputError for "--name" alone.
std::optional<std::string> value_of(const std::string& flag, const std::string& name) {
  if (flag == name) throw InputError(fmt::format("'{}' needs a value: {}=VALUE", flag, name));
  if (flag.rfind(name + "=", 0) != 0) return std::nullopt;
  return flag.substr(name.size() + 1);
}

}  // namespace

bool take_time_flags(std::vector<std::string>& benchmark_flags, SamplingPolicy& policy) {
  std::vector<std::string> rest;
  bool min_time_given = false;
  for (const auto& flag : benchmark_flags) {
    if (const auto v = value_of(flag, "--benchmark_min_time")) {
      min_time_given = true;
      if (const auto count = parse_count(*v)) {
        policy.fixed_samples = count;
      } else if (const auto seconds = parse_seconds(*v)) {
        policy.min_time_s = *seconds;
        policy.fixed_samples.reset();
      } else {
        throw InputError(fmt::format("'{}': the value is seconds (0.3 or 0.3s) or a count of launches (100x)", flag));
      }
    } else if (const auto w = value_of(flag, "--benchmark_min_warmup_time")) {
      const auto seconds = parse_seconds(*w);
      if (!seconds) throw InputError(fmt::format("'{}': the value is seconds (0.1 or 0.1s)", flag));
      policy.warmup_s = *seconds;
    } else {
      rest.push_back(flag);
    }
  }
  benchmark_flags = std::move(rest);
  return min_time_given;
}

int64_t repetitions_of(const std::vector<std::string>& benchmark_flags) {
  int64_t n = 1;
  for (const std::string& f : benchmark_flags)
    if (f.rfind(kRepetitionsFlag, 0) == 0) {
      try {
        n = std::max<int64_t>(1, std::stoll(f.substr(kRepetitionsFlag.size())));
      } catch (const std::exception&) {
        n = 1;  // the CLI has already refused it (cli/benchmark_flags.h)
      }
    }
  return n;
}

void apply_repetition_defaults(std::vector<std::string>& benchmark_flags, SamplingPolicy& policy, bool min_time_given,
                               bool max_time_given) {
  const bool repetitions_given = std::any_of(benchmark_flags.begin(), benchmark_flags.end(), [](const std::string& f) {
    return f.rfind(kRepetitionsFlag, 0) == 0;
  });
  if (!repetitions_given) benchmark_flags.push_back(fmt::format("{}{}", kRepetitionsFlag, kDefaultRepetitions));
  const auto repetitions = static_cast<double>(repetitions_of(benchmark_flags));
  if (!min_time_given) policy.min_time_s = kDefaultMeasuredSeconds / repetitions;
  if (!max_time_given) policy.max_time_s = std::max(kDefaultTimeLimitSeconds / repetitions, policy.min_time_s);
}

void validate(const SamplingPolicy& policy) {
  if (!std::isfinite(policy.max_noise) || policy.max_noise < 0 || policy.max_noise >= 1)
    throw InputError(fmt::format("--max-noise {}: give a percent from 0 (no noise target) to under 100",
                                 policy.max_noise * 100));
  if (!std::isfinite(policy.max_time_s) || policy.max_time_s <= 0)
    throw InputError(fmt::format("--max-time {}: give a positive number of seconds", policy.max_time_s));
  if (!policy.fixed_samples && policy.max_time_s < policy.min_time_s)
    throw InputError(fmt::format("--max-time {} is under --benchmark_min_time={}: the limit would end every sampling "
                                 "before its minimum; raise --max-time",
                                 policy.max_time_s, policy.min_time_s));
}

}  // namespace opcert
