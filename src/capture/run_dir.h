// A profile run's directory, runs/<run-id>/{nsys,ncu,logs}/ with manifest.json, and what
// happens to older run directories (kept, compressed with zstd file by file, or deleted).
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "store/store.h"
#include "util/status.h"

namespace kscope::capture {

struct RunDir {
  std::filesystem::path root;
  [[nodiscard]] std::filesystem::path nsys() const { return root / "nsys"; }
  [[nodiscard]] std::filesystem::path ncu() const { return root / "ncu"; }
  [[nodiscard]] std::filesystem::path logs() const { return root / "logs"; }
  [[nodiscard]] std::filesystem::path manifest() const { return root / "manifest.json"; }
};

// Creates <runs_dir>/<run_id>/ and its three folders; an existing directory for that id
// (a run id reused by a new database) is an error, not overwritten.
Result<RunDir> MakeRunDir(const std::string& runs_dir, int64_t run_id);

// What the user said about the run (label, model, dtype, batch, tokens, tags), as manifest.json
// keeps it under "run" so that the directory imported elsewhere keeps it too; and back.
nlohmann::json RunDescription(const store::Manifest& m);
store::Manifest RunDescriptionFromJson(const nlohmann::json& j);

// Writes manifest.json whole (util/atomic_file.h: never half-written).
Status WriteManifest(const RunDir& dir, const nlohmann::json& manifest);

// The run directories directly under `runs_dir` (folders named by a run id), by run id.
Result<std::vector<std::pair<int64_t, std::filesystem::path>>> RunDirsIn(const std::filesystem::path& runs_dir);

// Run directories under `runs_dir` other than the newest `keep` (by run id): `policy`
// "compress" replaces each file by FILE.zst, "delete" removes the directory, "keep" does
// nothing. Returns one line per directory handled.
Result<std::vector<std::string>> ApplyRetention(const std::string& runs_dir, int64_t keep, const std::string& policy);

// zstd-compresses `path` to `path`.zst (written whole) and removes `path`.
Status CompressFile(const std::filesystem::path& path);

// The inverse: `from` (a .zst file) decompressed to `to` (written whole; `from` is kept).
Status DecompressFile(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace kscope::capture
