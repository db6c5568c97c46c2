// Small conversions the report.json writers share: absent or non-finite figures become null.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace kscope::report {

// A number, or null when absent or not finite.
inline nlohmann::json Opt(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json();
}
inline nlohmann::json Text(const std::optional<std::string>& s) { return s ? nlohmann::json(*s) : nlohmann::json(); }
inline nlohmann::json Int(const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }
// A text, or null when empty.
inline nlohmann::json NonEmpty(const std::string& s) { return s.empty() ? nlohmann::json() : nlohmann::json(s); }

}  // namespace kscope::report
