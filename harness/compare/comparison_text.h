// `opcert compare`'s human outputs: the terminal report (colour only when asked: a TTY without
// NO_COLOR) and the Markdown one for a pull-request comment. Same sections, same order: the
// environment that differs, status transitions, alignment drift, timings, the gates.
#pragma once

#include <string>

#include "compare/comparison.h"

namespace opcert {

std::string comparison_text(const Comparison& comparison, bool color);
std::string comparison_markdown(const Comparison& comparison);

/// Colour for stdout: a terminal, and NO_COLOR unset or empty (no-color.org).
bool stdout_wants_color();

}  // namespace opcert
