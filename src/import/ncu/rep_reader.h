// Nsight Compute's report file (.ncu-rep) read natively: the container (file header,
// blocks, size-prefixed messages) and the subset of its protobuf messages kscope needs,
// streamed block by block so that memory stays at the largest block, not the file.
// docs/ncu-rep.md describes the layout.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace kscope::import::ncu {

// The container versions this reader has been checked against (Nsight Compute 2025.3).
inline constexpr uint64_t kRepVersionRead = 7;
// This reader's own version, raised whenever what it stores from a report changes: kscope
// profile's manifest records it beside the numbers it read.
inline constexpr int kRepReaderVersion = 1;

struct RepValue {
  enum class Kind : uint8_t { kNone, kDouble, kUint, kString };
  Kind kind = Kind::kNone;
  double d = 0;
  uint64_t u = 0;
  std::string_view s;  // kString: valid during the launch callback only

  [[nodiscard]] bool numeric() const { return kind == Kind::kDouble || kind == Kind::kUint; }
  [[nodiscard]] double number() const { return kind == Kind::kUint ? static_cast<double>(u) : d; }
};

struct RepInstance {
  RepValue key;    // which instance (an SM, a bucket, a correlation id)
  RepValue value;  // its value
};

struct RepMetric {
  std::string_view name;               // from the report's string table
  RepValue value;                      // kNone: ncu recorded the metric without a value ("no data")
  bool instanced = false;              // ncu recorded instance values for it
  std::vector<RepInstance> instances;  // those values, when the read asked for them
};

// One message of one rule (the details page's guided analysis) for a launch.
struct RepRule {
  std::string_view section;       // the section's identifier, e.g. "SpeedOfLight"
  std::string_view rule;          // the rule's identifier, e.g. "SOLBottleneck"
  std::string type;               // "OPT", "INF" (the two kinds seen); "type N" for another number
  std::string text;               // the message with ncu's markup rendered as its page prints it
  std::string speedup_type;       // "local", "global", or "" when the rule estimates no speedup
  std::optional<double> speedup;  // estimated speedup in percent, full precision
};

// One profiled launch. Views point into the reader's buffers: valid during the callback.
struct RepLaunch {
  int64_t id = 0;  // ncu's result ID: the launch's position in the report, from 0
  int64_t pid = 0;
  std::string_view process, host;                 // executable's file name, host as recorded
  std::string_view mangled, function, demangled;  // the kernel's three spellings
  std::array<int64_t, 3> grid{}, block{};
  std::string nvtx;  // push/pop ranges, as ncu's raw page prints its NVTX column; "" when none
  std::vector<RepMetric> metrics;
  std::vector<RepRule> rules;

  [[nodiscard]] std::string_view name() const { return demangled.empty() ? function : demangled; }
  [[nodiscard]] const RepMetric* Find(std::string_view metric) const;
};

struct RepSummary {
  uint64_t version = 0;
  int64_t launches = 0;
  int64_t bytes = 0;
  // From the session blocks: the first device's name, and the versions ncu recorded.
  std::string gpu;           // "NVIDIA H200"
  std::string ncu_version;   // "2025.3.1.0" (of "Nsight Compute Target")
  std::string cuda_version;  // "13.0"
};

// What a read decodes beyond each metric's value: instance values are five times as many as
// metrics in a full report, and the store keeps one value per metric.
enum class RepInstances { kRead, kSkip };

// Reads `path`, calling `on_launch` for every launch in file order; an error from the
// callback stops the read and is returned. Errors name the file and what is wrong.
Result<RepSummary> ReadRep(const std::string& path, const std::function<Status(const RepLaunch&)>& on_launch,
                           RepInstances instances = RepInstances::kRead);

// True for ReadRep's refusal of a report format version other than kRepVersionRead (whose
// fix suggests ncu's export: a caller that offers it another way may say so instead).
bool IsUnreadVersion(const Error& e);

// The same over bytes in memory (the fuzzer's entry); `where` names them in errors.
Result<RepSummary> ReadRepBytes(std::string_view bytes, const std::string& where,
                                const std::function<Status(const RepLaunch&)>& on_launch,
                                RepInstances instances = RepInstances::kRead);

}  // namespace kscope::import::ncu
