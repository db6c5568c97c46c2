#include "config/sweep.h"

#include <fmt/format.h>

#include <set>

namespace kscope::config {

namespace {

// Replaces each {name} of `values` in `arg`, and nothing else: the workload's arguments reach
// it byte for byte otherwise (a Hydra or OmegaConf `${...}` interpolation is never touched,
// nor a brace kscope does not know). Collects the names used.
std::string Substitute(const std::string& arg, const std::map<std::string, std::string>& values,
                       std::set<std::string>& used) {
  std::string out;
  for (size_t i = 0; i < arg.size(); ++i) {
    if (arg[i] == '{' && (i == 0 || arg[i - 1] != '$')) {
      const auto close = arg.find('}', i);
      if (close != std::string::npos) {
        const std::string name = arg.substr(i + 1, close - i - 1);
        if (auto it = values.find(name); it != values.end()) {
          out += it->second;
          used.insert(name);
          i = close;
          continue;
        }
      }
    }
    out.push_back(arg[i]);
  }
  return out;
}

}  // namespace

Status AddSweepArg(Config& config, const std::string& arg) {
  const auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size()) {
    return Error{"", "--sweep '" + arg + "' is not KEY=V1,V2,...", "write e.g. --sweep batch=1,2,4"};
  }
  auto& values = config.sweep[arg.substr(0, eq)];
  values.clear();
  size_t pos = eq + 1;
  while (pos <= arg.size()) {
    const size_t comma = std::min(arg.find(',', pos), arg.size());
    values.push_back(arg.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return Status::Ok();
}

Result<std::vector<SweepPoint>> ExpandSweep(const Config& base, const std::vector<std::string>& workload) {
  std::vector<std::map<std::string, std::string>> points{{}};
  for (const auto& [key, values] : base.sweep) {
    if (values.empty()) return Error{"", "sweep key '" + key + "' has no values", "give it a list of values"};
    std::vector<std::map<std::string, std::string>> next;
    for (const auto& p : points) {
      for (const auto& v : values) {
        auto q = p;
        q[key] = v;
        next.push_back(std::move(q));
      }
    }
    points = std::move(next);
  }
  std::vector<SweepPoint> out;
  for (const auto& values : points) {
    SweepPoint sp;
    sp.values = values;
    sp.config = base;
    sp.config.sweep.clear();
    std::set<std::string> used;
    for (const auto& arg : workload) sp.workload.push_back(Substitute(arg, values, used));
    for (const auto& [key, value] : values) {
      if (used.count(key) != 0) continue;
      auto st = ApplyOverride(sp.config, fmt::format("{}={}", key, value));
      if (!st.ok()) {
        return Error{"",
                     fmt::format("sweep key '{}' is neither a configuration key nor used as {{{}}} in the command ({})",
                                 key, key, st.error().what),
                     "use {" + key + "} in the command, or a key of docs/config.md"};
      }
    }
    out.push_back(std::move(sp));
  }
  return out;
}

}  // namespace kscope::config
