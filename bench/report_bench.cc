// Each nsys stats report on a run imported once into a file-backed store: build the table
// and write it as CSV to a string, as `kscope stats --format csv RUN` does. And the timeline
// diagnosis of the same run: loading its events, diagnosing the whole run, and diagnosing
// the instances of its NVTX ranges as one window set.
#include <benchmark/benchmark.h>

#include <optional>
#include <sstream>

#include "analysis/graph/dependency_graph.h"
#include "analysis/graph/graph_events.h"
#include "analysis/graph/replay.h"
#include "analysis/graph/whatif.h"
#include "analysis/timeline/timeline.h"
#include "bench_inputs.h"
#include "config/config.h"
#include "import/import_files.h"
#include "report/html_report.h"
#include "report/nsys_stats.h"
#include "report/report_text.h"
#include "report/run_report.h"
#include "report/run_report_json.h"
#include "store/event_reader.h"
#include "store/event_streams.h"
#include "store/store.h"

namespace kscope::bench {
namespace {

struct ImportedRun {
  std::optional<store::Store> store;
  int64_t run_id = 0;
  int64_t db_bytes = 0;
  std::string error;
};

// The store every report reads, imported on first use (outside any timing).
ImportedRun& SharedRun() {
  static ImportedRun run = [] {
    ImportedRun r;
    const std::string path = FreshDbPath("kscope_bench_reports.db");
    {
      auto s = store::Store::Open(path, sql::OpenMode::kCreate);
      if (!s.ok()) return r.error = s.error().Line(), std::move(r);
      auto outcomes = import::ImportFiles(*s, {GetInputs().export_path}, {});
      if (!outcomes.ok()) return r.error = outcomes.error().Line(), std::move(r);
      r.run_id = outcomes->front().run_id;
    }
    r.db_bytes = DbBytes(path);
    auto s = store::Store::Open(path, sql::OpenMode::kReadOnly);
    if (!s.ok()) return r.error = s.error().Line(), std::move(r);
    r.store.emplace(std::move(*s));
    return r;
  }();
  return run;
}

void BM_Report(benchmark::State& state, std::string_view report) {
  ImportedRun& run = SharedRun();
  if (!run.error.empty()) return state.SkipWithError(run.error.c_str());
  size_t rows = 0, csv_bytes = 0;
  for (auto _ : state) {
    auto table = report::BuildNsysReport(*run.store, run.run_id, report);
    if (!table.ok()) return state.SkipWithError(table.error().Line().c_str());
    std::ostringstream csv;
    report::WriteCsv(*table, csv);
    std::string out = std::move(csv).str();
    benchmark::DoNotOptimize(out.data());
    rows = table->rows.size();
    csv_bytes = out.size();
  }
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["csv_bytes"] = static_cast<double>(csv_bytes);
  state.counters["db_bytes_per_run"] = static_cast<double>(run.db_bytes);
}

void BM_TimelineLoad(benchmark::State& state) {
  ImportedRun& run = SharedRun();
  if (!run.error.empty()) return state.SkipWithError(run.error.c_str());
  size_t api_calls = 0;
  for (auto _ : state) {
    auto events = analysis::LoadTimelineEvents(*run.store, run.run_id);
    if (!events.ok()) return state.SkipWithError(events.error().Line().c_str());
    api_calls = events->api.start.size();
    benchmark::DoNotOptimize(events->gpu_busy.data());
  }
  state.counters["api_calls"] = static_cast<double>(api_calls);
}

// windows_from_nvtx: every NVTX range of the run is a window; else the whole run.
void BM_TimelineDiagnose(benchmark::State& state, bool windows_from_nvtx) {
  ImportedRun& run = SharedRun();
  if (!run.error.empty()) return state.SkipWithError(run.error.c_str());
  auto events = analysis::LoadTimelineEvents(*run.store, run.run_id);
  if (!events.ok()) return state.SkipWithError(events.error().Line().c_str());
  std::vector<analysis::TimeWindow> windows;
  if (windows_from_nvtx) {
    auto ranges =
        store::ReadColumns(run.store->db(), run.run_id, store::kNvtxStream, {store::nvtx::kStart, store::nvtx::kEnd});
    if (!ranges.ok()) return state.SkipWithError(ranges.error().Line().c_str());
    for (size_t i = 0; i < (*ranges)[0].size(); ++i) windows.push_back({(*ranges)[0][i], (*ranges)[1][i]});
  }
  int64_t ops = 0;
  size_t findings = 0;
  for (auto _ : state) {
    const analysis::TimelineDiagnosis d = analysis::DiagnoseTimeline(*events, windows, {});
    ops = d.kernels + d.memops;
    findings = d.findings.size();
    benchmark::DoNotOptimize(d.bins.data());
  }
  state.counters["windows"] = static_cast<double>(windows.size());
  state.counters["gpu_ops"] = static_cast<double>(ops);
  state.counters["findings"] = static_cast<double>(findings);
}

// kscope report: the whole report of the run (stages, timeline, kernels, MFU) as report.json,
// report.md and report.html, written to strings.
void BM_RunReport(benchmark::State& state) {
  ImportedRun& run = SharedRun();
  if (!run.error.empty()) return state.SkipWithError(run.error.c_str());
  const config::Config cfg;
  size_t bytes = 0;
  for (auto _ : state) {
    auto r = report::BuildRunReport(*run.store, run.run_id, cfg);
    if (!r.ok()) return state.SkipWithError(r.error().Line().c_str());
    std::ostringstream out;
    out << report::ReportJsonText(*r);
    report::WriteReportMarkdown(*r, out);
    if (auto st = report::WriteHtmlReport(*r, out); !st.ok()) return state.SkipWithError(st.error().Line().c_str());
    bytes = out.str().size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["output_bytes"] = static_cast<double>(bytes);
}

// kscope whatif's parts: the dependency graph built from the stored run (its events read and
// its edges made), one replay of it, and the whole answer (graph, step sets, the recording's
// and an edit's replay, the critical paths).
void BM_GraphBuild(benchmark::State& state) {
  ImportedRun& run = SharedRun();
  if (!run.error.empty()) return state.SkipWithError(run.error.c_str());
  size_t nodes = 0, edges = 0;
  for (auto _ : state) {
    auto events = analysis::graph::LoadGraphEvents(*run.store, run.run_id);
    if (!events.ok()) return state.SkipWithError(events.error().Line().c_str());
    const analysis::graph::DependencyGraph g = analysis::graph::BuildGraph(std::move(*events));
    nodes = g.nodes();
    edges = g.edges.size();
    benchmark::DoNotOptimize(g.edges.data());
  }
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["edges"] = static_cast<double>(edges);
}

void BM_GraphReplay(benchmark::State& state) {
  ImportedRun& run = SharedRun();
  if (!run.error.empty()) return state.SkipWithError(run.error.c_str());
  auto events = analysis::graph::LoadGraphEvents(*run.store, run.run_id);
  if (!events.ok()) return state.SkipWithError(events.error().Line().c_str());
  const analysis::graph::DependencyGraph g = analysis::graph::BuildGraph(std::move(*events));
  for (auto _ : state) {
    const analysis::graph::Replayed r = analysis::graph::Replay(g);
    benchmark::DoNotOptimize(r.time.data());
  }
  state.counters["points"] = static_cast<double>(g.points());
}

void BM_WhatIf(benchmark::State& state) {
  ImportedRun& run = SharedRun();
  if (!run.error.empty()) return state.SkipWithError(run.error.c_str());
  const auto edit = analysis::graph::ParseEdit("kernel:gemm=0.5");
  size_t steps = 0;
  for (auto _ : state) {
    auto a = analysis::graph::AnswerWhatIf(*run.store, run.run_id, {*edit}, {});
    if (!a.ok()) return state.SkipWithError(a.error().Line().c_str());
    steps = a->steps.size();
    benchmark::DoNotOptimize(a->steps.data());
  }
  state.counters["step_sets"] = static_cast<double>(steps);
}

}  // namespace

void RegisterReportBenchmarks() {
  benchmark::RegisterBenchmark("BM_Graph/build", BM_GraphBuild)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("BM_Graph/replay", BM_GraphReplay)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("BM_Graph/whatif", BM_WhatIf)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("BM_RunReport", BM_RunReport)->Unit(benchmark::kMillisecond)->UseRealTime();
  for (std::string_view name : report::NsysReportNames()) {
    benchmark::RegisterBenchmark(("BM_Report/" + std::string(name)).c_str(), BM_Report, name)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("BM_Timeline/load", BM_TimelineLoad)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("BM_Timeline/whole_run", BM_TimelineDiagnose, false)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_Timeline/nvtx_ranges", BM_TimelineDiagnose, true)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace kscope::bench
