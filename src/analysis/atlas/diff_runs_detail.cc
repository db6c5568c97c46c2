// What kscope diff compares of each run: its kernel summary, its NVTX stages (with the
// report's MFU), the bottleneck classes of its profiled kernels, its manifest's fields.
#include "analysis/atlas/diff_runs_detail.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "analysis/kernels/bottleneck.h"
#include "analysis/kernels/ncu_launches.h"
#include "analysis/names/kernel_names.h"
#include "analysis/stages/stage_mfu.h"
#include "analysis/stages/stage_projection.h"
#include "analysis/timeline/duration_stats.h"
#include "analysis/timeline/kernel_totals.h"
#include "analysis/timeline/rank_selection.h"
#include "analysis/timeline/ranks.h"

namespace kscope::analysis::atlas {

namespace {

// A kernel name's launches, time and spread of launch durations.
struct NameFigures {
  std::string name;
  int64_t n = 0, ns = 0;
  LaunchSpread spread;
};

Result<std::vector<NameFigures>> StoredFigures(store::Store& store, int64_t run) {
  auto q = store.db().Prepare(
      "SELECT s.value, k.n, k.total, k.median, k.min, k.max FROM kernel_summary k JOIN string s ON s.id = k.name_id "
      "WHERE k.run_id = ?1");
  if (!q.ok()) return q.error();
  q->Bind(1, run);
  std::vector<NameFigures> out;
  while (q->Step()) out.push_back({q->Text(0), q->Int(1), q->Int(2), LaunchSpread{q->Double(3), q->Int(4), q->Int(5)}});
  KSCOPE_RETURN_IF_ERROR(q->status());
  return out;
}

// The same of one rank's kernels, from its events.
Result<std::vector<NameFigures>> RankNameFigures(store::Store& store, int64_t run, int64_t rank) {
  auto selection = LoadRank(store, run, rank);
  if (!selection.ok()) return selection.error();
  const auto& k = selection->events.kernels;
  std::map<int64_t, std::vector<int64_t>> durations;  // by name id
  for (size_t i = 0; i < k.start.size(); ++i) durations[k.name[i]].push_back(k.end[i] - k.start[i]);
  std::vector<int64_t> ids;
  for (const auto& [id, d] : durations) ids.push_back(id);
  auto names = store.Strings(ids);
  if (!names.ok()) return names.error();
  std::vector<NameFigures> out;
  for (auto& [id, d] : durations) {
    const DurationStats s = ComputeStats(d);
    out.push_back({names->at(id), s.n, s.total, LaunchSpread{s.median, s.min, s.max}});
  }
  return out;
}

}  // namespace

Result<RunKernels> LoadRunKernels(store::Store& store, int64_t run, std::optional<int64_t> rank) {
  auto figures = rank ? RankNameFigures(store, run, *rank) : StoredFigures(store, run);
  if (!figures.ok()) return figures.error();
  RunKernels out;
  for (const NameFigures& f : *figures) {
    const std::string& name = f.name;
    const int64_t n = f.n, ns = f.ns;
    const auto id = IdentifyKernel(name);
    const std::string library(LibraryName(id.library));
    for (auto* sum : {&out.families[id.family], &out.kernels[name]}) {
      sum->family = id.family;
      sum->library = library;
      sum->launches += n;
      sum->ns += ns;
    }
    out.kernels[name].spread = f.spread;
    out.launches += n;
    out.ns += ns;
  }
  if (out.kernels.empty()) {
    return Error{"run " + std::to_string(run), "has no nsys kernels to compare",
                 "import its nsys export into it: kscope import --run " + std::to_string(run) + " FILE.sqlite"};
  }
  return out;
}

ComparedValues ComparedFields(const store::Manifest& m, const std::string& capture) {
  auto number = [](const std::optional<int64_t>& v) {
    return v ? std::optional<std::string>(std::to_string(*v)) : std::nullopt;
  };
  ComparedValues out{{"gpu", m.gpu},
                     {"driver", m.driver},
                     {"cuda", m.cuda_version},
                     {"nsys_export", m.nsys_export_version},
                     {"nsys_tool", m.nsys_tool_version},
                     {"ncu", m.ncu_version},
                     {"dtype", m.dtype},
                     {"batch", number(m.batch)},
                     {"tokens", number(m.tokens)}};
  // kscope's own file; a field it lacks (or one not of the expected kind) is not known.
  const auto json = nlohmann::json::parse(capture, nullptr, false);
  auto field = [&](const char* name, const char* object, const char* key) {
    std::optional<std::string> v;
    if (json.is_object() && json.contains(object) && json[object].is_object() && json[object].contains(key)) {
      const auto& x = json[object][key];
      if (x.is_string()) v = x.get<std::string>();
      if (x.is_number()) v = fmt::format("{}", x.get<double>());
    }
    out.emplace_back(name, v);
  };
  field("sm_max_clock_mhz", "gpu", "sm_max_clock_mhz");
  field("mem_clock_mhz", "gpu", "mem_clock_mhz");
  field("ncu_clock_control", "ncu_settings", "clock_control");
  field("torch", "environment", "torch");
  return out;
}

Result<ComparedValues> LoadComparedFields(store::Store& store, int64_t run) {
  auto info = store.GetRun(run);
  if (!info.ok()) return info.error();
  auto capture = store.RunCapture(run);
  if (!capture.ok()) return capture.error();
  return ComparedFields(info->manifest, *capture);
}

Result<std::map<std::string, StageFacts>> LoadStageFacts(store::Store& store, int64_t run,
                                                         const AnalysisOptions& config, std::optional<int64_t> rank) {
  auto info = store.GetRun(run);
  if (!info.ok()) return info.error();
  auto nsys = LoadNsysEvents(store, run);
  if (!nsys.ok()) return nsys.error();
  std::optional<RankSelection> selection;
  if (rank) {
    auto ranks = ReadRanks(store, run);
    if (!ranks.ok()) return ranks.error();
    auto found = FindRank(*ranks, *rank, run);
    if (!found.ok()) return found.error();
    selection = SelectRank(*nsys, *found);
  }
  auto stages = ComputeStages(store, run, selection ? &selection->events : &*nsys);
  if (!stages.ok()) return stages.error();
  if (selection) KSCOPE_RETURN_IF_ERROR(ProjectStages(store, selection->events, *stages));
  auto rows = LoadKernelRows(store, run, &*nsys);
  if (!rows.ok()) return rows.error();
  auto model = ResolveModel(config.model);
  if (!model.ok()) return model.error();
  auto launches = LoadNcuLaunches(store, run);
  if (!launches.ok()) return launches.error();
  const auto work = GatherProfiledWork(*launches, run, *rows);
  if (selection) *rows = AtRows(*rows, selection->kernel_rows);
  const std::string gpu = info->manifest.gpu.value_or("");
  const std::string dtype = !config.model.dtype.empty() ? config.model.dtype : info->manifest.dtype.value_or("");
  std::map<std::string, StageFacts> out;
  for (const auto& s : *stages) {
    if (s.torch_op || s.library) continue;
    const auto steady = SteadyState(s, config.stages.warmup);
    const auto mfu = ComputeStageMfu(s, steady, *rows, work, *model, config.model, gpu, dtype);
    StageFacts f;
    f.instances = s.instances;
    f.steady = steady.steady;
    f.gpu = steady.gpu;
    f.median_gpu_ns = steady.median_gpu_ns;
    f.kernel_ns = s.kernel_ns;
    f.mfu_pct = mfu.mfu_pct;
    f.mfu_source = mfu.mfu_source;
    out[s.name] = f;
  }
  return out;
}

std::string ClassMix::Main() const {
  std::string best;
  int64_t most = 0;
  for (const auto& [name, n] : launches) {
    if (n > most) {
      best = name;
      most = n;
    }
  }
  return best;
}

int64_t ClassMix::Total() const {
  int64_t n = 0;
  for (const auto& [name, k] : launches) n += k;
  return n;
}

Result<RunClasses> LoadRunClasses(store::Store& store, int64_t run, const ClassifyThresholds& thresholds) {
  auto launches = LoadNcuLaunches(store, run);
  if (!launches.ok()) return launches.error();
  RunClasses out;
  for (const auto& l : *launches) {
    const auto id = IdentifyKernel(l.key.name);
    const auto b = Diagnose(l, thresholds).bottleneck;
    if (b == Bottleneck::kUnknown) continue;  // the metrics a class needs were not collected
    const std::string cls(BottleneckName(b));
    for (auto* mix : {&out.families[id.family], &out.kernels[l.key.name]}) {
      mix->family = id.family;
      mix->library = std::string(LibraryName(id.library));
      ++mix->launches[cls];
    }
  }
  return out;
}

std::vector<ClassChangeRow> CompareClasses(const std::map<std::string, ClassMix>& a,
                                           const std::map<std::string, ClassMix>& b) {
  std::vector<ClassChangeRow> rows;
  for (const auto& [key, x] : a) {
    auto it = b.find(key);
    if (it != b.end() && x.Main() != it->second.Main()) rows.push_back({key, x.family, x.library, x, it->second});
  }
  return rows;
}

}  // namespace kscope::analysis::atlas
