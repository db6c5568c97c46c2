// The time as kscope records it (run import times, manifest timestamps): UTC, to the second,
// ISO 8601 ("2026-11-23T21:36:10Z").
#pragma once

#include <fmt/chrono.h>

#include <chrono>
#include <string>

namespace kscope {

inline std::string UtcNow() {
  const auto now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
}

}  // namespace kscope
