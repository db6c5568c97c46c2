// ncu's numbers and units: values as ncu prints them ("90,933", "1.504000") and units with
// decimal prefixes ("Kbyte/cycle", "Ghz", "us", "sector/ns"), normalized to base units.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kscope::import::ncu {

// A number as ncu prints it: optional sign, thousands separators, decimals, exponent.
// "nan"/"inf" and text such as "no data" or "PolicySpread" are not numbers.
std::optional<double> ParseNumber(std::string_view text);

struct BaseUnit {
  std::string unit;     // the base unit: byte, ns, hz, byte/s, sector/s, %/byte, cycle, ...
  double factor = 1.0;  // multiply a value in the printed unit by this to get the base unit
};

// The base unit of a printed unit. Byte and hertz prefixes are decimal (1 Kbyte = 1000
// bytes, as ncu counts); times go to ns; rates go to per second.
BaseUnit NormalizeUnit(std::string_view unit);

}  // namespace kscope::import::ncu
