#include "import/ncu/units.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

namespace kscope::import::ncu {

namespace {

double Prefix(char c) {
  switch (c) {
    case 'K': return 1e3;
    case 'M': return 1e6;
    case 'G': return 1e9;
    case 'T': return 1e12;
    case 'P': return 1e15;
    default: return 0;
  }
}

// Seconds per printed time unit, in ns; 0 when `u` is not a time.
double NanosPer(std::string_view u) {
  constexpr std::array<std::pair<std::string_view, double>, 5> kTimes{
      {{"ns", 1}, {"us", 1e3}, {"usecond", 1e3}, {"ms", 1e6}, {"s", 1e9}}};
  for (const auto& [name, ns] : kTimes) {
    if (u == name) return ns;
  }
  return 0;
}

// One side of a unit ("Kbyte", "Ghz", "us", "sector"): its base name and factor.
BaseUnit NormalizeTerm(std::string_view term) {
  if (const double ns = NanosPer(term); ns != 0) return {"ns", ns};
  if (term.size() == 5 && term.substr(1) == "byte" && Prefix(term[0]) != 0) return {"byte", Prefix(term[0])};
  if (term.size() == 3 && (term.substr(1) == "hz" || term.substr(1) == "Hz") && Prefix(term[0]) != 0) {
    return {"hz", Prefix(term[0])};
  }
  if (term == "Hz") return {"hz", 1};
  return {std::string(term), 1};
}

}  // namespace

std::optional<double> ParseNumber(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  std::string digits;
  digits.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ',') {
      // A thousands separator: a digit before it, then exactly three digits.
      auto digit = [&](size_t j) { return j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])); };
      const bool group_end = i + 4 >= text.size() || text[i + 4] == ',' || text[i + 4] == '.';
      if (i == 0 || !digit(i - 1) || !digit(i + 1) || !digit(i + 2) || !digit(i + 3) || !group_end) {
        return std::nullopt;
      }
      continue;
    }
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) {
      return std::nullopt;
    }
    digits.push_back(c);
  }
  double v = 0;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

BaseUnit NormalizeUnit(std::string_view unit) {
  const size_t slash = unit.find('/');
  if (slash == std::string_view::npos) return NormalizeTerm(unit);
  BaseUnit num = NormalizeTerm(unit.substr(0, slash));
  const std::string_view den_text = unit.substr(slash + 1);
  if (const double ns = NanosPer(den_text); ns != 0) {
    // A rate: per second.
    return {num.unit + "/s", num.factor * 1e9 / ns};
  }
  BaseUnit den = NormalizeTerm(den_text);
  return {num.unit + "/" + den.unit, num.factor / den.factor};
}

}  // namespace kscope::import::ncu
