// The one line of bad usage (docs/CLI.md, "Bad usage"): every parse failure of every verb, CLI11's
// (ConversionError, ValidationError, ExtrasError, RequiredError, ...) and the flag checks', is
//     opcert: error: WHAT (opcert VERB FLAG); see opcert VERB --help
// and exit code 2. A check that needs more than the flag's text (Google Benchmark's pass-through
// flags) throws CLI::ValidationError(flag, what) from the verb, and gets the same line.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>

namespace opcert {

/// `opcert: error: WHAT (opcert VERB FLAG); see opcert VERB --help`, no newline. `verb` is the
/// verb path ("run", "golden export", or "" for none); `flag` may be "".
std::string usage_error_line(std::string_view what, std::string_view verb, std::string_view flag);

/// The verb path of what `app` parsed ("history add"): its chain of parsed subcommands.
std::string parsed_verb(const CLI::App& app);

/// The line for a ParseError that parsing `app` threw (not CLI11's Success: --help, --version).
std::string parse_error_line(const CLI::App& app, const CLI::ParseError& error);

/// The verbs of `app` a user may type, comma-separated (not the hidden worker).
std::string verb_list(const CLI::App& app);

}  // namespace opcert
