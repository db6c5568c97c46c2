#include "report/json_fields.h"

#include <cmath>
#include <cstdint>

namespace kscope::report {

namespace {
const nlohmann::json kNull;
const nlohmann::json kEmptyList = nlohmann::json::array();
}  // namespace

const nlohmann::json& Field(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

const nlohmann::json& ListField(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json& value = Field(object, key);
  return value.is_array() ? value : kEmptyList;
}

std::optional<double> NumberField(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json& value = Field(object, key);
  if (!value.is_number()) return std::nullopt;
  const auto number = value.get<double>();
  return std::isfinite(number) ? std::optional(number) : std::nullopt;
}

std::optional<int64_t> IntegerField(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json& value = Field(object, key);
  if (value.is_number_unsigned() && value.get<uint64_t>() > INT64_MAX) return std::nullopt;
  if (value.is_number_integer()) return value.get<int64_t>();
  auto number = NumberField(object, key);
  if (!number || std::abs(*number) > 9.0e18) return std::nullopt;
  return static_cast<int64_t>(std::llround(*number));
}

std::string TextField(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json& value = Field(object, key);
  return value.is_string() || value.is_number() || value.is_boolean() ? ValueText(value) : std::string();
}

std::string ValueText(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return {};
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace kscope::report
