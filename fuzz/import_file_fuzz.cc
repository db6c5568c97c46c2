#include "import_file_fuzz.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "import/import_files.h"
#include "report/nsys_stats.h"
#include "store/store.h"

namespace kscope::fuzz {

namespace {

std::string g_path;  // one temporary file per fuzzing process, rewritten for every input

const std::string& InputPath(const char* suffix) {
  if (g_path.empty()) {
    std::string p = (std::filesystem::temp_directory_path() / "kscope_fuzz_XXXXXX").string() + suffix;
    const int fd = mkstemps(p.data(), static_cast<int>(std::strlen(suffix)));
    if (fd < 0) std::abort();
    close(fd);
    g_path = p;
    std::atexit([] { std::remove(g_path.c_str()); });
  }
  return g_path;
}

int64_t Runs(store::Store& store) {
  auto q = store.db().Prepare("SELECT count(*) FROM run");
  if (!q.ok() || !q->Step()) std::abort();
  return q->Int(0);
}

[[noreturn]] void Fail(const char* fuzzer, const char* why, const std::string& line) {
  std::fprintf(stderr, "%s: %s: %s\n", fuzzer, why, line.c_str());
  std::abort();
}

void WriteInput(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!f) std::abort();
}

}  // namespace

int FuzzImportFile(const uint8_t* data, size_t size, const char* suffix, const char* fuzzer) {
  const std::string& path = InputPath(suffix);
  WriteInput(path, data, size);
  auto store = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  if (!store.ok()) std::abort();
  auto outcomes = import::ImportFiles(*store, {path}, {});
  if (!outcomes.ok()) {  // a failed import is one line naming what is wrong, and keeps nothing
    const std::string line = outcomes.error().Line();
    if (line.find('\n') != std::string::npos || outcomes.error().what.empty()) Fail(fuzzer, "not one line", line);
    if (Runs(*store) != 0) Fail(fuzzer, "the failed import kept a run", line);
    return 0;
  }
  if (outcomes->size() != 1 || Runs(*store) != 1) std::abort();
  for (std::string_view report : report::NsysReportNames()) {  // what was imported survives every report
    auto table = report::BuildNsysReport(*store, outcomes->front().run_id, report);
    if (!table.ok() && table.error().Line().find('\n') != std::string::npos)
      Fail(fuzzer, "not one line", table.error().Line());
  }
  return 0;
}

}  // namespace kscope::fuzz
