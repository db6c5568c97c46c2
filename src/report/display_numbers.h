// Numbers for people: durations in the unit that suits them, SI prefixes, percentages and
// counts with thousands separators. Absent values read "n/a".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kscope::report {

std::string DurationText(std::optional<double> ns);                      // "964.35 ms", "1.66 us", "832 ns"
std::string SiText(std::optional<double> value, std::string_view unit);  // "1.51 PFLOP/s", "4.80 TB/s"
std::string PercentText(std::optional<double> pct);                      // "1.59%", "0.00356%", "98.4%"
std::string CountText(std::optional<int64_t> n);                         // "3,778"
std::string DecimalText(std::optional<double> value);                    // "15.9", "1753", "0.00356"

}  // namespace kscope::report
