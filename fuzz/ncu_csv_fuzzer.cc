// Feeds arbitrary bytes to the ncu CSV importers (raw and details page: the first bytes pick
// which page the input pretends to be) and then to the kernel analyses. Whatever the bytes,
// the import succeeds or fails with one clean line and keeps nothing, and never crashes.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/kernels/bottleneck.h"
#include "analysis/kernels/ncu_kernel_sections.h"
#include "analysis/kernels/roofline.h"
#include "import/import_files.h"
#include "report/kernel_reports.h"
#include "store/store.h"

namespace {

const std::string& InputPath() {
  static const std::string path = [] {
    std::string p = (std::filesystem::temp_directory_path() / "kscope_ncu_fuzz_XXXXXX.csv").string();
    const int fd = mkstemps(p.data(), 4);
    if (fd < 0) std::abort();
    close(fd);
    std::atexit([] { std::remove(InputPath().c_str()); });
    return p;
  }();
  return path;
}

[[noreturn]] void Fail(const char* why, const std::string& line) {
  std::fprintf(stderr, "ncu_csv_fuzzer: %s: %s\n", why, line.c_str());
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
    auto q = store->db().Prepare("SELECT (SELECT count(*) FROM run) + (SELECT count(*) FROM ncu_launch)");
    if (!q.ok() || !q->Step() || q->Int(0) != 0) Fail("the failed import kept rows", line);
    return 0;
  }
  const int64_t run = outcomes->front().run_id;
  auto launches = kscope::analysis::LoadNcuLaunches(*store, run);
  if (!launches.ok()) Fail("cannot load what was imported", launches.error().Line());
  for (const auto& l : *launches) {
    (void)kscope::analysis::ComputeRoofline(l);
    (void)kscope::analysis::Diagnose(l, {});
  }
  (void)kscope::analysis::GroupByKernel(*launches);
  auto table = kscope::report::KernelsTable(*store, run, {});
  if (!table.ok() && table.error().Line().find('\n') != std::string::npos) Fail("not one line", table.error().Line());
  return 0;
}
