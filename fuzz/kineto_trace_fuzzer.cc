// Feeds arbitrary bytes to kscope import as a PyTorch profiler (Kineto) trace file, plain or
// gzip, through the same entry as `kscope import` (ImportFiles: the registry sniffs it, the
// streaming reader parses it) into an in-memory store. Whatever the bytes, the import must
// succeed or fail with one clean error line, keep nothing when it fails, and never crash,
// leak or hang; what it imports must survive every nsys report built from it.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "import/import_files.h"
#include "report/nsys_stats.h"
#include "store/store.h"

namespace {

// One temporary file per fuzzing process, rewritten for every input.
const std::string& InputPath() {
  static const std::string path = [] {
    std::string p = (std::filesystem::temp_directory_path() / "kscope_fuzz_XXXXXX.json").string();
    const int fd = mkstemps(p.data(), 5);
    if (fd < 0) std::abort();
    close(fd);
    std::atexit([] { std::remove(InputPath().c_str()); });
    return p;
  }();
  return path;
}

int64_t Runs(kscope::store::Store& store) {
  auto q = store.db().Prepare("SELECT count(*) FROM run");
  if (!q.ok() || !q->Step()) std::abort();
  return q->Int(0);
}

[[noreturn]] void Fail(const char* why, const std::string& line) {
  std::fprintf(stderr, "kineto_trace_fuzzer: %s: %s\n", why, line.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = InputPath();
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!f) std::abort();
  }
  auto store = kscope::store::Store::Open(":memory:", kscope::sql::OpenMode::kCreate);
  if (!store.ok()) std::abort();
  auto outcomes = kscope::import::ImportFiles(*store, {path}, {});
  if (!outcomes.ok()) {
    const std::string line = outcomes.error().Line();
    if (line.find('\n') != std::string::npos || outcomes.error().what.empty()) Fail("not one line", line);
    if (Runs(*store) != 0) Fail("the failed import kept a run", line);
    return 0;
  }
  if (outcomes->size() != 1 || Runs(*store) != 1) std::abort();
  for (std::string_view report : kscope::report::NsysReportNames()) {
    auto table = kscope::report::BuildNsysReport(*store, outcomes->front().run_id, report);
    if (!table.ok() && table.error().Line().find('\n') != std::string::npos) Fail("not one line", table.error().Line());
  }
  return 0;
}
