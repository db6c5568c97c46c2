#include "bench_inputs.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace kscope::bench {

namespace {
Inputs g_inputs;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}
}  // namespace

bool ParseInputs(int& argc, char** argv) {
  g_inputs.export_path = Env("KSCOPE_BENCH_EXPORT");
  g_inputs.db_dir = Env("KSCOPE_BENCH_DB_DIR");
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a.starts_with("--export=")) {
      g_inputs.export_path = a.substr(9);
    } else if (a.starts_with("--db-dir=")) {
      g_inputs.db_dir = a.substr(9);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (g_inputs.export_path.empty() || !std::filesystem::exists(g_inputs.export_path)) {
    std::fprintf(stderr,
                 "kscope_bench: name an existing nsys export with --export=PATH or KSCOPE_BENCH_EXPORT "
                 "(make one with make_scaled_export)\n");
    return false;
  }
  if (g_inputs.db_dir.empty()) {
    g_inputs.db_dir = std::filesystem::absolute(g_inputs.export_path).parent_path().string();
  }
  return true;
}

const Inputs& GetInputs() { return g_inputs; }

std::string FreshDbPath(const std::string& name) {
  const std::string path = (std::filesystem::path(g_inputs.db_dir) / name).string();
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix);
  return path;
}

int64_t DbBytes(const std::string& path) {
  int64_t bytes = 0;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::error_code ec;
    auto n = std::filesystem::file_size(path + suffix, ec);
    if (!ec) bytes += static_cast<int64_t>(n);
  }
  return bytes;
}

}  // namespace kscope::bench
