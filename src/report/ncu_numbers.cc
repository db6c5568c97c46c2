#include "report/ncu_numbers.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

namespace kscope::report {

namespace {

struct Step {
  std::string_view name;
  double factor;
};

constexpr std::array<Step, 6> kBytes{
    {{"byte", 1}, {"Kbyte", 1e3}, {"Mbyte", 1e6}, {"Gbyte", 1e9}, {"Tbyte", 1e12}, {"Pbyte", 1e15}}};
constexpr std::array<Step, 5> kHertz{{{"hz", 1}, {"Khz", 1e3}, {"Mhz", 1e6}, {"Ghz", 1e9}, {"Thz", 1e12}}};
constexpr std::array<Step, 4> kTimes{{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}}};

template <size_t N>
Step Pick(const std::array<Step, N>& steps, double magnitude) {
  Step best = steps[0];
  for (const Step& s : steps) {
    if (std::fabs(magnitude) >= s.factor) best = s;
  }
  return best;
}

}  // namespace

ScaledUnit ScaleUnit(std::string_view base, double magnitude) {
  const size_t slash = base.find('/');
  const std::string_view num = base.substr(0, slash);
  const std::string rest = slash == std::string_view::npos ? "" : std::string(base.substr(slash));
  Step s{num, 1};
  if (num == "byte") s = Pick(kBytes, magnitude);
  if (num == "hz") s = Pick(kHertz, magnitude);
  if (num == "ns" && rest.empty()) s = Pick(kTimes, magnitude);
  return {std::string(s.name) + rest, s.factor};
}

std::string FormatNcu(double value) {
  std::array<char, 64> buf{};
  // Truncates only values of 1e60 and more.
  (void)std::snprintf(buf.data(), buf.size(), "%.2f", value);
  std::string plain(buf.data());
  const size_t start = (!plain.empty() && plain[0] == '-') ? 1 : 0;
  const size_t dot = plain.find('.');
  std::string out = plain.substr(0, start);
  const std::string digits = plain.substr(start, dot - start);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out + plain.substr(dot);
}

NcuRowText FormatNcuRow(std::string_view base_unit, double min, double max, double mean) {
  const ScaledUnit u = ScaleUnit(base_unit, std::max(std::fabs(min), std::fabs(max)));
  return {u.unit, FormatNcu(min / u.divisor), FormatNcu(max / u.divisor), FormatNcu(mean / u.divisor)};
}

}  // namespace kscope::report
