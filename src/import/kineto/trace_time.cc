#include "import/kineto/trace_time.h"

#include <charconv>

namespace kscope::import::kineto {

namespace {

struct Decimal {
  bool negative = false;
  std::string_view digits;  // integer and fraction digits, without the point
  int64_t point = 0;        // how many of `digits` are before the point
};

// Splits "-12.345e2" into sign, digits "12345" and the point after 3 + 2 digits.
std::optional<Decimal> SplitNumber(std::string_view s) {
  Decimal d;
  if (!s.empty() && s.front() == '-') {
    d.negative = true;
    s.remove_prefix(1);
  }
  const size_t e = s.find_first_of("eE");
  std::string_view mantissa = s.substr(0, e);
  int64_t exponent = 0;
  if (e != std::string_view::npos) {
    std::string_view ex = s.substr(e + 1);
    if (!ex.empty() && ex.front() == '+') ex.remove_prefix(1);
    auto [p, ec] = std::from_chars(ex.data(), ex.data() + ex.size(), exponent);
    if (ec != std::errc() || p != ex.data() + ex.size() || exponent < -40 || exponent > 40) return std::nullopt;
  }
  const size_t dot = mantissa.find('.');
  const std::string_view whole = mantissa.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view() : mantissa.substr(dot + 1);
  if (whole.empty() || (dot != std::string_view::npos && frac.empty())) return std::nullopt;
  for (std::string_view part : {whole, frac}) {
    for (char c : part) {
      if (c < '0' || c > '9') return std::nullopt;
    }
  }
  // Digits stay contiguous only without a point; with one, they are read in two parts below.
  d.digits = mantissa;
  d.point = static_cast<int64_t>(whole.size()) + exponent;
  return d;
}

// The integer of `d` scaled by 10^scale, digits past the point dropped.
std::optional<int64_t> Scaled(const Decimal& d, int64_t scale) {
  const int64_t keep = d.point + scale;  // digits before the (scaled) point
  if (keep <= 0) return int64_t{0};
  int64_t v = 0;
  int64_t taken = 0;
  auto push = [&v](int digit) {
    if (v > (INT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
    return true;
  };
  for (char c : d.digits) {
    if (c == '.') continue;
    if (taken == keep) break;
    if (!push(c - '0')) return std::nullopt;
    ++taken;
  }
  for (; taken < keep; ++taken) {
    if (!push(0)) return std::nullopt;
  }
  return d.negative ? -v : v;
}

}  // namespace

std::optional<int64_t> ParseTime(std::string_view number, TimeUnit unit) {
  auto d = SplitNumber(number);
  if (!d) return std::nullopt;
  return Scaled(*d, unit == TimeUnit::kMicroseconds ? 3 : 0);
}

std::optional<int64_t> ParseInteger(std::string_view number) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
  if (ec != std::errc() || p != number.data() + number.size()) return std::nullopt;
  return v;
}

}  // namespace kscope::import::kineto
