// Feeds arbitrary bytes to kscope import as a PyTorch profiler (Kineto) trace file, plain or
// gzip (the registry sniffs either), through import_file_fuzz.h's shared body.
#include "import_file_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return kscope::fuzz::FuzzImportFile(data, size, ".json", "kineto_trace_fuzzer");
}
