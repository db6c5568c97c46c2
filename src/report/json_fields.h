// Reading report.json leniently: a key that is missing, null or of another type reads as
// absent, so a view of the report copes with reports that lack a part (no ncu data, no
// NVTX ranges) or hold keys it does not know.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace kscope::report {

// object[key], or a null value when object is not an object or has no such key.
const nlohmann::json& Field(const nlohmann::json& object, std::string_view key);

// object[key] when it is an array, else an empty array.
const nlohmann::json& ListField(const nlohmann::json& object, std::string_view key);

std::optional<double> NumberField(const nlohmann::json& object, std::string_view key);
std::optional<int64_t> IntegerField(const nlohmann::json& object, std::string_view key);

// A string as it is, a number or boolean as JSON writes it, anything else (null, missing,
// arrays, objects) as "".
std::string TextField(const nlohmann::json& object, std::string_view key);

// A string as it is, null as "", anything else as JSON (bytes that are not UTF-8 as U+FFFD).
std::string ValueText(const nlohmann::json& value);

}  // namespace kscope::report
