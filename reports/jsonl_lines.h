// Reading a .jsonl file opcert streams (results.jsonl, measurements.jsonl) line by line, the way a
// file its writer may have been killed while writing must be read.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace opcert {

/// One line of a .jsonl file: its number (from 1), its text as written (no newline), its JSON.
struct JsonlLine {
  std::size_t number = 0;
  std::string text;
  nlohmann::json doc;
};

/// The lines of `path`, blank ones skipped. A last line without its newline that does not parse is
/// the trace of a killed writer: it is dropped and *dropped_partial_line (when given) is set. Any
/// other line that is not JSON throws std::runtime_error "<path>:<line>: not JSON: <why>", as does
/// a file that cannot be read.
std::vector<JsonlLine> read_jsonl_lines(const std::filesystem::path& path, bool* dropped_partial_line = nullptr);

}  // namespace opcert
