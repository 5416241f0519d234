// Text made safe for the dashboard's HTML: element content and attribute values, and JSON that
// sits inside a <script> element.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace opcert {

/// & < > " ' escaped (and what XML cannot hold replaced), for content and attribute values alike.
std::string html_escape(std::string_view text);

/// The document as JSON text that cannot end its <script> element early: < > & written as \u escapes.
std::string json_for_script(const nlohmann::json& doc);

}  // namespace opcert
