#include "capture/rank.h"

#include <charconv>
#include <string_view>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX's process environment

namespace kscope::capture {

std::optional<RankInfo> RankFromEnvironment(const std::map<std::string, std::string>& env) {
  for (const char* var :
       {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID", "RANK"}) {
    auto it = env.find(var);
    if (it == env.end()) continue;
    int64_t r = 0;
    const std::string& v = it->second;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), r);
    if (ec == std::errc() && p == v.data() + v.size() && r >= 0) return RankInfo{r, var};
  }
  return std::nullopt;
}

std::map<std::string, std::string> CurrentEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    const auto eq = kv.find('=');
    if (eq != std::string_view::npos) env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return env;
}

}  // namespace kscope::capture
