#include "import/ncu/rep_units.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace kscope::import::ncu {

namespace {

struct UnitRow {
  std::string_view metric, unit;
};

constexpr UnitRow kUnits[] = {
#include "import/ncu/metric_units.inc"
};

struct Step {
  std::string_view prefix;
  double scale;
};
constexpr std::array<Step, 6> kDecimal{{{"", 1}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}}};
constexpr std::array<Step, 4> kTimes{{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}}};

// The largest step whose scale `max_abs` reaches (the first when none does).
template <size_t N>
size_t Pick(const std::array<Step, N>& steps, double max_abs, size_t count = N) {
  size_t best = 0;
  for (size_t i = 0; i < count; ++i) {
    if (max_abs / steps[i].scale >= 1) best = i;
  }
  return best;
}

// "1,234,567" from the digits of a whole number.
std::string Grouped(std::string digits) {
  const size_t start = (!digits.empty() && digits[0] == '-') ? 1 : 0;
  for (size_t i = digits.size(); i > start + 3; i -= 3) digits.insert(i - 3, 1, ',');
  return digits;
}

// `x` with six decimals, rounded to nearest (an exact tie to even, as printf does). ncu's
// own arithmetic gives a scaled value that is an exact binary tie at the seventh decimal
// sometimes one way, sometimes the other (docs/ncu-rep.md).
std::string SixDecimals(double x) { return fmt::format("{:.6f}", x); }

}  // namespace

std::string_view RepBaseUnit(std::string_view metric) {
  const auto* end = std::end(kUnits);
  const auto* it = std::lower_bound(std::begin(kUnits), end, metric,
                                    [](const UnitRow& row, std::string_view m) { return row.metric < m; });
  if (it != end && it->metric == metric) return it->unit;
  return metric.find("pct") != std::string_view::npos ? "%" : "";
}

RawColumn ChooseRawColumn(std::string_view base, double max_abs, bool all_zero) {
  RawColumn c;
  c.all_zero = all_zero;
  c.unit = std::string(base);
  if (base == "ns") {
    const auto& s = kTimes[Pick(kTimes, max_abs)];
    c.unit = std::string(s.prefix);
    c.scale = s.scale;
    return c;
  }
  const size_t slash = base.find('/');
  const std::string_view num = base.substr(0, slash);
  const std::string_view den = slash == std::string_view::npos ? "" : base.substr(slash + 1);
  if (num == "byte") {  // Kbyte, Mbyte/s, Kbyte/block: the prefix on the bytes
    const auto& s = kDecimal[Pick(kDecimal, max_abs)];
    c.unit = fmt::format("{}{}", s.prefix, base);
    c.scale = s.scale;
  } else if (base == "hz") {
    const auto& s = kDecimal[Pick(kDecimal, max_abs, 5)];
    c.unit = fmt::format("{}hz", s.prefix);
    c.scale = s.scale;
  } else if (den == "s") {  // other rates: per ns, us, ms or s, whichever brings the value to 1 or more
    constexpr std::array<Step, 4> kPer{{{"s", 1}, {"ms", 1e3}, {"us", 1e6}, {"ns", 1e9}}};
    const auto& s = kPer[Pick(kPer, max_abs)];
    c.unit = fmt::format("{}/{}", num, s.prefix);
    c.scale = s.scale;
  } else if (den == "byte") {  // per byte: ncu puts the prefix on the bytes and divides the value
    const auto& s = kDecimal[Pick(kDecimal, max_abs)];
    c.unit = fmt::format("{}/{}byte", num, s.prefix);
    c.scale = s.scale;
  }
  return c;
}

std::string FormatRawCell(const RepValue& v, const RawColumn& column) {
  switch (v.kind) {
    case RepValue::Kind::kNone: return "no data";
    case RepValue::Kind::kString: return std::string(v.s);
    case RepValue::Kind::kUint:
      if (column.unit.empty()) return Grouped(std::to_string(v.u));
      if (column.all_zero) return "0";
      if (column.scale == 1) return std::to_string(v.u);
      return SixDecimals(static_cast<double>(v.u) / column.scale);
    case RepValue::Kind::kDouble: break;
  }
  const double d = v.d;
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (column.unit.empty()) {
    if (d == std::trunc(d) && std::fabs(d) < 9e18) return Grouped(fmt::format("{:.0f}", d));
    const std::string fixed = fmt::format("{:.2f}", d);
    const size_t dot = fixed.find('.');
    return Grouped(fixed.substr(0, dot)) + fixed.substr(dot);
  }
  if (column.all_zero) return "0";
  return SixDecimals(d / column.scale);
}

std::string FormatRawMetric(const RepValue& v, size_t instances, const RawColumn& column) {
  if (v.kind == RepValue::Kind::kNone && instances > 0) return "";
  return FormatRawCell(v, column);
}

}  // namespace kscope::import::ncu
