// kscope_bench --export=SCALED.sqlite [--db-dir=DIR] [Google Benchmark flags]
// Times import of an nsys export and each stats report on the imported run; see bench/README.md.
#include <benchmark/benchmark.h>

#include "bench_inputs.h"

namespace kscope::bench {
void RegisterReportBenchmarks();
}

int main(int argc, char** argv) {
  if (!kscope::bench::ParseInputs(argc, argv)) return 2;
  kscope::bench::RegisterReportBenchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
