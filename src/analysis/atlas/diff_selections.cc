#include "analysis/atlas/diff_selections.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/atlas/diff_merge.h"
#include "analysis/atlas/diff_selections_sides.h"

namespace kscope::analysis::atlas {

namespace {

double Pct(double a, double b) { return a > 0 ? 100.0 * (b - a) / a : 0.0; }

// Per family (or kernel) of a selection: its launches and GPU time in each run, 0 where the run
// does not launch it.
struct PerRun {
  std::string family, library;
  int64_t runs = 0;
  std::vector<double> launches, ns;
};
using KernelMap = std::map<std::string, KernelSum>;

std::map<std::string, PerRun> Gather(const SelectionSide& side, const KernelMap RunKernels::*which) {
  std::set<std::string> keys;
  for (const auto& k : side.kernels) {
    for (const auto& [key, sum] : k.*which) keys.insert(key);
  }
  std::map<std::string, PerRun> out;
  for (const auto& key : keys) {
    auto& p = out[key];
    for (const auto& k : side.kernels) {
      auto it = (k.*which).find(key);
      const bool has = it != (k.*which).end();
      if (has) {
        p.family = it->second.family;
        p.library = it->second.library;
        ++p.runs;
      }
      p.launches.push_back(has ? static_cast<double>(it->second.launches) : 0.0);
      p.ns.push_back(has ? static_cast<double>(it->second.ns) : 0.0);
    }
  }
  return out;
}

std::vector<SelectionDiffRow> CompareRows(const SelectionSide& a, const SelectionSide& b,
                                          const KernelMap RunKernels::*which) {
  const auto x = Gather(a, which), y = Gather(b, which);
  std::vector<SelectionDiffRow> rows;
  // A selection without the row launches it 0 times in each of its runs.
  const std::vector<double> zeros_a(a.runs.size(), 0.0), zeros_b(b.runs.size(), 0.0);
  MergeByKey(x, y, [&](const std::string& key, const PerRun* px, const PerRun* py, Change change) {
    const PerRun& any = px != nullptr ? *px : *py;
    SelectionDiffRow r;
    r.key = key;
    r.family = any.family;
    r.library = any.library;
    r.change = change;
    r.runs_a = px ? px->runs : 0;
    r.runs_b = py ? py->runs : 0;
    r.launches_a = SpreadOverRuns(px ? px->launches : zeros_a);
    r.launches_b = SpreadOverRuns(py ? py->launches : zeros_b);
    r.ns_a = SpreadOverRuns(px ? px->ns : zeros_a);
    r.ns_b = SpreadOverRuns(py ? py->ns : zeros_b);
    const bool same = r.runs_a == r.runs_b && r.launches_a == r.launches_b && r.ns_a == r.ns_b;
    if (r.change != Change::kChanged || !same) rows.push_back(std::move(r));
  });
  // By the size of the change, largest first, then key.
  std::sort(rows.begin(), rows.end(), [](const SelectionDiffRow& p, const SelectionDiffRow& q) {
    const double dp = std::abs(p.ns_b.median - p.ns_a.median), dq = std::abs(q.ns_b.median - q.ns_a.median);
    return dp != dq ? dp > dq : p.key < q.key;
  });
  return rows;
}

std::map<std::string, SelectionStageFacts> StagesOf(const SelectionSide& side) {
  std::map<std::string, std::vector<const StageFacts*>> per_stage;
  for (const auto& run : side.stages) {
    for (const auto& [name, f] : run) per_stage[name].push_back(&f);
  }
  std::map<std::string, SelectionStageFacts> out;
  for (const auto& [name, facts] : per_stage) {
    std::vector<double> instances, median, kernel, mfu;
    std::set<std::string> sources;
    for (const auto* f : facts) {
      instances.push_back(static_cast<double>(f->instances));
      median.push_back(f->median_gpu_ns);
      kernel.push_back(static_cast<double>(f->kernel_ns));
      if (f->mfu_pct) {
        mfu.push_back(*f->mfu_pct);
        sources.insert(f->mfu_source);
      }
    }
    SelectionStageFacts s;
    s.runs = static_cast<int64_t>(facts.size());
    s.instances = SpreadOverRuns(instances);
    s.median_gpu_ns = SpreadOverRuns(median);
    s.kernel_ns = SpreadOverRuns(kernel);
    if (!mfu.empty()) s.mfu = SpreadOverRuns(mfu);
    for (const auto& source : sources) s.mfu_source += (s.mfu_source.empty() ? "" : "+") + source;
    out[name] = s;
  }
  return out;
}

std::vector<SelectionStageRow> CompareStages(const SelectionSide& a, const SelectionSide& b) {
  const auto x = StagesOf(a), y = StagesOf(b);
  std::vector<SelectionStageRow> rows;
  MergeByKey(
      x, y, [&](const std::string& name, const SelectionStageFacts* p, const SelectionStageFacts* q, Change change) {
        if (change == Change::kChanged && *p == *q) return;
        rows.push_back({name, change, p ? std::optional(*p) : std::nullopt, q ? std::optional(*q) : std::nullopt});
      });
  std::stable_sort(rows.begin(), rows.end(), [](const SelectionStageRow& p, const SelectionStageRow& q) {
    return std::abs(p.GpuTimePct()) > std::abs(q.GpuTimePct());
  });
  return rows;
}

void CompareManifests(const SelectionSide& a, const SelectionSide& b, SelectionDiff& d) {
  const auto x = ValuesOfFields(a.fields), y = ValuesOfFields(b.fields);
  for (size_t i = 0; i < x.size(); ++i) {
    const auto& [field, in_a] = x[i];
    const auto& in_b = y[i].second;
    if (field != "model" && !in_a.empty() && !in_b.empty() && in_a != in_b)
      d.differences.push_back({field, in_a, in_b});
  }
  for (const auto* side : {&x, &y}) {
    for (const auto& [field, values] : *side) {
      if (values.size() > 1) d.side_differences.push_back({side == &x ? "A" : "B", field, values});
    }
  }
}

RunsSpread WholeRuns(const SelectionSide& side, int64_t RunKernels::*which) {
  std::vector<double> v;
  for (const auto& k : side.kernels) v.push_back(static_cast<double>(k.*which));
  return SpreadOverRuns(v);
}

// The largest of a figure over the rows both selections have; 0 when there is none.
template <typename Row>
double LargestChange(const std::vector<Row>& rows) {
  double v = 0;
  bool first = true;
  for (const auto& r : rows) {
    if (r.change != Change::kChanged) continue;
    v = first ? r.GpuTimePct() : std::max(v, r.GpuTimePct());
    first = false;
  }
  return v;
}

}  // namespace

RunsSpread SpreadOverRuns(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  const double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
  return {median, values.front(), values.back()};
}

double SelectionDiffRow::GpuTimePct() const { return change == Change::kChanged ? Pct(ns_a.median, ns_b.median) : 0.0; }

double SelectionStageRow::GpuTimePct() const {
  if (!a || !b) return 0.0;
  return Pct(a->median_gpu_ns.median, b->median_gpu_ns.median);
}

std::optional<double> SelectionStageRow::MfuDeltaPts() const {
  if (!a || !b || !a->mfu || !b->mfu) return std::nullopt;
  return b->mfu->median - a->mfu->median;
}

double SelectionDiff::GpuTimePct() const { return Pct(ns_a.median, ns_b.median); }
double SelectionDiff::LaunchesPct() const { return Pct(launches_a.median, launches_b.median); }

std::string SelectionText(const RunFilter& filter, const std::string& prefix) {
  std::string out;
  auto add = [&](const std::string& option, const std::string& value) {
    out += (out.empty() ? "" : " ") + prefix + option + " " + value;
  };
  for (int64_t id : filter.run_ids) add("run", std::to_string(id));
  for (const auto& [k, v] : filter.tags) {
    std::string tag = k;
    tag += "=";
    tag += v;
    add("tag", tag);
  }
  if (filter.label) add("label", *filter.label);
  if (filter.model) add("model", *filter.model);
  if (filter.gpu) add("gpu", *filter.gpu);
  return out.empty() ? "(every run)" : out;
}

Result<SelectionDiff> DiffSelections(store::Store& store, const RunFilter& a, const RunFilter& b,
                                     const AnalysisOptions& config) {
  SelectionDiff d;
  d.a_text = SelectionText(a, "--a-");
  d.b_text = SelectionText(b, "--b-");
  auto runs_a = SelectSide(store, a, d.a_text);
  if (!runs_a.ok()) return runs_a.error();
  auto runs_b = SelectSide(store, b, d.b_text);
  if (!runs_b.ok()) return runs_b.error();
  auto x = LoadSide(store, *runs_a, config, a.rank);
  if (!x.ok()) return x.error();
  auto y = LoadSide(store, *runs_b, config, b.rank);
  if (!y.ok()) return y.error();
  d.runs_a = x->runs;
  d.runs_b = y->runs;
  CompareManifests(*x, *y, d);
  d.launches_a = WholeRuns(*x, &RunKernels::launches);
  d.launches_b = WholeRuns(*y, &RunKernels::launches);
  d.ns_a = WholeRuns(*x, &RunKernels::ns);
  d.ns_b = WholeRuns(*y, &RunKernels::ns);
  d.families = CompareRows(*x, *y, &RunKernels::families);
  d.kernels = CompareRows(*x, *y, &RunKernels::kernels);
  d.stages = CompareStages(*x, *y);
  d.family_classes = CompareClasses(x->classes.families, y->classes.families);
  d.kernel_classes = CompareClasses(x->classes.kernels, y->classes.kernels);
  d.facts_a = FactsOf(*x);
  d.facts_b = FactsOf(*y);
  return d;
}

std::pair<double, bool> Check(const SelectionDiff& diff, const Threshold& t) {
  double v = 0;
  if (t.metric == "gpu_time_pct") v = diff.GpuTimePct();
  if (t.metric == "launches_pct") v = diff.LaunchesPct();
  if (t.metric == "family_gpu_time_pct") v = LargestChange(diff.families);
  if (t.metric == "stage_gpu_time_pct") v = LargestChange(diff.stages);
  if (t.metric == "class_changes") v = static_cast<double>(diff.family_classes.size());
  auto count = [&](Change c) {
    return static_cast<double>(std::count_if(diff.kernels.begin(), diff.kernels.end(),
                                             [c](const SelectionDiffRow& r) { return r.change == c; }));
  };
  if (t.metric == "appeared") v = count(Change::kAppeared);
  if (t.metric == "vanished") v = count(Change::kVanished);
  return {v, Trips(t, v)};
}

}  // namespace kscope::analysis::atlas
