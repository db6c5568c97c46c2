// Numbers printed the way nsys stats prints them.
#pragma once

#include <string>

#include "report/table.h"

namespace kscope::report {

// round(x, 1) as SQLite computes it in nsys's report queries (half away from zero on the
// double's exact value), printed with one decimal: 2256.95 -> "2256.9" (the double is
// 2256.94999...), 1234.25 -> "1234.3".
Decimal Round1(double x);

// A byte count shown in MB with three decimals, as nsys's ':mem_B' columns: bytes / 1e6.
Decimal Megabytes(double bytes);

}  // namespace kscope::report
