// Feeds arbitrary bytes to kscope import as an nsys export (.sqlite) through
// import_file_fuzz.h's shared body.
#include "import_file_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return kscope::fuzz::FuzzImportFile(data, size, ".sqlite", "nsys_import_fuzzer");
}
