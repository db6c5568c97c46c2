#include "import/nsys/export_manifest.h"

#include <fmt/format.h>

#include <cstdlib>
#include <map>

#include "tools/rank.h"

namespace kscope::import::nsys {

void LearnManifest(sql::Db& db, const ExportSchema& schema, store::Manifest& m) {
  m.nsys_export_version = schema.product_version;
  if (schema.HasTable("TARGET_INFO_GPU")) {
    if (auto q = db.Prepare("SELECT DISTINCT name FROM TARGET_INFO_GPU WHERE name IS NOT NULL ORDER BY id"); q.ok()) {
      std::string gpus;
      while (q->Step()) gpus += (gpus.empty() ? "" : ", ") + q->Text(0);
      if (!gpus.empty()) m.gpu = gpus;
    }
  }
  if (schema.HasTable("TARGET_INFO_SYSTEM_ENV")) {
    if (auto q = db.Prepare(
            "SELECT name, value FROM TARGET_INFO_SYSTEM_ENV WHERE name IN ('NvDriverVersion', 'CudaDriverVersion')");
        q.ok()) {
      while (q->Step()) {
        const std::string name = q->Text(0);
        const std::string value = q->Text(1);
        if (name == "NvDriverVersion") m.driver = value;
        if (name == "CudaDriverVersion") {
          const int v = std::atoi(value.c_str());
          if (v > 0) m.cuda_version = fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
        }
      }
    }
  }
  if (schema.HasTable("META_DATA_CAPTURE")) {
    if (auto q = db.Prepare("SELECT name, value FROM META_DATA_CAPTURE WHERE name = 'PROCESS_0:COMMAND' OR name GLOB "
                            "'PROCESS_0:ARGUMENT_[0-9]*'");
        q.ok()) {
      std::string command;
      std::map<int, std::string> args;
      while (q->Step()) {
        const std::string name = q->Text(0);
        if (name == "PROCESS_0:COMMAND") {
          command = q->Text(1);
        } else {
          args[std::atoi(name.c_str() + std::string_view("PROCESS_0:ARGUMENT_").size())] = q->Text(1);
        }
      }
      for (const auto& [i, a] : args) command += " " + a;
      if (!command.empty()) m.command = command;
    }
  }
}

std::optional<analysis::EnvRank> LaunchedRank(sql::Db& db, const ExportSchema& schema) {
  if (!schema.HasTable("META_DATA_CAPTURE")) return std::nullopt;
  auto q = db.Prepare("SELECT value FROM META_DATA_CAPTURE WHERE name = 'PROCESS_0:ENVIRONMENT_VARIABLE'");
  if (!q.ok()) return std::nullopt;
  std::map<std::string, std::string> env;  // NAME="value"
  while (q->Step()) {
    const std::string kv = q->Text(0);
    const auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    std::string value = kv.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    env.emplace(kv.substr(0, eq), std::move(value));
  }
  auto rank = capture::RankFromEnvironment(env);
  if (!rank) return std::nullopt;
  return analysis::EnvRank{rank->rank, rank->source};
}

Result<int64_t> SessionStartNs(const std::string& export_path) {
  auto db = sql::Db::Open(export_path, sql::OpenMode::kReadOnly);
  if (!db.ok())
    return Error{export_path, "cannot open as an SQLite database", "check that it is an nsys SQLite export"};
  auto q = db->Prepare("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME WHERE utcEpochNs IS NOT NULL LIMIT 1");
  if (!q.ok() || !q->Step()) {
    return Error{export_path, "the export does not say when its capture started (TARGET_INFO_SESSION_START_TIME)",
                 "export the report with an nsys that records it (2023.1 or newer), or import each node's run "
                 "directory as a run of its own"};
  }
  return q->Int(0);
}

}  // namespace kscope::import::nsys
