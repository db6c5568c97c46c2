// The native .ncu-rep reader on a real report (--report=PATH or $KSCOPE_BENCH_NCU_REP; the
// devset's llama_deep.ncu-rep unpacked from tests/data/ncu/ by scripts/bench.sh):
//   BM_NcuRepRead: every launch and every metric value and instance, as an importer sees them;
//   BM_NcuRepImport: the whole import into a fresh file-backed store, as `kscope import` does.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

#include "import/import_files.h"
#include "import/ncu/rep_reader.h"
#include "store/store.h"

namespace {

std::string& ReportPath() {
  static std::string path;
  return path;
}

double MaxRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

void BM_NcuRepRead(benchmark::State& state) {
  int64_t launches = 0, metrics = 0, instances = 0, bytes = 0;
  for (auto _ : state) {
    launches = metrics = instances = 0;
    double sum = 0;
    auto read = kscope::import::ncu::ReadRep(ReportPath(), [&](const kscope::import::ncu::RepLaunch& l) {
      ++launches;
      for (const auto& m : l.metrics) {
        ++metrics;
        instances += static_cast<int64_t>(m.instances.size());
        if (m.value.numeric()) sum += m.value.number();
      }
      return kscope::Status::Ok();
    });
    if (!read.ok()) return state.SkipWithError(read.error().Line().c_str());
    bytes = read->bytes;
    benchmark::DoNotOptimize(sum);
  }
  using benchmark::Counter;
  state.counters["launches"] = static_cast<double>(launches);
  state.counters["metrics"] = static_cast<double>(metrics);
  state.counters["instances"] = static_cast<double>(instances);
  state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["MB_per_s"] = Counter(static_cast<double>(bytes) / 1e6, Counter::kIsIterationInvariantRate);
  state.counters["max_rss_MB"] = MaxRssMb();
}
BENCHMARK(BM_NcuRepRead)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

void BM_NcuRepImport(benchmark::State& state) {
  const auto db = std::filesystem::temp_directory_path() / "kscope_bench_ncu_rep.db";
  int64_t launches = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + suffix);
    state.ResumeTiming();
    auto store = kscope::store::Store::Open(db.string(), kscope::sql::OpenMode::kCreate);
    if (!store.ok()) return state.SkipWithError(store.error().Line().c_str());
    auto out = kscope::import::ImportFiles(*store, {ReportPath()}, {});
    if (!out.ok()) return state.SkipWithError(out.error().Line().c_str());
    launches = out->front().rows_read;
  }
  state.counters["launches"] = static_cast<double>(launches);
  state.counters["max_rss_MB"] = MaxRssMb();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + suffix);
}
BENCHMARK(BM_NcuRepImport)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace

int main(int argc, char** argv) {
  if (const char* env = std::getenv("KSCOPE_BENCH_NCU_REP")) ReportPath() = env;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--report=", 9) == 0) {
      ReportPath() = argv[i] + 9;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (ReportPath().empty() || !std::filesystem::exists(ReportPath())) {
    std::cerr << "ncu_rep_bench: name a report: --report=PATH or KSCOPE_BENCH_NCU_REP (e.g. llama_deep.ncu-rep, "
                 "unpacked from tests/data/ncu/llama_deep.ncu-rep.zst)\n";
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
