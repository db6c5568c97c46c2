// Text inside an HTML page: escaped element content and attribute values, and JSON that can
// sit inside a <script> element whatever its strings hold (kernel names are full of '<',
// '>' and '&').
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace kscope::report {

// '&', '<', '>', '"' and '\'' as character references: safe in element content and in
// quoted attribute values.
std::string EscapeHtml(std::string_view text);

// Compact JSON with '<', '>' and '&' written as \u003c, \u003e and \u0026 (they occur only
// inside strings, where the escapes mean the same), so no string can end the script element
// or open a comment in it; bytes that are not UTF-8 become U+FFFD.
std::string JsonForScript(const nlohmann::json& value);

}  // namespace kscope::report
