#include "report/report_text_ranks.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace kscope::report {

namespace {

std::string Ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }
std::string Ms(int64_t ns) { return Ms(static_cast<double>(ns)); }
// A utilization, small ones with three significant digits.
std::string Util(std::optional<double> v) {
  if (!v) return "-";
  const double x = *v;
  return x >= 1 || x == 0 ? fmt::format("{:.1f}%", x) : fmt::format("{:.3g}%", x);
}
std::string Short(const std::string& s, size_t n) { return s.size() > n ? s.substr(0, n - 3) + "..." : s; }

}  // namespace

Table RanksTable(const RunReport& r) {
  Table t;
  t.title = "Ranks (each process that launched GPU kernels)";
  t.columns = {"Rank",
               "PID",
               "GPU",
               "Kernels (ms)",
               "Compute (ms)",
               "Communication (ms)",
               "Exposed comm (ms)",
               "Waits for peers (ms)"};
  std::vector<std::string> stages;
  for (const auto& rank : r.ranks) {
    for (const auto& st : rank.stages) {
      if (std::find(stages.begin(), stages.end(), st.stage) == stages.end()) stages.push_back(st.stage);
    }
  }
  for (const auto& st : stages) t.columns.push_back("Steady " + st + " (ms)");
  t.columns.emplace_back("Collectives (count, ms, MB)");
  for (const auto& rank : r.ranks) {
    std::vector<Cell> row{rank.rank.rank,
                          rank.rank.pid,
                          rank.rank.device,
                          Ms(rank.kernel_ns),
                          Ms(rank.compute_ns),
                          Ms(rank.communication_ns),
                          Ms(rank.exposed_communication_ns),
                          Ms(rank.collective_wait_ns)};
    for (const auto& name : stages) {
      auto it = std::find_if(rank.stages.begin(), rank.stages.end(), [&](const auto& st) { return st.stage == name; });
      row.emplace_back(it == rank.stages.end() ? std::string("-") : Ms(it->median_wall_ns));
    }
    std::string collectives;
    for (const auto& c : rank.collectives) {
      collectives += fmt::format("{}{} {}x {} {}", collectives.empty() ? "" : ", ", c.kind, c.count, Ms(c.ns),
                                 CollectiveMegabytes(c));
    }
    row.emplace_back(collectives.empty() ? std::string("-") : collectives);
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string CollectiveMegabytes(const analysis::RankCollective& c) {
  if (!c.bytes) return "-";
  const std::string mb = fmt::format("{:.3f}", static_cast<double>(*c.bytes) / 1e6);
  return c.sized == c.count ? mb : fmt::format("{} ({} of {} sized)", mb, c.sized, c.count);
}

std::string StragglerLine(const StragglerPart& s) {
  if (s.steps > 0 && s.matched_steady > 0) {
    return fmt::format(
        "rank {} arrives last at the collectives: {} ms per {} later than the others (over the {} collectives of "
        "{} steady {} instances, after each rank's warm-up; {} matched across ranks in all)",
        s.rank, Ms(s.late_per_step_ns), s.step_stage, s.matched_steady, s.steps, s.step_stage, s.matched);
  }
  if (s.steps > 0) {
    return fmt::format(
        "rank {} arrives last at the collectives: {} ms per {} later than the others ({} collectives "
        "matched across ranks, {} {} instances)",
        s.rank, Ms(s.late_per_step_ns), s.step_stage, s.matched, s.steps, s.step_stage);
  }
  return fmt::format(
      "rank {} arrives last at the collectives: {} ms later than the others in all ({} collectives "
      "matched across ranks)",
      s.rank, Ms(s.late_ns), s.matched);
}

Table RankStagesTable(const RunReport& r) {
  Table t;
  t.title = "Stages per rank (each rank's own instances on its own GPU; MFU and MBU against one GPU's peak)";
  t.columns = {"Rank", "Stage", "Instances", "First (ms)", "Steady (ms)", "Busy %", "MFU", "MBU"};
  for (const auto& rank : r.ranks) {
    for (const auto& s : rank.gpu_stages) {
      t.rows.push_back({rank.rank.rank, std::string(static_cast<size_t>(s.depth) * 2, ' ') + s.stage, s.instances,
                        Ms(s.first_wall_ns), Ms(s.median_wall_ns), fmt::format("{:.1f}%", s.gpu_busy_pct),
                        Util(s.mfu_pct), Util(s.mbu_pct)});
    }
  }
  return t;
}

Table RankKernelsTable(const RunReport& r) {
  Table t;
  t.title = "Top kernels per rank (its own launches)";
  t.columns = {"Rank", "#", "Time %", "Total (ms)", "Launches", "Kernel", "Family"};
  for (const auto& rank : r.ranks) {
    for (const auto& k : rank.top_kernels) {
      t.rows.push_back({rank.rank.rank, k.rank, fmt::format("{:.1f}%", k.share_pct), Ms(k.total_ns), k.launches,
                        Short(k.short_name, 48), k.family});
    }
  }
  return t;
}

}  // namespace kscope::report
