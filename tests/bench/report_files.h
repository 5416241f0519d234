// What the end-to-end tests read back from their outputs (bench, compare, certify): a JSON file,
// and its validity against a schema of reports/schema/ (report.json's, the comparison's).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace opcert::test {

inline nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

/// Validates `report` against `schema` with python3-jsonschema: "" when valid, the validator's
/// complaint otherwise, "skip" when no such python is installed.
inline std::string schema_problems(const std::filesystem::path& schema, const std::filesystem::path& report) {
  const std::string cmd = "python3 -c 'import json,sys\ntry:\n import jsonschema\nexcept ImportError:\n print(\"skip\"); sys.exit(0)\n"
                          "jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))' " +
                          schema.string() + " " + report.string() + " 2>&1";
  std::string output;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    while (std::fgets(buf, sizeof buf, p)) output += buf;
    if (pclose(p) != 0 && output.empty()) output = "validator failed";
  }
  return output == "skip\n" ? "skip" : output;
}

}  // namespace opcert::test
