// Stores written by earlier kscope releases (tests/data/store_versions/<version>/: made by that
// release's own binary with make_fixture.sh) open in today's kscope: the binary upgrades each in
// place, keeps a copy of it as it was, and afterwards every run, label, tag, manifest, source
// file, event, summary and ncu metric equals a fresh import of the same files by today's kscope;
// nsys's reports are what that release printed; kernels, report.json and atlas are what today's
// kscope prints for the fresh import. A failed upgrade leaves the store as it was.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "kscope_binary.h"
#include "store/column_codec.h"
#include "store/event_reader.h"
#include "store/schema.h"
#include "store/store.h"
#include "test_support.h"
#include "util/sqlite.h"
#include "zoo_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::RunKscope;

const std::string kFixtures = std::string(KSCOPE_TEST_DATA_DIR) + "/store_versions/";

// The checkout the fixtures were made in: their runs name their source files by absolute paths
// there (as kscope records them).
constexpr std::string_view kRecordedRoot = "/work/main/";

// A fixture unpacked to `path`, its source files' paths moved from the checkout they were
// recorded in to this one (as for a user whose files moved), so that --rederive finds them.
void UnpackFixture(const std::string& version, const std::string& path) {
  std::ofstream(path, std::ios::binary) << testing::Unzstd(kFixtures + version + "/store.db.zst");
  auto db = sql::Db::Open(path, sql::OpenMode::kReadWrite);
  ASSERT_TRUE(db.ok()) << db.error().Line();
  auto move = db->Prepare("UPDATE source_file SET path = ?2 || substr(path, ?3) WHERE substr(path, 1, ?3 - 1) = ?1");
  ASSERT_TRUE(move.ok());
  move->Bind(1, std::string(kRecordedRoot))
      .Bind(2, std::string(KSCOPE_SOURCE_DIR) + "/")
      .Bind(3, static_cast<int64_t>(kRecordedRoot.size()) + 1);
  ASSERT_TRUE(move->Run().ok());
}

// Runs kscope in the repository root (the fixtures' runs name their files from there).
int Kscope(const std::vector<std::string>& args, const std::string& log) {
  const fs::path before = fs::current_path();
  fs::current_path(KSCOPE_SOURCE_DIR);
  const int rc = RunKscope(args, log);
  fs::current_path(before);
  return rc;
}

// Every row a query returns, as text, one line per row.
std::string Rows(const std::string& db_path, const std::string& query) {
  auto db = sql::Db::Open(db_path, sql::OpenMode::kReadOnly);
  if (!db.ok()) return db.error().Line();
  auto q = db->Prepare(query);
  if (!q.ok()) return q.error().Line();
  std::string out;
  const int n = sqlite3_column_count(q->raw());
  while (q->Step()) {
    for (int c = 0; c < n; ++c) {
      out += q->IsNull(c) ? "NULL"
             : sqlite3_column_type(q->raw(), c) == SQLITE_BLOB
                 ? "blob:" + std::to_string(std::hash<std::string_view>{}(
                                 std::string_view(reinterpret_cast<const char*>(q->Blob(c).data()), q->Blob(c).size())))
                 : q->Text(c);
      out += c + 1 < n ? "|" : "\n";
    }
  }
  if (!q->status().ok()) out += q->status().error().Line();
  return out;
}

// Every event of every stream of the run, one line per event, string ids resolved: equal for
// two stores however their chunks are cut and whatever ids their strings got.
std::string Events(const std::string& db_path, int64_t run) {
  auto db = sql::Db::Open(db_path, sql::OpenMode::kReadOnly);
  if (!db.ok()) return db.error().Line();
  auto strings = db->Prepare("SELECT value FROM string WHERE id = ?1");
  if (!strings.ok()) return strings.error().Line();
  std::string out;
  for (const store::StreamSpec* spec : store::kAllStreams) {
    std::vector<int> cols;
    for (size_t c = 0; c < spec->columns.size(); ++c) cols.push_back(static_cast<int>(c));
    auto columns = store::ReadColumns(*db, run, *spec, cols);
    if (!columns.ok()) return columns.error().Line();
    const size_t rows = columns->empty() ? 0 : columns->front().size();
    out += std::string(spec->name) + " " + std::to_string(rows) + " rows\n";
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < cols.size(); ++c) {
        const int64_t v = (*columns)[c][r];
        if (spec->columns[c].doc.starts_with("string id") && v != store::kNull) {
          strings->Reset();
          strings->Bind(1, v);
          out += strings->Step() ? strings->Text(0) : "?" + std::to_string(v);
        } else {
          out += std::to_string(v);
        }
        out += c + 1 < cols.size() ? "|" : "\n";
      }
    }
  }
  return out;
}

// What an import keeps of the files, with ids that depend on import order left out.
const std::vector<std::string> kSameRows = {
    "SELECT id, label, model, dtype, batch, tokens, gpu, driver, cuda_version, nsys_export_version, ncu_version, "
    "command, tags, status, capture FROM run ORDER BY id",
    "SELECT run_id, path, format, format_version, bytes, rows_read, rows_skipped FROM source_file ORDER BY id",
    "SELECT run_id, stream, rows FROM event_stream ORDER BY 1, 2",
    "SELECT k.run_id, s.value, k.n, k.total, k.mean, k.median, k.min, k.max, k.stddev FROM kernel_summary k "
    "JOIN string s ON s.id = k.name_id ORDER BY 1, 2",
    "SELECT a.run_id, s.value, a.name, a.n, a.total, a.mean, a.median, a.min, a.max, a.stddev FROM api_summary a "
    "JOIN string s ON s.id = a.name_id ORDER BY a.run_id, s.value",
    "SELECT k.run_id, k.range, k.style, k.pid, k.tid, k.range_instances, s.value, k.n, k.total, k.mean, k.median, "
    "k.min, k.max, k.stddev FROM nvtx_kernel_summary k JOIN string s ON s.id = k.kernel_name_id ORDER BY 1, 2, 3, 4, "
    "5, 7",
    "SELECT * FROM memop_summary ORDER BY 1, 2",
    "SELECT * FROM run_rank ORDER BY 1, 2",
    "SELECT * FROM nvtx_summary ORDER BY 1, 2, 3",
    "SELECT * FROM nvtx_projection_summary ORDER BY 1, 2, 3",
    "SELECT l.run_id, l.id, l.ncu_id, l.pid, l.process, s.value, l.device, l.cc, l.grid_x, l.block_x, l.nvtx, "
    "l.kernel_index, l.kernel_run, l.kernel_link FROM ncu_launch l JOIN string s ON s.id = l.name_id ORDER BY 1, 2",
    "SELECT m.run_id, m.launch_id, n.value, m.value, m.text, m.unit, m.precise FROM ncu_metric m "
    "JOIN string n ON n.id = m.metric_id ORDER BY 1, 2, 3",
    "SELECT run_id, launch_id, section, rule, type, description, speedup_type, speedup FROM ncu_rule "
    "ORDER BY 1, 2, 3, 4, 6",
    "SELECT * FROM ncu_launch_figures ORDER BY 1, 2",
    "SELECT t.run_id, t.global_tid, s.value FROM thread_name t JOIN string s ON s.id = t.name_id ORDER BY 1, 2",
    "SELECT run_id, path, content_hash FROM source_file ORDER BY id",
};

// The shape of every table, index and view: columns, keys, indexes and the views' text.
const std::vector<std::string> kSameShape = {
    "SELECT m.name, p.* FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' ORDER BY 1, 2",
    "SELECT m.name, p.* FROM sqlite_master m, pragma_foreign_key_list(m.name) p WHERE m.type = 'table' "
    "ORDER BY 1, 2, 3",
    "SELECT m.name, p.name, p.\"unique\" FROM sqlite_master m, pragma_index_list(m.name) p WHERE m.type = 'table' "
    "ORDER BY 1, 2",
    "SELECT name, sql FROM sqlite_master WHERE type = 'view' ORDER BY name",
};

// The stores today's kscope makes of the files the fixtures' releases imported, kept for the
// process (every fixture of a kind compares against the same import) and removed at its end.
class FreshImports {
 public:
  FreshImports() : dir_(fs::temp_directory_path() / ("kscope_upgrade_fresh_" + std::to_string(getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~FreshImports() { fs::remove_all(dir_); }
  FreshImports(const FreshImports&) = delete;
  FreshImports& operator=(const FreshImports&) = delete;

  // The store holding the devset's two exports and, with `ncu`, their ncu pages; empty if an
  // import failed (the failure is reported).
  const std::string& Store(bool ncu) {
    auto it = stores_.find(ncu);
    if (it != stores_.end()) return it->second;
    const std::string db = (dir_ / (ncu ? "with_ncu.db" : "without_ncu.db")).string();
    return stores_[ncu] = Import(db, ncu) ? db : std::string();
  }

 private:
  bool Import(const std::string& db, bool ncu) {
    const std::string log = (dir_ / "import.log").string();
    std::vector<std::vector<std::string>> calls{
        {"import", "tests/data/nsys/llama.sqlite", "--label", "llama-4L", "--model", "llama-4L", "--dtype", "bf16",
         "--batch", "2", "--tag", "seed=1", "--tag", "suite=llm"},
        {"import", "tests/data/nsys/tiny_cuda.sqlite", "--label", "tiny", "--tag", "suite=micro"}};
    if (ncu) {
      calls.push_back(
          {"import", "--run", "1", "tests/data/ncu/llama_deep_raw.csv", "tests/data/ncu/llama_deep_details.csv"});
      calls.push_back({"import", "--run", "2", "tests/data/ncu/tiny_cuda_gemm_full_raw.csv",
                       "tests/data/ncu/tiny_cuda_gemm_full_details.csv"});
    }
    for (auto& args : calls) {
      args.insert(args.begin(), {"--db", db});
      const int rc = Kscope(args, log);
      EXPECT_EQ(rc, 0) << ReadFile(log);
      if (rc != 0) return false;
    }
    return true;
  }

  fs::path dir_;
  std::map<bool, std::string> stores_;
};

class StoreUpgrade : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kscope_upgrade_" + GetParam() + "_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    old_ = (dir_ / "old.db").string();
    fresh_ = (dir_ / "fresh.db").string();
    UnpackFixture(GetParam(), old_);
    original_version_ = Rows(old_, "SELECT value FROM kscope_meta WHERE key = 'schema_version'");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Today's kscope imports what the fixture's release imported (make_fixture.sh): once per
  // process for each set of files (with ncu's pages or without), and each test gets a copy.
  void ImportFresh() {
    static FreshImports imports;
    const std::string& store = imports.Store(HasNcu());
    ASSERT_FALSE(store.empty()) << "today's kscope could not import the fixture's files";
    fs::copy_file(store, fresh_, fs::copy_options::overwrite_existing);
  }
  [[nodiscard]] bool HasNcu() const { return GetParam() != "v1"; }

  // What `kscope ARGS` prints on `db`.
  std::string Output(const std::string& db, std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db});
    const std::string log = (dir_ / "out.log").string();
    const int rc = Kscope(args, log);
    return "exit " + std::to_string(rc) + "\n" + ReadFile(log);
  }

  fs::path dir_;
  std::string old_, fresh_, original_version_;
};

TEST_P(StoreUpgrade, OpensUpgradedWithACopyOfTheStoreAsItWas) {
  const std::string out = Output(old_, {"runs"});
  const std::string version = original_version_.substr(0, original_version_.size() - 1);
  if (version == std::to_string(store::kSchemaVersion)) {
    EXPECT_EQ(out.find("upgraded"), std::string::npos) << out;
    return;
  }
  EXPECT_NE(out.find("exit 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("upgraded from schema version " + version + " to " + std::to_string(store::kSchemaVersion)),
            std::string::npos)
      << out;
  const std::string backup = old_ + ".schema" + version + ".bak";
  ASSERT_TRUE(fs::exists(backup)) << out;
  EXPECT_EQ(Rows(backup, "SELECT value FROM kscope_meta WHERE key = 'schema_version'"), original_version_);
  const std::string original = (dir_ / "original.db").string();
  UnpackFixture(GetParam(), original);
  for (const char* q : {"SELECT * FROM run ORDER BY id", "SELECT * FROM source_file ORDER BY id",
                        "SELECT count(*), sum(length(data)) FROM event_chunk", "SELECT name, sql FROM sqlite_master"}) {
    EXPECT_EQ(Rows(backup, q), Rows(original, q)) << q;
  }
  EXPECT_EQ(Rows(old_, "SELECT value FROM kscope_meta WHERE key = 'schema_version'"),
            std::to_string(store::kSchemaVersion) + "\n");
  // The next open finds nothing to do.
  EXPECT_EQ(Output(old_, {"runs"}).find("upgraded"), std::string::npos);
}

TEST_P(StoreUpgrade, HoldsWhatAFreshImportHoldsOnceRederived) {
  ImportFresh();
  ASSERT_NE(Output(old_, {"runs"}).find("exit 0"), std::string::npos);
  for (const std::string& q : kSameShape) EXPECT_EQ(Rows(old_, q), Rows(fresh_, q)) << q;
  const std::string rederived = Output(old_, {"import", "--rederive"});
  EXPECT_NE(rederived.find("exit 0"), std::string::npos) << rederived;
  EXPECT_EQ(rederived.find("still missing"), std::string::npos) << rederived;
  EXPECT_EQ(Rows(old_, "SELECT * FROM run_gap"), "");
  for (const std::string& q : kSameRows) EXPECT_EQ(Rows(old_, q), Rows(fresh_, q)) << q;
  for (int64_t run : {1, 2}) {
    const std::string a = Events(old_, run), b = Events(fresh_, run);
    EXPECT_GT(a.size(), 1000U);
    EXPECT_TRUE(a == b) << "run " << run << ": the events differ from a fresh import's";
  }
}

TEST_P(StoreUpgrade, RecordsWhatOnlyTheSourceFilesHold) {
  ASSERT_NE(Output(old_, {"runs"}).find("exit 0"), std::string::npos);
  const std::string version = original_version_.substr(0, original_version_.size() - 1);
  std::string expected;
  for (int run : {1, 2}) {
    if (std::stoi(version) < 7 || GetParam() == "v7a")
      expected += std::to_string(run) + "|content_hash|" + version + "\n";
    if (std::stoi(version) < 4) expected += std::to_string(run) + "|thread_names|" + version + "\n";
  }
  EXPECT_EQ(Rows(old_, "SELECT run_id, what, since FROM run_gap ORDER BY 1, 2"), expected);
}

TEST_P(StoreUpgrade, StatsAreWhatTheReleasePrinted) {
  int compared = 0;
  for (const auto& e : fs::directory_iterator(kFixtures + GetParam() + "/expected")) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("stats_")) continue;
    const std::string report = name.substr(6, name.rfind("_run") - 6);
    const std::string run = name.substr(name.rfind("_run") + 4, 1);
    const std::string out = Output(old_, {"stats", "--report", report, "--format", "csv", run});
    const std::string printed = out.substr(out.find('\n') + 1);
    EXPECT_NE(out.find("exit 0"), std::string::npos) << name;
    EXPECT_NE(printed.find(ReadFile(e.path().string())), std::string::npos) << name << "\n" << printed;
    ++compared;
  }
  EXPECT_GE(compared, 14);
}

TEST_P(StoreUpgrade, ViewsAreWhatTodaysKscopePrintsForAFreshImport) {
  ImportFresh();
  ASSERT_NE(Output(old_, {"import", "--rederive"}).find("exit 0"), std::string::npos);
  for (const std::string run : {"1", "2"}) {
    EXPECT_EQ(Output(old_, {"kernels", run}), Output(fresh_, {"kernels", run})) << run;
    const std::string a = (dir_ / ("a" + run)).string(), b = (dir_ / ("b" + run)).string();
    EXPECT_NE(Output(old_, {"report", run, "--out", a}).find("exit 0"), std::string::npos);
    EXPECT_NE(Output(fresh_, {"report", run, "--out", b}).find("exit 0"), std::string::npos);
    // The same but for when each was imported.
    auto ja = nlohmann::json::parse(ReadFile(a + "/report.json"), nullptr, false);
    auto jb = nlohmann::json::parse(ReadFile(b + "/report.json"), nullptr, false);
    ASSERT_TRUE(ja.is_object() && jb.is_object());
    EXPECT_NE(ja["run"]["imported_at"], jb["run"]["imported_at"]);
    ja["run"].erase("imported_at");
    jb["run"].erase("imported_at");
    EXPECT_EQ(ja.dump(1), jb.dump(1)) << run;
  }
  EXPECT_EQ(Output(old_, {"atlas"}), Output(fresh_, {"atlas"}));
}

INSTANTIATE_TEST_SUITE_P(Releases, StoreUpgrade, ::testing::Values("v1", "v3", "v6", "v7a", "v7", "v8", "v9"));

// Each schema change comes with a fixture of the version before it (make_fixture.sh at the last
// commit of that version), and each fixture is one the upgrade test above opens.
TEST(StoreFixtures, TheVersionBeforeTodaysHasOne) {
  std::vector<int> versions;
  for (const auto& e : fs::directory_iterator(kFixtures)) {
    if (!e.is_directory()) continue;
    const std::string made_by = ReadFile((e.path() / "MADE_BY").string());
    const auto at = made_by.find("(schema ");
    ASSERT_NE(at, std::string::npos) << e.path();
    versions.push_back(std::stoi(made_by.substr(at + 8)));
  }
  EXPECT_NE(std::find(versions.begin(), versions.end(), store::kSchemaVersion - 1), versions.end())
      << "add tests/data/store_versions/v" << store::kSchemaVersion - 1 << " (make_fixture.sh) and list it above";
  EXPECT_EQ(versions.size(), 7U) << "list every fixture in INSTANTIATE_TEST_SUITE_P above";
}

// Two kscope commands opening one old store at once: one upgrades it, the other waits for the
// lock and finds nothing to do; one copy is kept.
TEST(StoreFixtures, TwoCommandsAtOnceUpgradeOnce) {
  const fs::path dir = fs::temp_directory_path() / ("kscope_two_upgrades_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "old.db").string();
  UnpackFixture("v3", db);
  const fs::path cwd = fs::current_path();
  fs::current_path(KSCOPE_SOURCE_DIR);
  const pid_t a = testing::StartKscope({"--db", db, "runs"}, (dir / "a.log").string());
  const pid_t b = testing::StartKscope({"--db", db, "kernels", "1"}, (dir / "b.log").string());
  EXPECT_EQ(testing::WaitExit(a), 0) << ReadFile((dir / "a.log").string());
  EXPECT_EQ(testing::WaitExit(b), 0) << ReadFile((dir / "b.log").string());
  fs::current_path(cwd);
  const std::string logs = ReadFile((dir / "a.log").string()) + ReadFile((dir / "b.log").string());
  size_t notes = 0;
  for (size_t at = logs.find("upgraded from schema version 3"); at != std::string::npos;
       at = logs.find("upgraded from schema version 3", at + 1)) {
    ++notes;
  }
  EXPECT_EQ(notes, 1U) << logs;
  EXPECT_TRUE(fs::exists(db + ".schema3.bak"));
  EXPECT_FALSE(fs::exists(db + ".schema3.bak.1"));
  fs::remove_all(dir);
}

// A store from a newer kscope is refused with one line and left as it was.
TEST(StoreFixtures, ANewerStoreIsRefused) {
  const fs::path dir = fs::temp_directory_path() / ("kscope_newer_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string db = (dir / "newer.db").string();
  {
    auto s = store::Store::Open(db, sql::OpenMode::kCreate);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->db().Exec("UPDATE kscope_meta SET value = '99' WHERE key = 'schema_version'").ok());
    ASSERT_TRUE(s->db().Exec("PRAGMA wal_checkpoint(TRUNCATE)").ok());
  }
  const std::string before = ReadFile(db);
  const std::string log = (dir / "log").string();
  EXPECT_EQ(Kscope({"--db", db, "runs"}, log), 1);
  EXPECT_EQ(ReadFile(log), "kscope: error: " + db +
                               ": written by a newer kscope (schema version 99; this kscope reads up to " +
                               std::to_string(store::kSchemaVersion) + "); use that kscope, or a newer one\n");
  EXPECT_EQ(ReadFile(db), before);
  fs::remove_all(dir);
}

// An upgrade that fails (here: the old store names a string that is not there, which today's
// foreign-key check refuses) leaves the store byte for byte as it was, and no copy beside it.
TEST(StoreFixtures, AFailedUpgradeLeavesTheStoreAsItWas) {
  const fs::path dir = fs::temp_directory_path() / ("kscope_failed_upgrade_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string db = (dir / "old.db").string();
  UnpackFixture("v3", db);
  {
    auto raw = sql::Db::Open(db, sql::OpenMode::kReadWrite);
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE(raw->Exec("UPDATE ncu_launch SET name_id = 999999999 WHERE id = 0").ok());
  }
  const std::string before = ReadFile(db);
  const std::string log = (dir / "log").string();
  EXPECT_EQ(Kscope({"--db", db, "runs"}, log), 1);
  EXPECT_NE(ReadFile(log).find("cannot upgrade the store from schema version 3: the upgraded store would break a "
                               "reference: a row of ncu_launch names a missing row of string"),
            std::string::npos)
      << ReadFile(log);
  EXPECT_EQ(ReadFile(db), before);
  EXPECT_FALSE(fs::exists(db + ".schema3.bak"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kscope
