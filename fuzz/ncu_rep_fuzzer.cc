// Feeds arbitrary bytes to the native .ncu-rep reader, reading instance values and (as the
// import does) passing over them, and formats every value it yields as ncu's raw page would
// (rule messages rendered too). Whatever the bytes, the read succeeds or fails with one clean
// line, and never crashes, reads out of bounds or allocates without bound.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "import/ncu/rep_reader.h"
#include "import/ncu/rep_units.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using kscope::import::ncu::RepLaunch;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  using kscope::import::ncu::RepInstances;
  size_t chars = 0;
  for (const RepInstances mode : {RepInstances::kRead, RepInstances::kSkip}) {
    auto read = kscope::import::ncu::ReadRepBytes(
        bytes, "fuzz.ncu-rep",
        [&](const RepLaunch& l) {
          chars += l.name().size() + l.nvtx.size();
          for (const auto& r : l.rules) chars += r.text.size() + r.type.size() + r.speedup_type.size();
          for (const auto& m : l.metrics) {
            const double mag = m.value.numeric() ? std::fabs(m.value.number()) : 0;
            const auto column = kscope::import::ncu::ChooseRawColumn(kscope::import::ncu::RepBaseUnit(m.name),
                                                                     std::isfinite(mag) ? mag : 0, mag == 0);
            chars += kscope::import::ncu::FormatRawCell(m.value, column).size();
            for (const auto& i : m.instances) chars += kscope::import::ncu::FormatRawCell(i.value, column).size();
          }
          return kscope::Status::Ok();
        },
        mode);
    if (!read.ok()) {
      const std::string line = read.error().Line();
      if (line.find('\n') != std::string::npos || read.error().what.empty()) {
        std::fprintf(stderr, "ncu_rep_fuzzer: not one line: %s\n", line.c_str());
        std::abort();
      }
    }
  }
  return chars == SIZE_MAX ? 1 : 0;
}
