// The kscope database: opening (creating or version-checking), runs, strings, problems.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/sqlite.h"
#include "util/status.h"

namespace kscope::store {

// What shaped a run's numbers. Fields the import cannot know come from the command line.
struct Manifest {
  std::optional<std::string> label, model, dtype, gpu, driver, cuda_version, ncu_version, command;
  // Two nsys versions that can differ for one nsys (2025.3.2.0 in its exports, 2025.3.1.0 from
  // its --version): the one the imported export records, and the one `nsys --version` printed
  // when kscope profile ran it (none for an imported export).
  std::optional<std::string> nsys_export_version, nsys_tool_version;
  std::optional<int64_t> batch, tokens;
  std::map<std::string, std::string> tags;
};

struct RunInfo {
  int64_t id = 0;
  std::string imported_at;
  Manifest manifest;
  int64_t kernels = 0;
  int64_t api_calls = 0;
  std::string status = "complete";  // 'complete', 'running' or 'incomplete' (kscope profile)
};

struct SourceFile {
  std::string path, format, format_version, content_hash;
  int64_t bytes = 0, rows_read = 0, rows_skipped = 0;
};

// Where the database lives when --db is not given: $KSCOPE_DB, else
// $XDG_DATA_HOME/kscope/kscope.db, else ~/.local/share/kscope/kscope.db.
std::string DefaultDbPath();

class Store {
 public:
  // kCreate makes the file and its schema if missing (safe while other kscope processes do the
  // same); every mode checks the schema version. Writers wait for each other (sql::LockWait).
  // A store of an older schema is refused here: import::OpenStore upgrades it first.
  static Result<Store> Open(const std::string& path, sql::OpenMode mode);
  // A read-write connection with no schema check and foreign keys off, for the upgrade of an
  // older store (import/store_upgrade.cc) and nothing else.
  static Result<Store> OpenForUpgrade(const std::string& path);

  sql::Db& db() { return db_; }

  // Whether the file opened is still the file at its path: an error when it was removed, moved
  // or replaced since (what was written went with it), for the import to say so.
  [[nodiscard]] Status CheckStillThere() const;

  Result<int64_t> CreateRun(const Manifest& manifest);
  // Fills manifest fields that are still empty (the import learns GPU, versions, command).
  Status CompleteManifest(int64_t run_id, const Manifest& learned);
  // kscope profile: the run's state and its capture manifest (JSON text; empty keeps it).
  Status SetRunStatus(int64_t run_id, std::string_view status, const std::string& capture_json);
  // The capture manifest of a run made by kscope profile (empty for imported runs).
  Result<std::string> RunCapture(int64_t run_id);
  Result<int64_t> AddSourceFile(int64_t run_id, const SourceFile& file);
  // The first run holding a file of this content (FileContentHash), if any.
  Result<std::optional<int64_t>> RunWithContent(std::string_view content_hash);
  Status SetSourceContentHash(int64_t source_id, std::string_view content_hash);
  Status FinishSourceFile(int64_t source_id, const std::string& format_version, int64_t rows_read,
                          int64_t rows_skipped);
  Status AddProblem(int64_t run_id, int64_t source_id, std::string_view location, std::string_view what,
                    std::string_view raw);

  // Id of `value` in the shared string table, adding it if new.
  Result<int64_t> InternString(std::string_view value);
  // Looks up strings by id; ids not found map to "".
  Result<std::unordered_map<int64_t, std::string>> Strings(const std::vector<int64_t>& ids);

  Result<std::vector<RunInfo>> ListRuns();
  Result<RunInfo> GetRun(int64_t run_id);
  Result<int64_t> StreamRows(int64_t run_id, std::string_view stream);
  // The names of the run's threads by nsys global thread id (thread_name).
  Result<std::unordered_map<int64_t, std::string>> ThreadNames(int64_t run_id);

 private:
  explicit Store(sql::Db db);
  Status CreateSchema();
  Status CheckSchema();

  sql::Db db_;
  std::unordered_map<std::string, int64_t> string_cache_;
  std::optional<std::pair<uint64_t, uint64_t>> file_id_;  // device and inode of the file opened
};

}  // namespace kscope::store
