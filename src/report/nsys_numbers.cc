#include "report/nsys_numbers.h"

#include <fmt/format.h>

#include <cmath>

namespace kscope::report {

Decimal Round1(double x) {
  double r = x;
  if (std::fabs(x) < 4503599627370496.0) {  // below 2^52: may have a fraction
    // x * 10 is exact in long double (64-bit mantissa), so a tie is seen as a tie.
    const long double scaled = static_cast<long double>(std::fabs(x)) * 10.0L;
    const long double rounded = std::floor(scaled + 0.5L);
    r = static_cast<double>(rounded / 10.0L);
    if (x < 0) r = -r;
  }
  if (r == 0) r = 0;  // no "-0.0"
  return {r, fmt::format("{:.1f}", r)};
}

Decimal Megabytes(double bytes) {
  const double mb = bytes / 1e6;
  return {mb, fmt::format("{:.3f}", mb)};
}

}  // namespace kscope::report
