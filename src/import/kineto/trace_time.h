// Kineto's times as exact integers of nanoseconds. A trace writes microseconds, whole
// ("1623142623531625", before 2024) or with up to three decimals ("4458028470826.538"), whatever
// its displayTimeUnit says; the text is read digit by digit, never through a double, so no
// nanosecond is lost.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kscope::import::kineto {

enum class TimeUnit { kMicroseconds, kNanoseconds };

// Nanoseconds of a JSON number in `unit`: digits, an optional fraction and exponent.
// Digits finer than a nanosecond are dropped (toward zero). nullopt for text that is not a
// number, or out of int64 range.
std::optional<int64_t> ParseTime(std::string_view number, TimeUnit unit);

// A whole number (ids, sizes, counts); nullopt when it is not one or has a fraction.
std::optional<int64_t> ParseInteger(std::string_view number);

}  // namespace kscope::import::kineto
