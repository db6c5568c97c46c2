#include "report/display_numbers.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <utility>

namespace kscope::report {

namespace {
constexpr std::string_view kAbsent = "n/a";

// Three significant digits; an exponent only below one millionth.
std::string ThreeDigits(double v) {
  const double magnitude = std::abs(v);
  if (magnitude >= 100 || magnitude == 0) return fmt::format("{:.0f}", v);
  if (magnitude >= 10) return fmt::format("{:.1f}", v);
  if (magnitude >= 1) return fmt::format("{:.2f}", v);
  if (magnitude < 1e-6) return fmt::format("{:.2e}", v);
  const int decimals = 2 - static_cast<int>(std::floor(std::log10(magnitude)));
  return fmt::format("{:.{}f}", v, decimals);
}
}  // namespace

std::string DurationText(std::optional<double> ns) {
  if (!ns) return std::string(kAbsent);
  constexpr std::array<std::pair<double, std::string_view>, 3> kUnits = {{{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}}};
  for (const auto& [scale, unit] : kUnits) {
    if (std::abs(*ns) >= scale) return fmt::format("{:.2f} {}", *ns / scale, unit);
  }
  return fmt::format("{:.0f} ns", *ns);
}

std::string SiText(std::optional<double> value, std::string_view unit) {
  if (!value) return std::string(kAbsent);
  constexpr std::array<std::pair<double, std::string_view>, 5> kPrefixes = {
      {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  for (const auto& [scale, prefix] : kPrefixes) {
    if (std::abs(*value) >= scale) return fmt::format("{} {}{}", ThreeDigits(*value / scale), prefix, unit);
  }
  return fmt::format("{} {}", ThreeDigits(*value), unit);
}

std::string PercentText(std::optional<double> pct) { return pct ? ThreeDigits(*pct) + "%" : std::string(kAbsent); }

std::string CountText(std::optional<int64_t> n) {
  if (!n) return std::string(kAbsent);
  const uint64_t magnitude = *n < 0 ? 0 - static_cast<uint64_t>(*n) : static_cast<uint64_t>(*n);
  const std::string digits = std::to_string(magnitude);
  std::string out = *n < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string DecimalText(std::optional<double> value) { return value ? ThreeDigits(*value) : std::string(kAbsent); }

}  // namespace kscope::report
