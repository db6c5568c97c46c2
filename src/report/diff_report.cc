#include "report/diff_report.h"

#include <fmt/format.h>

namespace kscope::report {

namespace {

using analysis::atlas::Change;
using analysis::atlas::DiffRow;
using analysis::atlas::RunDiff;

Decimal Num(double v, int decimals) { return {v, fmt::format("{:.{}f}", v, decimals)}; }
Decimal Ms(int64_t ns) { return Num(static_cast<double>(ns) / 1e6, 3); }

// "12.35 [11.90-14.02]": a kernel's median launch duration and its range, us.
Cell SpreadCell(const std::optional<analysis::atlas::LaunchSpread>& s) {
  if (!s) return {};
  return fmt::format("{:.2f} [{:.2f}-{:.2f}]", s->median / 1e3, static_cast<double>(s->min) / 1e3,
                     static_cast<double>(s->max) / 1e3);
}

// `kernels`: the rows are kernels, with their family and the spread of their launch durations.
Table RowsTable(const std::string& title, const std::string& key, const std::vector<DiffRow>& rows, bool kernels) {
  Table t;
  t.title = title;
  t.columns = {key};
  if (kernels) t.columns.emplace_back("Family");
  for (const char* c : {"Library", "Change", "Launches A", "Launches B", "GPU Time A (ms)", "GPU Time B (ms)",
                        "Delta (ms)", "Delta %"}) {
    t.columns.emplace_back(c);
  }
  if (kernels) {
    t.columns.emplace_back("Launch A (us) median [min-max]");
    t.columns.emplace_back("Launch B (us) median [min-max]");
  }
  for (const auto& r : rows) {
    std::vector<Cell> row{r.key};
    if (kernels) row.emplace_back(r.family);
    row.insert(row.end(), {r.library, DiffChangeName(r.change), r.launches_a, r.launches_b, Ms(r.ns_a), Ms(r.ns_b),
                           Ms(r.ns_b - r.ns_a), r.change == Change::kChanged ? Cell(Num(r.GpuTimePct(), 1)) : Cell()});
    if (kernels) row.insert(row.end(), {SpreadCell(r.spread_a), SpreadCell(r.spread_b)});
    t.rows.push_back(std::move(row));
  }
  return t;
}

nlohmann::json SpreadJson(const std::optional<analysis::atlas::LaunchSpread>& s) {
  if (!s) return nullptr;
  return {{"median", s->median}, {"min", s->min}, {"max", s->max}};
}

Cell OptNum(const std::optional<double>& v, int decimals) { return v ? Cell(Num(*v, decimals)) : Cell(); }

// "3 [2.950-3.100]": instances and the min-max of their GPU time (ms).
Cell Instances(const std::optional<analysis::atlas::StageFacts>& f) {
  if (!f) return {};
  return fmt::format("{} [{:.3f}-{:.3f}]", f->instances, static_cast<double>(f->gpu.min) / 1e6,
                     static_cast<double>(f->gpu.max) / 1e6);
}

Table StagesTable(const RunDiff& d) {
  Table t;
  t.title = "NVTX stages that changed: GPU time per steady instance (median), instances [min-max ms], MFU";
  t.columns = {"Stage",   "Change",  "Instances A", "Instances B",    "GPU/Instance A (ms)", "GPU/Instance B (ms)",
               "Delta %", "MFU A %", "MFU B %",     "MFU Delta (pts)"};
  for (const auto& r : d.stages) {
    auto median = [](const std::optional<analysis::atlas::StageFacts>& f) {
      return f ? Cell(Num(f->median_gpu_ns / 1e6, 3)) : Cell();
    };
    auto mfu = [](const std::optional<analysis::atlas::StageFacts>& f) { return f ? OptNum(f->mfu_pct, 2) : Cell(); };
    t.rows.push_back({r.stage, DiffChangeName(r.change), Instances(r.a), Instances(r.b), median(r.a), median(r.b),
                      r.change == Change::kChanged ? Cell(Num(r.GpuTimePct(), 1)) : Cell(), mfu(r.a), mfu(r.b),
                      OptNum(r.MfuDeltaPts(), 2)});
  }
  return t;
}

nlohmann::json StageJson(const std::optional<analysis::atlas::StageFacts>& f) {
  if (!f) return nullptr;
  return {{"instances", f->instances},         {"steady", f->steady},
          {"median_gpu_ns", f->median_gpu_ns}, {"min_gpu_ns", f->gpu.min},
          {"max_gpu_ns", f->gpu.max},          {"first_gpu_ns", f->gpu.first},
          {"kernel_ns", f->kernel_ns},         {"mfu_pct", f->mfu_pct ? nlohmann::json(*f->mfu_pct) : nlohmann::json()},
          {"mfu_source", f->mfu_source}};
}

nlohmann::json RowsJson(const std::vector<DiffRow>& rows, bool kernel) {
  auto out = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json j{{"family", r.family},
                     {"library", r.library},
                     {"change", DiffChangeName(r.change)},
                     {"launches", {{"a", r.launches_a}, {"b", r.launches_b}}},
                     {"gpu_time_ns", {{"a", r.ns_a}, {"b", r.ns_b}}}};
    if (kernel) {
      j["kernel"] = r.key;
      j["launch_ns"] = {{"a", SpreadJson(r.spread_a)}, {"b", SpreadJson(r.spread_b)}};
    }
    j["gpu_time_pct"] = r.change == Change::kChanged ? nlohmann::json(r.GpuTimePct()) : nlohmann::json();
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

std::string DiffChangeName(Change c) {
  return c == Change::kAppeared ? "appeared" : c == Change::kVanished ? "vanished" : "changed";
}

namespace {

std::string MixText(const analysis::atlas::ClassMix& m) {
  const std::string main = m.Main();
  return fmt::format("{} ({} of {})", main, m.launches.at(main), m.Total());
}

}  // namespace

Table DiffClassesTable(const std::string& title, const std::string& key,
                       const std::vector<analysis::atlas::ClassChangeRow>& rows, bool family) {
  Table t;
  t.title = title;
  t.columns = {key};
  if (family) t.columns.emplace_back("Family");
  for (const char* c : {"Library", "Class A (launches)", "Class B (launches)"}) t.columns.emplace_back(c);
  for (const auto& r : rows) {
    std::vector<Cell> row{r.key};
    if (family) row.emplace_back(r.family);
    row.insert(row.end(), {r.library, MixText(r.a), MixText(r.b)});
    t.rows.push_back(std::move(row));
  }
  return t;
}

nlohmann::json DiffClassesJson(const std::vector<analysis::atlas::ClassChangeRow>& rows, bool kernel) {
  auto out = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json j{{"family", r.family},
                     {"library", r.library},
                     {"a", {{"class", r.a.Main()}, {"classes", r.a.launches}}},
                     {"b", {{"class", r.b.Main()}, {"classes", r.b.launches}}}};
    if (kernel) j["kernel"] = r.key;
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<DiffTable> DiffTables(const RunDiff& d) {
  Table whole;
  whole.title = fmt::format("Run {} (A) against run {} (B), nsys kernels", d.a, d.b);
  whole.columns = {"What", "A", "B", "Delta", "Delta %"};
  whole.rows.push_back(
      {std::string("GPU time (ms)"), Ms(d.ns_a), Ms(d.ns_b), Ms(d.ns_b - d.ns_a), Num(d.GpuTimePct(), 1)});
  whole.rows.push_back(
      {std::string("Launches"), d.launches_a, d.launches_b, d.launches_b - d.launches_a, Num(d.LaunchesPct(), 1)});
  const DiffSides sides{
      fmt::format("run {}", d.a), fmt::format("run {}", d.b), "both runs", "neither run", d.facts_a, d.facts_b};
  return {
      {whole, ""},
      WithSentence(RowsTable("Families that changed", "Family", d.families, false), DiffRows::kFamilies, sides),
      WithSentence(RowsTable("Kernels that changed", "Kernel", d.kernels, true), DiffRows::kKernels, sides),
      WithSentence(StagesTable(d), DiffRows::kStages, sides),
      WithSentence(DiffClassesTable("Families whose bottleneck class changed (ncu)", "Family", d.family_classes, false),
                   DiffRows::kFamilyClasses, sides),
      WithSentence(DiffClassesTable("Kernels whose bottleneck class changed (ncu)", "Kernel", d.kernel_classes, true),
                   DiffRows::kKernelClasses, sides)};
}

std::vector<std::string> DiffWarnings(const RunDiff& d) {
  std::vector<std::string> out;
  for (const auto& m : d.differences) {
    out.push_back(
        fmt::format("kscope: warning: runs {} and {} differ in {}: '{}' against '{}'; their numbers may "
                    "not be comparable",
                    d.a, d.b, m.field, m.a, m.b));
  }
  return out;
}

nlohmann::json DiffJson(const RunDiff& d) {
  using nlohmann::json;
  json out{{"kscope_diff", 1}, {"a", d.a}, {"b", d.b}, {"comparable", d.differences.empty()}};
  out["differences"] = json::array();
  for (const auto& m : d.differences) out["differences"].push_back({{"field", m.field}, {"a", m.a}, {"b", m.b}});
  out["gpu_time_ns"] = {{"a", d.ns_a}, {"b", d.ns_b}};
  out["launches"] = {{"a", d.launches_a}, {"b", d.launches_b}};
  out["gpu_time_pct"] = d.GpuTimePct();
  out["launches_pct"] = d.LaunchesPct();
  out["families"] = RowsJson(d.families, false);
  out["kernels"] = RowsJson(d.kernels, true);
  out["stages"] = json::array();
  for (const auto& r : d.stages) {
    out["stages"].push_back({{"stage", r.stage},
                             {"change", DiffChangeName(r.change)},
                             {"a", StageJson(r.a)},
                             {"b", StageJson(r.b)},
                             {"gpu_time_pct", r.change == Change::kChanged ? json(r.GpuTimePct()) : json()},
                             {"mfu_delta_pts", r.MfuDeltaPts() ? json(*r.MfuDeltaPts()) : json()}});
  }
  out["family_classes"] = DiffClassesJson(d.family_classes, false);
  out["kernel_classes"] = DiffClassesJson(d.kernel_classes, true);
  return out;
}

}  // namespace kscope::report
