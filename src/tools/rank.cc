#include "tools/rank.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string_view>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX's process environment

namespace kscope::capture {

namespace {
std::optional<int64_t> NonNegative(const std::string& v) {
  int64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec == std::errc() && p == v.data() + v.size() && n >= 0) return n;
  return std::nullopt;
}
}  // namespace

const std::vector<std::string>& RankVariables() {
  static const std::vector<std::string> kVariables = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",     "PMIX_RANK",
                                                      "MV2_COMM_WORLD_RANK",  "SLURM_PROCID", "RANK"};
  return kVariables;
}

std::optional<RankInfo> RankFromEnvironment(const std::map<std::string, std::string>& env) {
  for (const std::string& var : RankVariables()) {
    auto it = env.find(var);
    if (it == env.end()) continue;
    if (auto r = NonNegative(it->second)) return RankInfo{*r, var};
  }
  return std::nullopt;
}

std::optional<JobInfo> JobFromEnvironment(const std::map<std::string, std::string>& env, const std::string& given) {
  if (!given.empty()) return JobInfo{given, "--job"};
  if (auto it = env.find("SLURM_JOB_ID"); it != env.end() && !it->second.empty()) {
    return JobInfo{it->second, "SLURM_JOB_ID"};
  }
  if (auto it = env.find("TORCHELASTIC_RUN_ID"); it != env.end() && !it->second.empty() && it->second != "none") {
    return JobInfo{it->second, "TORCHELASTIC_RUN_ID"};
  }
  return std::nullopt;
}

std::optional<int64_t> WorldSizeFromEnvironment(const std::map<std::string, std::string>& env) {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "WORLD_SIZE"}) {
    auto it = env.find(var);
    if (it == env.end()) continue;
    if (auto n = NonNegative(it->second); n && *n > 0) return n;
  }
  return std::nullopt;
}

nlohmann::json JobJson(const std::map<std::string, std::string>& env, const std::string& given) {
  const auto job = JobFromEnvironment(env, given);
  const auto rank = RankFromEnvironment(env);
  if (!job && !rank) return nullptr;
  nlohmann::json j = nlohmann::json::object();
  if (job) j.update({{"id", job->id}, {"from", job->source}});
  if (rank) j.update({{"rank", rank->rank}, {"rank_from", rank->source}});
  if (auto n = WorldSizeFromEnvironment(env)) j["world_size"] = *n;
  return j;
}

int64_t WrapperPasses(int64_t rank_ncu_runs, bool discovery_given) {
  return (discovery_given ? 0 : 1) + std::max<int64_t>(rank_ncu_runs, 1);
}

std::map<std::string, std::string> PassEnvironment(const std::map<std::string, std::string>& env, int64_t pass) {
  std::map<std::string, std::string> out{{"KSCOPE_PASS", std::to_string(pass)}};
  if (pass == 0) return out;
  if (auto it = env.find("MASTER_PORT"); it != env.end()) {
    int64_t port = 0;
    const std::string& v = it->second;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), port);
    if (ec == std::errc() && p == v.data() + v.size() && port > 0 && port + pass < 65536) {
      out["MASTER_PORT"] = std::to_string(port + pass);
      if (auto agent = env.find("TORCHELASTIC_USE_AGENT_STORE"); agent != env.end() && agent->second == "True") {
        out["TORCHELASTIC_USE_AGENT_STORE"] = "False";
      }
    }
  }
  return out;
}

std::string DescribePasses(int64_t passes, int64_t profiled_rank, bool discovery_given) {
  std::string out;
  for (int64_t p = 0; p < passes; ++p) {
    const bool nsys = p == 0 && !discovery_given;
    const int64_t ncu_run = p + (discovery_given ? 1 : 0);
    out += fmt::format("pass {} of {}: every rank runs the workload once; rank {} {}\n", p + 1, passes, profiled_rank,
                       nsys ? "under nsys (discovery)"
                            : fmt::format("under ncu (ncu run {} of {}; unprofiled if its plan needs fewer)", ncu_run,
                                          passes - (discovery_given ? 0 : 1)));
  }
  return out;
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
