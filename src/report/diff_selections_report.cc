#include "report/diff_selections_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/diff_report.h"

namespace kscope::report {

namespace {

using analysis::atlas::Change;
using analysis::atlas::RunsSpread;
using analysis::atlas::SelectionDiff;
using analysis::atlas::SelectionDiffRow;
using analysis::atlas::SelectionStageFacts;

Decimal Num(double v, int decimals) { return {v, fmt::format("{:.{}f}", v, decimals)}; }

// "12.345 [11.900-14.020]": a figure's median over a selection's runs and its range, `scale`
// dividing it (1e6: ns to ms), with `decimals` (-1: as short as the value allows, for counts).
std::string SpreadText(const RunsSpread& s, double scale, int decimals) {
  if (decimals < 0) return fmt::format("{} [{}-{}]", s.median, s.min, s.max);
  return fmt::format("{:.{}f} [{:.{}f}-{:.{}f}]", s.median / scale, decimals, s.min / scale, decimals, s.max / scale,
                     decimals);
}

std::string RunList(const std::vector<int64_t>& runs) { return fmt::format("{}", fmt::join(runs, ", ")); }

std::string Quoted(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "'" : ", '") + v + "'";
  return out;
}

Table RowsTable(const std::string& title, const std::string& key, const std::vector<SelectionDiffRow>& rows,
                bool kernels) {
  Table t;
  t.title = title;
  t.columns = {key};
  if (kernels) t.columns.emplace_back("Family");
  for (const char* c : {"Library", "Change", "Runs A", "Runs B", "Launches/Run A", "Launches/Run B",
                        "GPU Time/Run A (ms)", "GPU Time/Run B (ms)", "Delta (ms)", "Delta %"}) {
    t.columns.emplace_back(c);
  }
  for (const auto& r : rows) {
    std::vector<Cell> row{r.key};
    if (kernels) row.emplace_back(r.family);
    row.insert(row.end(), {r.library, DiffChangeName(r.change), r.runs_a, r.runs_b, SpreadText(r.launches_a, 1, -1),
                           SpreadText(r.launches_b, 1, -1), SpreadText(r.ns_a, 1e6, 3), SpreadText(r.ns_b, 1e6, 3),
                           Num((r.ns_b.median - r.ns_a.median) / 1e6, 3),
                           r.change == Change::kChanged ? Cell(Num(r.GpuTimePct(), 1)) : Cell()});
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table StagesTable(const SelectionDiff& d) {
  Table t;
  t.title =
      "NVTX stages that changed, per run: median [min-max] over the runs that have the stage of its instances, its "
      "median GPU time per steady instance, its MFU";
  t.columns = {"Stage",
               "Change",
               "Runs A",
               "Runs B",
               "Instances A",
               "Instances B",
               "GPU/Instance A (ms)",
               "GPU/Instance B (ms)",
               "Delta %",
               "MFU A %",
               "MFU B %",
               "MFU Delta (pts)"};
  for (const auto& r : d.stages) {
    auto cell = [](const std::optional<SelectionStageFacts>& f, auto get) { return f ? get(*f) : Cell(); };
    auto runs = [](const SelectionStageFacts& f) { return Cell(f.runs); };
    auto instances = [](const SelectionStageFacts& f) { return Cell(SpreadText(f.instances, 1, -1)); };
    auto gpu = [](const SelectionStageFacts& f) { return Cell(SpreadText(f.median_gpu_ns, 1e6, 3)); };
    auto mfu = [](const SelectionStageFacts& f) { return f.mfu ? Cell(SpreadText(*f.mfu, 1, 2)) : Cell(); };
    const auto delta = r.MfuDeltaPts();
    t.rows.push_back({r.stage, DiffChangeName(r.change), cell(r.a, runs), cell(r.b, runs), cell(r.a, instances),
                      cell(r.b, instances), cell(r.a, gpu), cell(r.b, gpu),
                      r.change == Change::kChanged ? Cell(Num(r.GpuTimePct(), 1)) : Cell(), cell(r.a, mfu),
                      cell(r.b, mfu), delta ? Cell(Num(*delta, 2)) : Cell()});
  }
  return t;
}

nlohmann::json SpreadJson(const RunsSpread& s) { return {{"median", s.median}, {"min", s.min}, {"max", s.max}}; }

nlohmann::json RowsJson(const std::vector<SelectionDiffRow>& rows, bool kernel) {
  auto out = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json j{{"family", r.family},
                     {"library", r.library},
                     {"change", DiffChangeName(r.change)},
                     {"runs", {{"a", r.runs_a}, {"b", r.runs_b}}},
                     {"launches", {{"a", SpreadJson(r.launches_a)}, {"b", SpreadJson(r.launches_b)}}},
                     {"gpu_time_ns", {{"a", SpreadJson(r.ns_a)}, {"b", SpreadJson(r.ns_b)}}}};
    if (kernel) j["kernel"] = r.key;
    j["gpu_time_pct"] = r.change == Change::kChanged ? nlohmann::json(r.GpuTimePct()) : nlohmann::json();
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json StageJson(const std::optional<SelectionStageFacts>& f) {
  if (!f) return nullptr;
  return {{"runs", f->runs},
          {"instances", SpreadJson(f->instances)},
          {"median_gpu_ns", SpreadJson(f->median_gpu_ns)},
          {"kernel_ns", SpreadJson(f->kernel_ns)},
          {"mfu_pct", f->mfu ? SpreadJson(*f->mfu) : nlohmann::json()},
          {"mfu_source", f->mfu_source}};
}

}  // namespace

std::vector<DiffTable> SelectionDiffTables(const SelectionDiff& d) {
  Table whole;
  whole.title = fmt::format(
      "Selection A ({}: runs {}) against selection B ({}: runs {}), nsys kernels per run: median [min-max] over "
      "each selection's runs",
      d.a_text, RunList(d.runs_a), d.b_text, RunList(d.runs_b));
  whole.columns = {"What", "A", "B", "Delta", "Delta %"};
  const auto runs_a = static_cast<int64_t>(d.runs_a.size()), runs_b = static_cast<int64_t>(d.runs_b.size());
  whole.rows.push_back({std::string("Runs"), runs_a, runs_b, runs_b - runs_a, Cell()});
  whole.rows.push_back({std::string("GPU time per run (ms)"), SpreadText(d.ns_a, 1e6, 3), SpreadText(d.ns_b, 1e6, 3),
                        Num((d.ns_b.median - d.ns_a.median) / 1e6, 3), Num(d.GpuTimePct(), 1)});
  whole.rows.push_back({std::string("Launches per run"), SpreadText(d.launches_a, 1, -1),
                        SpreadText(d.launches_b, 1, -1), fmt::format("{}", d.launches_b.median - d.launches_a.median),
                        Num(d.LaunchesPct(), 1)});
  const DiffSides sides{"selection A", "selection B", "both selections", "neither selection", d.facts_a, d.facts_b};
  return {{whole, ""},
          WithSentence(RowsTable("Families that changed", "Family", d.families, false), DiffRows::kFamilies, sides),
          WithSentence(RowsTable("Kernels that changed", "Kernel", d.kernels, true), DiffRows::kKernels, sides),
          WithSentence(StagesTable(d), DiffRows::kStages, sides),
          WithSentence(DiffClassesTable("Families whose bottleneck class changed (ncu, all runs of a selection)",
                                        "Family", d.family_classes, false),
                       DiffRows::kFamilyClasses, sides),
          WithSentence(DiffClassesTable("Kernels whose bottleneck class changed (ncu, all runs of a selection)",
                                        "Kernel", d.kernel_classes, true),
                       DiffRows::kKernelClasses, sides)};
}

std::vector<std::string> SelectionDiffWarnings(const SelectionDiff& d) {
  std::vector<std::string> out;
  for (const auto& m : d.differences) {
    out.push_back(
        fmt::format("kscope: warning: selections A (runs {}) and B (runs {}) differ in {}: {} against {}; their "
                    "numbers may not be comparable",
                    RunList(d.runs_a), RunList(d.runs_b), m.field, Quoted(m.a), Quoted(m.b)));
  }
  for (const auto& s : d.side_differences) {
    out.push_back(fmt::format(
        "kscope: warning: selection {}'s runs ({}) differ among themselves in {}: {}; its figures per run mix "
        "unlike runs",
        s.side, RunList(s.side == "A" ? d.runs_a : d.runs_b), s.field, Quoted(s.values)));
  }
  return out;
}

nlohmann::json SelectionDiffJson(const SelectionDiff& d) {
  using nlohmann::json;
  json out{{"kscope_diff", 1},
           {"selections", true},
           {"a", {{"selection", d.a_text}, {"runs", d.runs_a}}},
           {"b", {{"selection", d.b_text}, {"runs", d.runs_b}}},
           {"comparable", d.differences.empty()}};
  out["differences"] = json::array();
  for (const auto& m : d.differences) out["differences"].push_back({{"field", m.field}, {"a", m.a}, {"b", m.b}});
  out["side_differences"] = json::array();
  for (const auto& s : d.side_differences) {
    out["side_differences"].push_back({{"side", s.side == "A" ? "a" : "b"}, {"field", s.field}, {"values", s.values}});
  }
  out["gpu_time_ns"] = {{"a", SpreadJson(d.ns_a)}, {"b", SpreadJson(d.ns_b)}};
  out["launches"] = {{"a", SpreadJson(d.launches_a)}, {"b", SpreadJson(d.launches_b)}};
  out["gpu_time_pct"] = d.GpuTimePct();
  out["launches_pct"] = d.LaunchesPct();
  out["families"] = RowsJson(d.families, false);
  out["kernels"] = RowsJson(d.kernels, true);
  out["stages"] = json::array();
  for (const auto& r : d.stages) {
    const auto delta = r.MfuDeltaPts();
    out["stages"].push_back({{"stage", r.stage},
                             {"change", DiffChangeName(r.change)},
                             {"a", StageJson(r.a)},
                             {"b", StageJson(r.b)},
                             {"gpu_time_pct", r.change == Change::kChanged ? json(r.GpuTimePct()) : json()},
                             {"mfu_delta_pts", delta ? json(*delta) : json()}});
  }
  out["family_classes"] = DiffClassesJson(d.family_classes, false);
  out["kernel_classes"] = DiffClassesJson(d.kernel_classes, true);
  return out;
}

}  // namespace kscope::report
