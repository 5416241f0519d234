// What the end-to-end tests read back from their outputs (run, bench, compare, certify): a text,
// JSON or JSON-lines file, and its validity against a schema of reports/schema/ (report.json's,
// the comparison's).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace opcert::test {

/// The file's text; "" when it cannot be read.
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline nlohmann::json read_json(const std::filesystem::path& path) { return nlohmann::json::parse(read_text(path)); }

/// One JSON document per non-empty line (results.jsonl, measurements.jsonl).
inline std::vector<nlohmann::json> read_jsonl(const std::filesystem::path& path) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(read_text(path));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  return lines;
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
