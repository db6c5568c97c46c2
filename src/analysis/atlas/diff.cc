#include "analysis/atlas/diff.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/atlas/diff_merge.h"
#include "analysis/atlas/diff_selections_sides.h"

namespace kscope::analysis::atlas {

namespace {

std::vector<DiffRow> Compare(const std::map<std::string, KernelSum>& a, const std::map<std::string, KernelSum>& b) {
  std::vector<DiffRow> rows;
  MergeByKey(a, b, [&](const std::string& key, const KernelSum* x, const KernelSum* y, Change change) {
    const KernelSum& any = x != nullptr ? *x : *y;
    DiffRow r{key,           any.family,    any.library, x ? x->launches : 0,          y ? y->launches : 0,
              x ? x->ns : 0, y ? y->ns : 0, change,      x ? x->spread : std::nullopt, y ? y->spread : std::nullopt};
    if (r.change != Change::kChanged || r.launches_a != r.launches_b || r.ns_a != r.ns_b) rows.push_back(r);
  });
  std::stable_sort(rows.begin(), rows.end(), [](const DiffRow& x, const DiffRow& y) {
    return std::llabs(x.ns_b - x.ns_a) > std::llabs(y.ns_b - y.ns_a);
  });
  return rows;
}

bool SameStage(const StageFacts& x, const StageFacts& y) {
  return x.instances == y.instances && x.median_gpu_ns == y.median_gpu_ns && x.kernel_ns == y.kernel_ns &&
         x.mfu_pct == y.mfu_pct;
}

std::vector<StageDiffRow> CompareStages(const std::map<std::string, StageFacts>& a,
                                        const std::map<std::string, StageFacts>& b) {
  std::vector<StageDiffRow> rows;
  MergeByKey(a, b, [&](const std::string& name, const StageFacts* x, const StageFacts* y, Change change) {
    if (change == Change::kChanged && SameStage(*x, *y)) return;
    rows.push_back({name, change, x ? std::optional(*x) : std::nullopt, y ? std::optional(*y) : std::nullopt});
  });
  std::stable_sort(rows.begin(), rows.end(), [](const StageDiffRow& x, const StageDiffRow& y) {
    return std::abs(x.GpuTimePct()) > std::abs(y.GpuTimePct());
  });
  return rows;
}

// A side's one run's manifest fields, without the model LoadSide adds (a run diff warns of the
// fields that tell whether runs compare, the model not among them).
ComparedValues RunFields(const SelectionSide& side) {
  ComparedValues fields = side.fields.front();
  fields.pop_back();
  return fields;
}

double Pct(int64_t a, int64_t b) { return a > 0 ? 100.0 * static_cast<double>(b - a) / static_cast<double>(a) : 0.0; }

}  // namespace

std::vector<ManifestDifference> ManifestDifferences(const ComparedValues& a, const ComparedValues& b) {
  std::vector<ManifestDifference> out;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const auto& [field, x] = a[i];
    const auto& y = b[i].second;
    if (x && y && *x != *y) out.push_back({field, *x, *y});
  }
  return out;
}

double StageDiffRow::GpuTimePct() const {
  if (!a || !b || a->median_gpu_ns <= 0) return 0.0;
  return 100.0 * (b->median_gpu_ns - a->median_gpu_ns) / a->median_gpu_ns;
}

std::optional<double> StageDiffRow::MfuDeltaPts() const {
  if (!a || !b || !a->mfu_pct || !b->mfu_pct) return std::nullopt;
  return *b->mfu_pct - *a->mfu_pct;
}

double DiffRow::GpuTimePct() const { return change == Change::kChanged ? Pct(ns_a, ns_b) : 0.0; }
double RunDiff::GpuTimePct() const { return Pct(ns_a, ns_b); }
double RunDiff::LaunchesPct() const { return Pct(launches_a, launches_b); }

// A selection of one run per side: the runs are read as a selection's are (LoadSide), and
// compared run to run.
Result<RunDiff> DiffRuns(store::Store& store, int64_t a, int64_t b, const AnalysisOptions& config,
                         std::optional<int64_t> rank) {
  auto x = LoadSide(store, {a}, config, rank);
  if (!x.ok()) return x.error();
  auto y = LoadSide(store, {b}, config, rank);
  if (!y.ok()) return y.error();
  const RunKernels& ka = x->kernels.front();
  const RunKernels& kb = y->kernels.front();
  RunDiff d;
  d.a = a;
  d.b = b;
  d.differences = ManifestDifferences(RunFields(*x), RunFields(*y));
  d.launches_a = ka.launches;
  d.launches_b = kb.launches;
  d.ns_a = ka.ns;
  d.ns_b = kb.ns;
  d.families = Compare(ka.families, kb.families);
  d.kernels = Compare(ka.kernels, kb.kernels);
  d.stages = CompareStages(x->stages.front(), y->stages.front());
  d.family_classes = CompareClasses(x->classes.families, y->classes.families);
  d.kernel_classes = CompareClasses(x->classes.kernels, y->classes.kernels);
  d.facts_a = FactsOf(*x);
  d.facts_b = FactsOf(*y);
  return d;
}

Result<Threshold> ParseThreshold(const std::string& text) {
  static const std::vector<std::string> kMetrics{"gpu_time_pct",       "launches_pct", "family_gpu_time_pct",
                                                 "stage_gpu_time_pct", "appeared",     "vanished",
                                                 "class_changes"};
  const Error bad{"--fail-if " + text, "is not METRIC>N, METRIC>=N, METRIC<N or METRIC<=N",
                  "write e.g. --fail-if 'gpu_time_pct>5'; metrics: gpu_time_pct, launches_pct, "
                  "family_gpu_time_pct, stage_gpu_time_pct, appeared, vanished, class_changes"};
  const auto at = text.find_first_of("<>");
  if (at == std::string::npos || at == 0) return bad;
  Threshold t;
  t.text = text;
  t.metric = text.substr(0, at);
  t.op = text.substr(at, at + 1 < text.size() && text[at + 1] == '=' ? 2 : 1);
  const std::string number = text.substr(at + t.op.size());
  if (std::find(kMetrics.begin(), kMetrics.end(), t.metric) == kMetrics.end() || number.empty()) return bad;
  size_t used = 0;
  try {
    t.value = std::stod(number, &used);
  } catch (const std::exception&) {
    return bad;
  }
  if (used != number.size() || !std::isfinite(t.value)) return bad;
  return t;
}

std::pair<double, bool> Check(const RunDiff& diff, const Threshold& t) {
  double v = 0;
  if (t.metric == "gpu_time_pct") v = diff.GpuTimePct();
  if (t.metric == "launches_pct") v = diff.LaunchesPct();
  if (t.metric == "family_gpu_time_pct") {
    bool first = true;
    for (const auto& r : diff.families) {
      if (r.change != Change::kChanged) continue;
      v = first ? r.GpuTimePct() : std::max(v, r.GpuTimePct());
      first = false;
    }
  }
  if (t.metric == "stage_gpu_time_pct") {
    bool first = true;
    for (const auto& r : diff.stages) {
      if (r.change != Change::kChanged) continue;
      v = first ? r.GpuTimePct() : std::max(v, r.GpuTimePct());
      first = false;
    }
  }
  if (t.metric == "class_changes") v = static_cast<double>(diff.family_classes.size());
  auto count = [&](Change c) {
    return static_cast<double>(
        std::count_if(diff.kernels.begin(), diff.kernels.end(), [c](const DiffRow& r) { return r.change == c; }));
  };
  if (t.metric == "appeared") v = count(Change::kAppeared);
  if (t.metric == "vanished") v = count(Change::kVanished);
  return {v, Trips(t, v)};
}

bool Trips(const Threshold& t, double value) {
  return t.op == ">"    ? value > t.value
         : t.op == ">=" ? value >= t.value
         : t.op == "<"  ? value < t.value
                        : value <= t.value;
}

}  // namespace kscope::analysis::atlas
