// Runs travel between stores (issue 24, item 2): `kscope export` writes each run as a folder that
// `kscope import DIR` brings back, and `kscope merge OTHER.db` copies runs between stores, ids
// given anew. On the devset's Llama run (nsys export with ncu's raw and details pages), the tiny
// CUDA run with its .ncu-rep report and the zoo's gpt2_infer run with kscope profile's report,
// every view (runs, nsys's reports, kernels, report.json and report.md, atlas) is byte for byte
// what the source store gives; a store of an older schema merges; a run the target holds already
// is refused with one line, and a failed merge leaves the target byte for byte as it was.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "import/run_copy.h"
#include "kscope_binary.h"
#include "store/event_streams.h"
#include "test_support.h"
#include "util/sqlite.h"
#include "zoo_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;

const std::vector<std::string> kSummaryReports = {"cuda_gpu_kern_sum",     "cuda_api_sum", "cuda_gpu_mem_time_sum",
                                                  "cuda_gpu_mem_size_sum", "nvtx_sum",     "nvtx_kern_sum",
                                                  "nvtx_gpu_proj_sum"};

class RunTravel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("kscope_travel_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    source_ = (root_ / "source.db").string();
    const std::string tiny_rep = (root_ / "tiny_cuda_gemm_full.ncu-rep").string();
    std::ofstream(tiny_rep, std::ios::binary)
        << testing::Unzstd(std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/tiny_cuda_gemm_full.ncu-rep.zst");
    const std::string ncu = std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/";
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"import", testing::NsysData("llama.sqlite"), "--label", "llama-4L", "--model", "llama-4L", "--dtype",
              "bf16", "--batch", "2", "--tag", "suite=llm"},
             {"import", "--run", "1", ncu + "llama_deep_raw.csv", ncu + "llama_deep_details.csv"},
             {"import", testing::NsysData("tiny_cuda.sqlite"), "--label", "tiny", "--tag", "suite=micro"},
             {"import", "--run", "2", tiny_rep},
             {"import", testing::ZooFile("gpt2_infer", "discovery.sqlite"), "--label", "gpt2", "--tag", "suite=llm"},
             {"import", "--run", "3", testing::ZooFile("gpt2_infer", "default_profile.ncu-rep")}}) {
      ASSERT_EQ(Kscope(source_, args), 0) << Last();
    }
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }

  void SetUp() override {
    dir_ = root_ / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::create_directories(dir_);
  }

  // `kscope --db DB ARGS...`: its exit status; its output in Last().
  static int Kscope(const std::string& db, std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db});
    return testing::RunKscope(args, (root_ / "last.log").string());
  }
  static std::string Last() { return ReadFile((root_ / "last.log").string()); }
  std::string Output(const std::string& db, const std::vector<std::string>& args) {
    const int rc = Kscope(db, args);
    return "exit " + std::to_string(rc) + "\n" + Last();
  }

  // Everything kscope shows of a run: nsys's reports (a trace report too, read from the run's
  // export where the store says it is), kernels as table and JSON, report.json and report.md.
  std::string RunViews(const std::string& db, int64_t run) {
    const std::string r = std::to_string(run);
    std::string out;
    for (const auto& report : kSummaryReports) out += Output(db, {"stats", "--report", report, "--format", "csv", r});
    out += Output(db, {"stats", "--report", "cuda_gpu_trace", "--format", "csv", r});
    out += Output(db, {"kernels", r});
    out += Output(db, {"kernels", r, "--format", "json"});
    const std::string report_dir =
        (dir_ / ("report_" + std::to_string(std::hash<std::string>{}(db)) + "_" + r)).string();
    const std::string made = Output(db, {"report", r, "--out", report_dir});
    out += made.substr(0, made.find('\n'));
    out += ReadFile(report_dir + "/report.json") + ReadFile(report_dir + "/report.md");
    return out;
  }
  // What kscope shows across runs.
  std::string StoreViews(const std::string& db) {
    return Output(db, {"runs"}) + Output(db, {"atlas"}) + Output(db, {"atlas", "--format", "json"});
  }
  // The source store's views: no test writes to it, so the suite asks kscope for them once.
  std::string SourceRunViews(int64_t run) {
    std::string& views = source_run_views_[run];
    if (views.empty()) views = RunViews(source_, run);
    return views;
  }
  std::string SourceStoreViews() {
    if (source_store_views_.empty()) source_store_views_ = StoreViews(source_);
    return source_store_views_;
  }

  void MergeOlder(const std::string& version);

  static fs::path root_;
  static std::string source_;
  static std::map<int64_t, std::string> source_run_views_;
  static std::string source_store_views_;
  fs::path dir_;
};

fs::path RunTravel::root_;
std::string RunTravel::source_;
std::map<int64_t, std::string> RunTravel::source_run_views_;
std::string RunTravel::source_store_views_;

TEST_F(RunTravel, ExportedRunsImportIdentical) {
  const std::string out = (dir_ / "exported").string();
  const std::string exported = Output(source_, {"export", "1", "2", "3", "--out", out});
  ASSERT_NE(exported.find("exit 0"), std::string::npos) << exported;
  for (const char* run : {"1", "2", "3"}) {
    EXPECT_TRUE(fs::is_regular_file(fs::path(out) / run / "manifest.json")) << run;
    EXPECT_TRUE(fs::is_regular_file(fs::path(out) / run / "run.kscope.db")) << run;
  }
  // The source files travelled: the nsys export and the ncu pages and reports.
  EXPECT_NE(exported.find("exported run 1 to " + out + "/1: its rows and 3 source file(s)"), std::string::npos)
      << exported;
  const std::string target = (dir_ / "target.db").string();
  const std::string imported = Output(target, {"import", out});
  ASSERT_NE(imported.find("exit 0"), std::string::npos) << imported;
  EXPECT_NE(imported.find("3 of 3 run directories imported"), std::string::npos) << imported;
  EXPECT_EQ(StoreViews(target), SourceStoreViews());
  for (int64_t run : {1, 2, 3}) {
    const std::string a = SourceRunViews(run), b = RunViews(target, run);
    EXPECT_GT(a.size(), 5000U);
    EXPECT_TRUE(a == b) << "run " << run << " differs after export and import";
  }
  // The trace report reads the export that travelled with the run, not the original.
  EXPECT_EQ(Output(target, {"query", "SELECT count(*) FROM source_file WHERE path LIKE '" + out + "/%'"}),
            Output(source_, {"query", "SELECT count(*) FROM source_file"}));
}

TEST_F(RunTravel, ExportingTwiceIntoOneFolderIsRefused) {
  const std::string out = (dir_ / "exported").string();
  ASSERT_EQ(Kscope(source_, {"export", "2", "--out", out, "--rows-only"}), 0) << Last();
  EXPECT_FALSE(fs::exists(fs::path(out) / "2" / "files"));
  EXPECT_EQ(Kscope(source_, {"export", "2", "--out", out}), 1);
  EXPECT_EQ(Last(), "kscope: error: " + out +
                        "/2: exists already; nothing was exported; export into another "
                        "folder, or remove it first\n");
  // Its rows alone bring the run back.
  const std::string target = (dir_ / "target.db").string();
  ASSERT_EQ(Kscope(target, {"import", out + "/2", "--label", "again", "--tag", "seen=yes"}), 0) << Last();
  EXPECT_EQ(Output(target, {"stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", "1"}),
            Output(source_, {"stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", "2"}));
  // What the command line says wins over what the run said, and adds to its tags.
  EXPECT_EQ(Output(target, {"query", "--format", "csv", "SELECT label, tags FROM v_runs"}),
            "exit 0\nlabel,tags\nagain,\"{\"\"seen\"\":\"\"yes\"\",\"\"suite\"\":\"\"micro\"\"}\"\n");
}

TEST_F(RunTravel, MergeIntoAnEmptyStoreIsIdentical) {
  const std::string target = (dir_ / "target.db").string();
  const std::string merged = Output(target, {"merge", source_});
  ASSERT_NE(merged.find("exit 0"), std::string::npos) << merged;
  EXPECT_NE(merged.find("merged run 3 of " + source_ + " as run 3"), std::string::npos) << merged;
  // The other store was only read: nothing is left beside it.
  EXPECT_FALSE(fs::exists(source_ + "-wal"));
  EXPECT_FALSE(fs::exists(source_ + "-shm"));
  EXPECT_EQ(StoreViews(target), SourceStoreViews());
  // A store given to kscope import is pointed to kscope merge.
  EXPECT_EQ(Output(target, {"import", source_}), "exit 1\nkscope: error: " + source_ +
                                                     ": a kscope store, not a profiler output; copy its runs into "
                                                     "this store with: kscope merge " +
                                                     source_ + "\n");
  for (int64_t run : {1, 2, 3}) EXPECT_TRUE(SourceRunViews(run) == RunViews(target, run)) << run;
}

// Merged after a run of the target's own, the runs get new ids (in the order named): nsys's
// reports are the same, and report.json differs only in the run's id and in the run whose
// timeline its profiled launches are linked to (itself, under its new id).
TEST_F(RunTravel, MergeAfterOtherRunsRemapsIds) {
  const std::string target = (dir_ / "target.db").string();
  ASSERT_EQ(Kscope(target, {"import", testing::ZooFile("decoder_infer", "discovery.sqlite"), "--label", "mine"}), 0)
      << Last();
  const std::string merged = Output(target, {"merge", source_, "--run", "3", "--run", "1"});
  ASSERT_NE(merged.find("exit 0"), std::string::npos) << merged;
  EXPECT_NE(merged.find("merged run 1 of " + source_ + " as run 3"), std::string::npos) << merged;
  EXPECT_NE(merged.find("merged run 3 of " + source_ + " as run 2"), std::string::npos) << merged;
  for (auto [from, to] : std::vector<std::pair<int, int>>{{3, 2}, {1, 3}}) {
    const std::string a = (dir_ / ("a" + std::to_string(from))).string();
    const std::string b = (dir_ / ("b" + std::to_string(to))).string();
    ASSERT_EQ(Kscope(source_, {"report", std::to_string(from), "--out", a}), 0);
    ASSERT_EQ(Kscope(target, {"report", std::to_string(to), "--out", b}), 0);
    auto ja = nlohmann::json::parse(ReadFile(a + "/report.json"), nullptr, false);
    auto jb = nlohmann::json::parse(ReadFile(b + "/report.json"), nullptr, false);
    ASSERT_TRUE(ja.is_object() && jb.is_object());
    EXPECT_EQ(ja["run"]["id"], from);
    EXPECT_EQ(jb["run"]["id"], to);
    EXPECT_EQ(jb["run"]["timeline_run"], to);  // the run whose timeline its launches are linked to: itself
    jb["run"]["id"] = from;
    jb["run"]["timeline_run"] = from;
    EXPECT_EQ(ja.dump(1), jb.dump(1)) << from;
    for (const auto& report : kSummaryReports) {
      EXPECT_EQ(Output(source_, {"stats", "--report", report, "--format", "csv", std::to_string(from)}),
                Output(target, {"stats", "--report", report, "--format", "csv", std::to_string(to)}))
          << report;
    }
  }
  // The target's own run is untouched.
  EXPECT_EQ(Output(target, {"query", "SELECT id, label FROM run ORDER BY id", "--format", "csv"}),
            "exit 0\nid,label\n1,mine\n2,gpt2\n3,llama-4L\n");
}

TEST_F(RunTravel, ADuplicateIsRefusedAndTheTargetLeftAsItWas) {
  const std::string target = (dir_ / "target.db").string();
  ASSERT_EQ(Kscope(target, {"merge", source_, "--run", "2"}), 0) << Last();
  const std::string before = ReadFile(target);
  EXPECT_EQ(Kscope(target, {"merge", source_}), 1);
  const std::string line = Last();
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
  EXPECT_TRUE(line.starts_with("kscope: error: " + source_ + ": run 2 holds " + testing::NsysData("tiny_cuda.sqlite") +
                               ", whose content (xxh3-64:"))
      << line;
  EXPECT_NE(line.find(") run 1 of " + target + " holds already; nothing was copied"), std::string::npos) << line;
  EXPECT_TRUE(ReadFile(target) == before);
  EXPECT_FALSE(fs::exists(target + "-wal"));
  // An exported run imported twice is refused the same way.
  const std::string out = (dir_ / "exported").string();
  ASSERT_EQ(Kscope(source_, {"export", "2", "--out", out}), 0) << Last();
  EXPECT_EQ(Kscope(target, {"import", out}), 1);
  EXPECT_NE(Last().find("run 2 holds"), std::string::npos) << Last();
  EXPECT_TRUE(ReadFile(target) == before);
}

// A source whose rows break midway (a problem row naming a source file it lacks) fails the merge
// after the runs, files and chunks are copied: the target is byte for byte as it was.
TEST_F(RunTravel, AFailedMergeLeavesTheTargetAsItWas) {
  const std::string broken = (dir_ / "broken.db").string();
  fs::copy_file(source_, broken);
  {
    auto db = sql::Db::Open(broken, sql::OpenMode::kReadWrite);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->Exec("PRAGMA foreign_keys=OFF; INSERT INTO import_problem (run_id, source_file_id, location, what) "
                         "VALUES (3, 999, 'x', 'y')")
                    .ok());
  }
  const std::string target = (dir_ / "target.db").string();
  ASSERT_EQ(Kscope(target, {"import", testing::ZooFile("decoder_infer", "discovery.sqlite")}), 0) << Last();
  const std::string before = ReadFile(target);
  EXPECT_EQ(Kscope(target, {"merge", broken}), 1);
  const std::string line = Last();
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
  EXPECT_TRUE(line.starts_with("kscope: error: ")) << line;
  EXPECT_TRUE(ReadFile(target) == before) << line;
  EXPECT_EQ(Output(target, {"query", "SELECT count(*) FROM run", "--format", "csv"}), "exit 0\ncount(*)\n1\n");
}

// A store of an older schema (the v3 and v7 fixtures, as kscope of those releases wrote them)
// merges: its runs show what the same store upgraded in place shows, gaps included.
TEST_F(RunTravel, AnOlderStoreMerges) {
  for (const std::string version : {"3", "7"}) {
    SCOPED_TRACE("v" + version);
    MergeOlder(version);
  }
}

void RunTravel::MergeOlder(const std::string& version) {
  const std::string old_store = (dir_ / ("v" + version + ".db")).string();
  std::ofstream(old_store, std::ios::binary)
      << testing::Unzstd(std::string(KSCOPE_TEST_DATA_DIR) + "/store_versions/v" + version + "/store.db.zst");
  const std::string old_bytes = ReadFile(old_store);
  const std::string target = (dir_ / ("target" + version + ".db")).string();
  const std::string merged = Output(target, {"merge", old_store});
  ASSERT_NE(merged.find("exit 0"), std::string::npos) << merged;
  EXPECT_NE(merged.find("(schema version " + version + ") through an upgraded copy; the file is left as it was"),
            std::string::npos)
      << merged;
  EXPECT_TRUE(ReadFile(old_store) == old_bytes);
  EXPECT_FALSE(fs::exists(old_store + ".schema" + version + ".bak"));
  // The same store upgraded in place, for reference.
  ASSERT_EQ(Kscope(old_store, {"runs"}), 0) << Last();
  EXPECT_EQ(StoreViews(target), StoreViews(old_store));
  for (const std::string run : {"1", "2"}) {
    EXPECT_EQ(Output(target, {"kernels", run, "--format", "json"}),
              Output(old_store, {"kernels", run, "--format", "json"}));
    for (const auto& report : kSummaryReports) {
      EXPECT_EQ(Output(target, {"stats", "--report", report, "--format", "csv", run}),
                Output(old_store, {"stats", "--report", report, "--format", "csv", run}))
          << report;
    }
  }
  EXPECT_EQ(Output(target, {"query", "SELECT run_id, what FROM run_gap ORDER BY 1, 2", "--format", "csv"}),
            Output(old_store, {"query", "SELECT run_id, what FROM run_gap ORDER BY 1, 2", "--format", "csv"}));
}

// A user who may not write the store or its folder (run as root, the user nobody) exports a run:
// the store's file is unchanged, nothing is left beside it, and the run comes back identical.
TEST_F(RunTravel, AReaderWhoMayNotWriteTheStoreExports) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root, to run kscope as the user nobody";
  const fs::path shared = dir_ / "shared";
  fs::create_directories(shared);
  const std::string db = (shared / "store.db").string();
  fs::copy_file(source_, db);
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  fs::permissions(out, fs::perms::all);
  const fs::path scratch = dir_ / "nobody_tmp";  // the suite's TMPDIR is root's alone
  fs::create_directories(scratch);
  fs::permissions(scratch, fs::perms::all);
  const std::string before = ReadFile(db);
  const pid_t pid = fork();
  if (pid == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(126);
    setenv("TMPDIR", scratch.c_str(), 1);
    std::vector<std::string> args = {KSCOPE_BINARY, "--db", db, "export", "2", "--out", out.string()};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  const int rc = testing::WaitExit(pid);
  if (rc == 126 || rc == 127) GTEST_SKIP() << "the user nobody cannot run " << KSCOPE_BINARY;
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(ReadFile(db) == before);
  EXPECT_FALSE(fs::exists(db + "-wal"));
  EXPECT_FALSE(fs::exists(db + "-shm"));
  const std::string target = (dir_ / "target.db").string();
  ASSERT_EQ(Kscope(target, {"import", (out / "2").string()}), 0) << Last();
  EXPECT_EQ(Output(target, {"stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", "1"}),
            Output(source_, {"stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", "2"}));
}

// The copy maps the string ids inside the event streams: every column documented as a string id
// is one it maps, and no other.
TEST(RunCopy, MapsEveryStringColumnOfTheEventStreams) {
  int strings = 0;
  for (const store::StreamSpec* spec : store::kAllStreams) {
    for (const auto& col : spec->columns) {
      EXPECT_EQ(import::IsStringColumn(spec->name, col.name), col.doc.starts_with("string id"))
          << spec->name << "." << col.name;
      strings += col.doc.starts_with("string id") ? 1 : 0;
    }
  }
  EXPECT_EQ(strings, 8);
}

}  // namespace
}  // namespace kscope
