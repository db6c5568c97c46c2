// kscope merge OTHER.db: runs of another store copied into this one (import/run_copy.h), with
// their ids given anew, a run whose source file this store holds already refused, all in one
// transaction. A store of an older schema is read through a private upgraded copy of it (it is
// itself left as it is); one from a newer kscope is refused.
#pragma once

#include <optional>
#include <string>

#include "import/run_copy.h"
#include "store/store.h"
#include "util/status.h"
#include "util/temp_dir.h"

namespace kscope::import {

// A store to copy runs from, of today's schema: the file itself, or a private copy of it (upgraded
// from the older schema it had, or for a user who may not write it or its folder).
class SourceStore {
 public:
  static Result<SourceStore> Open(const std::string& path);
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] int upgraded_from() const { return upgraded_from_; }  // 0: of today's schema

 private:
  SourceStore(std::optional<TempDir> dir, std::string path, int from)
      : dir_(std::move(dir)), path_(std::move(path)), upgraded_from_(from) {}
  std::optional<TempDir> dir_;
  std::string path_;
  int upgraded_from_ = 0;
};

struct MergeOutcome {
  RunCopyOutcome copied;
  int upgraded_from = 0;  // the other store's schema version when older than today's, else 0
};

// True when `path` is a kscope store (an SQLite file with kscope_meta), read without writing.
bool IsKscopeStore(const std::string& path);

// Copies runs of the store at `other` (options.runs; all when empty) into the store at `target`
// (made when missing, upgraded when older), then moves the write-ahead log into its file
// (store/checkpoint.h: an error says the runs are committed but not yet there).
Result<MergeOutcome> MergeStore(const std::string& target, const std::string& other, const RunCopyOptions& options);

}  // namespace kscope::import
