#include "cli/flag_checks.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <system_error>

#include "util/byte_size.h"

namespace opcert {

CLI::Validator whole_number(int64_t min, uint64_t max) {
  const std::string words = fmt::format("a whole number from {} to {}", min, max);
  return CLI::Validator(
      [min, max, words](std::string& text) -> std::string {
        const bool negative = !text.empty() && text[0] == '-';
        const std::string digits = negative ? text.substr(1) : text;
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || (negative && min >= 0))
          return fmt::format("'{}' is not {}", text, words);
        uint64_t magnitude = 0;
        const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
        const bool too_big = error == std::errc::result_out_of_range;
        const bool below = negative ? (too_big || magnitude > static_cast<uint64_t>(-(min + 1)) + 1)
                                    : min > 0 && magnitude < static_cast<uint64_t>(min);
        if (too_big || below || (!negative && magnitude > max)) return fmt::format("'{}' is out of range: give {}", text, words);
        return "";
      },
      "", kCheckWholeNumber);
}

CLI::Validator number(std::string words, std::function<bool(double)> accept, bool percent_sign) {
  return CLI::Validator(
      [words = std::move(words), accept = std::move(accept), percent_sign](std::string& given) -> std::string {
        std::string text = given;
        if (percent_sign && !text.empty() && text.back() == '%') text.pop_back();
        char* end = nullptr;
        const double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || !accept(v))
          return fmt::format("'{}' is not {}", given, words);
        return "";
      },
      "", kCheckNumber);
}

CLI::Validator positive_number(const std::string& unit) {
  return number(fmt::format("a number of {} greater than 0", unit), [](double v) { return v > 0; });
}

CLI::Validator one_of(std::vector<std::string> choices) {
  const std::string listed = fmt::format("{}", fmt::join(choices, ", "));
  return CLI::Validator(
      [choices = std::move(choices), listed](std::string& text) -> std::string {
        for (const std::string& c : choices)
          if (c == text) return "";
        return fmt::format("'{}' is not one of {}", text, listed);
      },
      fmt::format("{{{}}}", fmt::join(choices, ",")), kCheckChoice);
}

namespace {

// What `read` throws, or "" when it reads.
std::string fault(const std::function<void()>& read) {
  try {
    read();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

CLI::Validator parsed_by(std::function<void(const std::string&)> parse, const std::string& name) {
  return CLI::Validator([parse = std::move(parse)](std::string& text) { return fault([&] { parse(text); }); }, "", name);
}

CLI::Validator byte_size() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (fault([&] { (void)parse_byte_size(text, ""); }).empty()) return "";
        return fmt::format("'{}' is not a size in bytes: write a whole number with an optional K, M or G (powers of "
                           "1024), e.g. 4096, 1K, 256M",
                           text);
      },
      "", kCheckByteSize);
}

CLI::Validator size_with_units() {
  const CLI::Validator as_bytes = CLI::AsSizeValue(false);
  return CLI::Validator(
      [as_bytes](std::string& text) -> std::string {
        const std::string given = text;
        if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0])) && as_bytes(text).empty()) return "";
        return fmt::format("'{}' is not a size: give a whole number of bytes with an optional unit (500MiB, 2GiB, 1G)",
                           given);
      },
      "", kCheckByteSize);
}

CLI::Validator regular_expression() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string reason = fault([&] { (void)std::regex(text, std::regex::ECMAScript); });
        if (reason.empty()) return "";
        return fmt::format("'{}' is not a regular expression (ECMAScript: {}); escape a literal '(', '[', '*' or '+' "
                           "with '\\'",
                           text, reason);
      },
      "", kCheckRegex);
}

CLI::Validator existing_path() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::error_code error;
        if (std::filesystem::exists(text, error)) return "";
        return fmt::format("'{}' does not exist", text);
      },
      "", kCheckExistingPath);
}

}  // namespace opcert
