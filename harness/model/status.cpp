#include "model/status.h"

#include <array>
#include <utility>

namespace opcert {
namespace {

constexpr std::array<std::pair<Status, std::string_view>, 7> kNames{{
    {Status::kPassed, "PASSED"},
    {Status::kFailed, "FAILED"},
    {Status::kMistrusted, "MISTRUSTED"},
    {Status::kSkipped, "SKIPPED"},
    {Status::kError, "ERROR"},
    {Status::kCrashed, "CRASHED"},
    {Status::kTimeout, "TIMEOUT"},
}};

}  // namespace

std::string_view status_name(Status status) {
  for (const auto& [s, name] : kNames)
    if (s == status) return name;
  return "ERROR";
}

std::optional<Status> parse_status(std::string_view name) {
  for (const auto& [s, n] : kNames)
    if (n == name) return s;
  return std::nullopt;
}

// ERROR gates too: a backend that cannot run a case it claimed to support has not conformed.
bool status_fails_run(Status status) {
  return status == Status::kFailed || status == Status::kCrashed || status == Status::kTimeout ||
         status == Status::kError;
}

}  // namespace opcert
