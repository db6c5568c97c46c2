// What the benchmarks read and where they write: the scaled export (--export=PATH or
// $KSCOPE_BENCH_EXPORT) and a directory for their stores (--db-dir=DIR or
// $KSCOPE_BENCH_DB_DIR, else the export's directory).
#pragma once

#include <cstdint>
#include <string>

namespace kscope::bench {

struct Inputs {
  std::string export_path;
  std::string db_dir;
};

// Takes kscope_bench's own flags out of argv (Google Benchmark rejects unknown ones).
// Returns false, after printing why, when no export was named or it does not exist.
bool ParseInputs(int& argc, char** argv);
const Inputs& GetInputs();

// A fresh path for a store in the db directory; any file already there is removed.
std::string FreshDbPath(const std::string& name);
// Bytes on disk of a store: the database and any -wal / -shm file beside it.
int64_t DbBytes(const std::string& path);

}  // namespace kscope::bench
