// The dashboard's own script and style sheet (assets/), built into opcert so that a site needs
// nothing from the source tree.
#pragma once

#include <string_view>

namespace opcert {

std::string_view dashboard_js();
std::string_view dashboard_css();

}  // namespace opcert
