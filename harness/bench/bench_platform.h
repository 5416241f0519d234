// The platform config a backend is benched under (--platform, or the one whose `device` its device
// matches) and what follows from it by default: its peaks give % peak, and its production keys
// ("implementations") are the implementations `opcert bench` times when --impl is not given.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "bench/bench_settings.h"
#include "check/suite.h"
#include "loader/platform/platform_config.h"
#include "session/planning/job_list.h"
#include "session/planning/targets.h"

namespace opcert {

/// The platform config of `backend`: --platform when given, else the first whose `device` is part
/// of the backend's device name (for a CUDA device also the GPU's name in `gpus`, nvidia-smi's
/// list); null for none.
const PlatformConfig* bench_platform(const BackendHandle& backend, const BenchSettings& s, const nlohmann::json& gpus);

/// --impl all: time every implementation.
inline constexpr const char* kEveryImplementation = "all";

/// The globs --impl gives session/planning/job_list.h: "" (every implementation) for `all`.
inline std::string impl_globs(const std::string& impl) { return impl == kEveryImplementation ? "" : impl; }

/// Narrows `jobs`, planned with every implementation, to bench's default: for each selected
/// backend whose platform config names production keys, the production key of each op it names
/// (when the backend offers that key; an op it names none for keeps every implementation); every
/// implementation of a backend without one; the peer's jobs untouched. Returns the one line that
/// says which keys were chosen and why.
std::string keep_production_keys(std::vector<Job>& jobs, const std::vector<RunTarget>& targets, const Suite& suite,
                                 const BenchSettings& s, const nlohmann::json& gpus);

}  // namespace opcert
