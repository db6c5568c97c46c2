// Numbers the way Nsight Compute prints them: a unit scaled to the value's magnitude
// (byte -> Kbyte/Mbyte/..., ns -> us/ms/s, hz -> Mhz/Ghz, decimal prefixes) and two
// decimals with thousands separators ("10,151.00").
#pragma once

#include <string>
#include <string_view>

namespace kscope::report {

struct ScaledUnit {
  std::string unit;      // as ncu prints it, e.g. "Gbyte/s"
  double divisor = 1.0;  // divide a base-unit value by this
};

// The unit ncu shows for values of base unit `base` around `magnitude`.
ScaledUnit ScaleUnit(std::string_view base, double magnitude);

struct NcuRowText {
  std::string unit, min, max, mean;
};

// A row of a per-kernel summary as ncu prints it: one unit, scaled to the larger of |min|
// and |max|, for the three values.
NcuRowText FormatNcuRow(std::string_view base_unit, double min, double max, double mean);

// "%.2f" (C rounding of the binary value, as ncu) with ',' between thousands.
std::string FormatNcu(double value);

}  // namespace kscope::report
