// The checks of flag values, run while CLI11 parses (before any verb runs): each refuses a bad
// value with what was wrong and what is accepted, in words (no DBL_MAX, no 2^64-1 from a '-1'),
// and main prints it as the one line of docs/CLI.md ("Bad usage"). Each check is named (the
// kCheck* names), so tests can find which check guards which flag.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace opcert {

inline constexpr const char* kCheckWholeNumber = "whole-number";
inline constexpr const char* kCheckNumber = "number";
inline constexpr const char* kCheckChoice = "choice";
inline constexpr const char* kCheckByteSize = "byte-size";
inline constexpr const char* kCheckRegex = "regex";
inline constexpr const char* kCheckExistingPath = "existing-path";
inline constexpr const char* kCheckList = "list";

/// A whole number from `min` to `max`, written in decimal digits (a leading '-' only when `min`
/// is negative): CLI11 alone reads "-1" into a uint64_t as 2^64-1.
CLI::Validator whole_number(int64_t min = 0, uint64_t max = std::numeric_limits<uint64_t>::max());

/// A finite decimal number that `accept` takes; `words` says which ("a number of seconds greater
/// than 0"). With `percent_sign`, a trailing '%' is allowed.
CLI::Validator number(std::string words, std::function<bool(double)> accept, bool percent_sign = false);

/// A number greater than 0; `unit` names what it counts ("seconds").
CLI::Validator positive_number(const std::string& unit);

/// One of `choices`, spelled exactly.
CLI::Validator one_of(std::vector<std::string> choices);

/// A size in bytes as parse_byte_size reads it (4096, 1K, 256M, 2G).
CLI::Validator byte_size();

/// A size with an optional unit as CLI11's AsSizeValue reads it (500MiB, 2GiB), turned into bytes:
/// use it with ->transform(). A '-' is refused (AsSizeValue alone would wrap it into 2^64-1).
CLI::Validator size_with_units();

/// A regular expression std::regex reads (ECMAScript).
CLI::Validator regular_expression();

/// A path that exists (a file, a directory, or a pipe such as bash's <(...)).
CLI::Validator existing_path();

/// A value that `parse` reads; `parse` throws InputError (or std::exception) with the reason, which
/// becomes the message. `name` is the check's name (kCheckList for lists of names).
CLI::Validator parsed_by(std::function<void(const std::string&)> parse, const std::string& name = kCheckList);

}  // namespace opcert
