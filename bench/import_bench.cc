// Import of the scaled export into a fresh file-backed store, as `kscope --db X import FILE`
// does it: open (create) the store, import, close. Reports launches/s and the store's size.
#include <benchmark/benchmark.h>

#include "bench_inputs.h"
#include "import/import_files.h"
#include "store/store.h"

namespace kscope::bench {
namespace {

void BM_Import(benchmark::State& state) {
  const Inputs& in = GetInputs();
  int64_t kernels = 0, api_calls = 0, db_bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const std::string db_path = FreshDbPath("kscope_bench_import.db");
    state.ResumeTiming();
    {
      auto store = store::Store::Open(db_path, sql::OpenMode::kCreate);
      if (!store.ok()) return state.SkipWithError(store.error().Line().c_str());
      auto outcomes = import::ImportFiles(*store, {in.export_path}, {});
      if (!outcomes.ok()) return state.SkipWithError(outcomes.error().Line().c_str());
      auto run = store->GetRun(outcomes->front().run_id);
      if (!run.ok()) return state.SkipWithError(run.error().Line().c_str());
      kernels = run->kernels;
      api_calls = run->api_calls;
    }  // closing the store checkpoints its WAL: part of what an import costs
    state.PauseTiming();
    db_bytes = DbBytes(db_path);
    state.ResumeTiming();
  }
  using benchmark::Counter;
  state.counters["launches_per_s"] = Counter(static_cast<double>(kernels), Counter::kIsIterationInvariantRate);
  state.counters["kernels"] = static_cast<double>(kernels);
  state.counters["api_calls"] = static_cast<double>(api_calls);
  state.counters["db_bytes_per_run"] = static_cast<double>(db_bytes);
  state.counters["db_bytes_per_kernel"] = kernels ? static_cast<double>(db_bytes) / static_cast<double>(kernels) : 0;
}
BENCHMARK(BM_Import)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace
}  // namespace kscope::bench
