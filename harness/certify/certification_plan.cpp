#include "certify/certification_plan.h"

#include <fmt/format.h>

#include <filesystem>

#include "loader/file_digest.h"
#include "check/suite.h"
#include "model/input_error.h"
#include "model/strict_json.h"
#include "model/text_file.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string find_plan(const std::string& name_or_path) {
  if (name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".json")) {
    if (!fs::is_regular_file(name_or_path)) throw InputError(fmt::format("plan file '{}' not found", name_or_path));
    return name_or_path;
  }
  std::set<std::string> known;
  for (const auto& dir : suite_search_path()) {
    const fs::path candidate = fs::path(dir) / "certify" / (name_or_path + ".json");
    if (fs::is_regular_file(candidate)) return candidate.string();
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fs::path(dir) / "certify", ec))
      if (entry.path().extension() == ".json") known.insert(entry.path().stem().string());
  }
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  throw InputError(fmt::format("no certification plan '{}' (plans: {}); or give a plan file", name_or_path,
                               list.empty() ? "none found" : list));
}

}  // namespace

CertificationPlan load_certification_plan(const std::string& name_or_path) {
  CertificationPlan plan;
  plan.path = find_plan(name_or_path);
  const auto fail = [&](const std::string& what) { throw InputError(fmt::format("{}: {}", plan.path, what)); };
  const std::optional<std::string> text = read_text_file(plan.path);
  if (!text) fail("cannot be read");
  const json doc = parse_strict_json(*text, plan.path);
  if (!doc.is_object()) fail("a plan is a JSON object");
  for (const auto& [key, value] : doc.items())
    if (key != "plan_format" && key != "name" && key != "description" && key != "suites" && key != "fail_statuses")
      fail(fmt::format("unknown field '{}' (known: plan_format, name, description, suites, fail_statuses)", key));
  if (doc.value("plan_format", std::string()) != "1.0") fail("field 'plan_format' must be \"1.0\"");
  if (!doc.contains("name") || !doc["name"].is_string()) fail("missing field 'name'");
  plan.name = doc["name"].get<std::string>();
  plan.description = doc.value("description", std::string());
  if (!doc.contains("suites") || !doc["suites"].is_array() || doc["suites"].empty())
    fail("field 'suites' must be a non-empty array of {\"suite\": NAME, \"seed\": N}");
  for (std::size_t i = 0; i < doc["suites"].size(); ++i) {
    const json& s = doc["suites"][i];
    if (!s.is_object() || !s.contains("suite") || !s["suite"].is_string())
      fail(fmt::format("suites[{}] needs a field 'suite' naming a suite", i));
    const uint64_t seed = s.value("seed", uint64_t{1});
    for (const auto& earlier : plan.suites)
      if (earlier.suite == s["suite"].get<std::string>() && earlier.seed == seed)
        fail(fmt::format("suites[{}]: suite {} with seed {} is already in the plan", i, earlier.suite, seed));
    plan.suites.push_back({s["suite"].get<std::string>(), seed});
  }
  if (!doc.contains("fail_statuses") || !doc["fail_statuses"].is_array())
    fail("field 'fail_statuses' must be an array of statuses (FAILED, MISTRUSTED, ERROR, CRASHED, TIMEOUT, SKIPPED)");
  for (const auto& s : doc["fail_statuses"]) {
    const auto status = s.is_string() ? parse_status(s.get<std::string>()) : std::nullopt;
    if (!status || *status == Status::kPassed) fail(fmt::format("fail_statuses: '{}' is not a failing status", s.dump()));
    plan.fail_statuses.insert(*status);
  }
  plan.sha256 = sha256_file_hex(plan.path);
  return plan;
}

}  // namespace opcert
