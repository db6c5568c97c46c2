// Measurement driver: kscope's full import (ImportFiles) of one file into a new store.
#include <cstdio>
#include <string>

#include "import/import_files.h"
#include "store/store.h"
int main(int argc, char** argv) {
  auto s = kscope::store::Store::Open(argv[1], kscope::sql::OpenMode::kCreate);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.error().Line().c_str());
    return 1;
  }
  auto out = kscope::import::ImportFiles(*s, {std::string(argv[2])}, {});
  if (!out.ok()) {
    std::fprintf(stderr, "%s\n", out.error().Line().c_str());
    return 1;
  }
  std::printf("run %lld: %lld rows\n", (long long)out->front().run_id, (long long)out->front().rows_read);
  return 0;
}
