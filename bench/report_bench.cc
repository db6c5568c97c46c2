// Each nsys stats report on a run imported once into a file-backed store: build the table
// and write it as CSV to a string, as `kscope stats --format csv RUN` does.
#include <benchmark/benchmark.h>

#include <optional>
#include <sstream>

#include "bench_inputs.h"
#include "import/import_files.h"
#include "report/nsys_stats.h"
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

}  // namespace

void RegisterReportBenchmarks() {
  for (std::string_view name : report::NsysReportNames()) {
    benchmark::RegisterBenchmark(("BM_Report/" + std::string(name)).c_str(), BM_Report, name)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

}  // namespace kscope::bench
