#include "cli/usage_error.h"

#include <fmt/format.h>

#include <vector>

namespace opcert {
namespace {

// CLI11 (2.1) puts the facts of its errors only in their messages; these are their shapes.
constexpr std::string_view kCouldNotConvert = "Could not convert: ";
constexpr std::string_view kNotAllowed = "The value ";
constexpr std::string_view kNotExpected = " not expected: ";
constexpr std::string_view kRequired = " is required";
constexpr std::string_view kExcludes = " excludes ";
constexpr std::string_view kRequires = " requires ";

struct Said {
  std::string what;
  std::string flag;
};

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// "NAME: REST" into {NAME, REST}; {"", text} when there is no such NAME.
std::pair<std::string, std::string> split_name(std::string_view text) {
  const auto colon = text.find(": ");
  if (colon == std::string_view::npos || text.substr(0, colon).find(' ') != std::string_view::npos) return {"", std::string(text)};
  return {std::string(text.substr(0, colon)), std::string(text.substr(colon + 2))};
}

const CLI::App& deepest_parsed(const CLI::App& app) {
  const CLI::App* at = &app;
  for (std::vector<CLI::App*> parsed = at->get_subcommands(); !parsed.empty(); parsed = at->get_subcommands())
    at = parsed.back();
  return *at;
}

std::string subcommand_list(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (!sub->get_group().empty()) names.push_back(sub->get_name());  // the hidden worker has no group
  return fmt::format("{}", fmt::join(names, ", "));
}

// What a value of `flag` should have been, from its type name ("UINT", "SECONDS").
std::string type_of(const CLI::App& verb, const std::string& flag) {
  const CLI::Option* option = verb.get_option_no_throw(flag);
  if (option == nullptr) return "a value of its type";
  if (option->get_expected_max() == 0) return "true or false";  // a flag
  const std::string type = option->get_type_name();
  return type.empty() ? "a value of its type" : type;
}

Said conversion(const CLI::App& verb, std::string_view message) {
  if (starts_with(message, kCouldNotConvert)) {
    const std::string rest(message.substr(kCouldNotConvert.size()));
    const auto equals = rest.find(" = ");
    const std::string flag = rest.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : rest.substr(equals + 3);
    return {fmt::format("'{}' cannot be read as {}", value, type_of(verb, flag)), flag};
  }
  if (starts_with(message, kNotAllowed)) {  // "The value X is not an allowed value for NAME"
    const auto is = message.find(" is not an allowed value for ");
    if (is != std::string_view::npos)
      return {fmt::format("'{}' is not an allowed value", message.substr(kNotAllowed.size(), is - kNotAllowed.size())),
              std::string(message.substr(message.rfind(' ') + 1))};
  }
  auto [flag, rest] = split_name(message);  // "NAME: too many inputs for a flag", "NAME: Should be true/false ..."
  if (flag.empty()) return {std::string(message), ""};
  return {starts_with(rest, "too many") ? "is a flag and takes no value" : "takes true or false", flag};
}

Said argument_count(const CLI::App& verb, std::string_view message) {
  if (starts_with(message, "Expected ")) {  // "Expected exactly N arguments to NAME, got M"
    const auto to = message.find(" arguments to ");
    const auto comma = message.rfind(", got ");
    if (to != std::string_view::npos && comma != std::string_view::npos) {
      const std::string flag(message.substr(to + 14, comma - to - 14));
      return {fmt::format("{} values expected, {}", message.substr(9, to - 9), message.substr(comma + 2)), flag};
    }
  }
  auto [flag, rest] = split_name(message);
  if (flag.empty()) {
    const auto space = message.find(' ');  // "NAME was given a disallowed flag override"
    return {"is a flag and takes no value", std::string(message.substr(0, space))};
  }
  if (rest.find(" missing") != std::string::npos) return {fmt::format("needs a value ({})", type_of(verb, flag)), flag};
  return {fmt::format("takes {}", rest), flag};  // "At Most 2 required but received 3"
}

Said describe(const CLI::App& app, const CLI::App& verb, const CLI::ParseError& error) {
  const std::string_view message = error.what();
  if (dynamic_cast<const CLI::ValidationError*>(&error)) {
    auto [flag, rest] = split_name(message);
    if (!flag.empty() && starts_with(rest, flag + ": ")) rest.erase(0, flag.size() + 2);  // a parser that names it too
    return {rest, flag};
  }
  if (dynamic_cast<const CLI::ConversionError*>(&error)) return conversion(verb, message);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error)) return argument_count(verb, message);
  if (dynamic_cast<const CLI::ExtrasError*>(&error)) {
    const auto at = message.find(kNotExpected);
    std::string first(at == std::string_view::npos ? message : message.substr(at + kNotExpected.size()));
    first = first.substr(0, first.find(' '));
    const bool flag = starts_with(first, "-");
    return {fmt::format("{} '{}'", flag ? "unknown flag" : "unexpected argument", first), ""};
  }
  if (dynamic_cast<const CLI::RequiredError*>(&error)) {
    if (starts_with(message, "A subcommand"))
      return {fmt::format("no {} given: give one of {}", &verb == &app ? "verb" : "subcommand", subcommand_list(verb)), ""};
    if (const auto at = message.find(kRequired); at != std::string_view::npos) {
      const std::string flag(message.substr(0, at));
      return {fmt::format("{} is missing: this verb needs it", flag), flag};
    }
  }
  if (dynamic_cast<const CLI::ExcludesError*>(&error)) {
    if (const auto at = message.find(kExcludes); at != std::string_view::npos)
      return {fmt::format("{} and {} cannot be given together: give one", message.substr(0, at),
                          message.substr(at + kExcludes.size())),
              std::string(message.substr(0, at))};
  }
  if (dynamic_cast<const CLI::RequiresError*>(&error)) {
    if (const auto at = message.find(kRequires); at != std::string_view::npos)
      return {fmt::format("{} needs {}", message.substr(0, at), message.substr(at + kRequires.size())),
              std::string(message.substr(0, at))};
  }
  return {std::string(message), ""};
}

}  // namespace

std::string usage_error_line(std::string_view what, std::string_view verb, std::string_view flag) {
  std::string where = "opcert";
  if (!verb.empty()) where += fmt::format(" {}", verb);
  const std::string help = where + " --help";
  if (!flag.empty()) where += fmt::format(" {}", flag);
  return fmt::format("opcert: error: {} ({}); see {}", what, where, help);
}

std::string parsed_verb(const CLI::App& app) {
  std::string path;
  const CLI::App* at = &app;
  for (std::vector<CLI::App*> parsed = at->get_subcommands(); !parsed.empty(); parsed = at->get_subcommands()) {
    at = parsed.back();
    path += (path.empty() ? "" : " ") + at->get_name();
  }
  return path;
}

std::string parse_error_line(const CLI::App& app, const CLI::ParseError& error) {
  const Said said = describe(app, deepest_parsed(app), error);
  return usage_error_line(said.what, parsed_verb(app), said.flag);
}

std::string verb_list(const CLI::App& app) { return subcommand_list(app); }

}  // namespace opcert
