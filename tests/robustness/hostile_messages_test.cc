// What a broken producer or an attacker meets in the small: each bad input is told the true
// diagnosis in one line, a failed first import leaves no store behind, every wrongly typed
// field of a run directory's manifest is named, scratch that a killed kscope left is removed
// by the next, and one query value is bounded.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "capture/run_dir_import.h"
#include "import/import_files.h"
#include "in_child.h"
#include "kineto_support.h"
#include "kscope_binary.h"
#include "recorded_runner.h"
#include "report/query_table.h"
#include "robustness/bad_input_fixture.h"
#include "store/store.h"
#include "test_support.h"
#include "util/atomic_file.h"
#include "util/temp_dir.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::BadInput;
using testing::ReadFile;
using testing::WriteBytes;

class HostileMessages : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Make("kscope_messages");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(*dir));
  }
  [[nodiscard]] std::string Path(const std::string& name) const { return (fs::path(dir_->path()) / name).string(); }
  // kscope's exit status with `args`; what it printed in `out`.
  int Kscope(const std::vector<std::string>& args, std::string& out) {
    const std::string log = Path("log");
    const int rc = testing::RunKscope(args, log);
    out = ReadFile(log);
    return rc;
  }
  std::unique_ptr<TempDir> dir_;
};

TEST_F(HostileMessages, AFailedFirstImportLeavesNoStore) {
  const std::string db = Path("new.db");
  WriteBytes(Path("empty.json"), "{\"traceEvents\": []}");
  std::string out;
  EXPECT_EQ(Kscope({"--db", db, "import", Path("empty.json")}, out), 1);
  EXPECT_EQ(out.find(" s into "), std::string::npos) << out;
  fs::create_directory(Path("not_a_run"));
  EXPECT_EQ(Kscope({"--db", db, "import", Path("not_a_run")}, out), 1);
  EXPECT_EQ(out.find(" s into "), std::string::npos) << out;
  for (const char* suffix : {"", "-wal", "-shm"}) EXPECT_FALSE(fs::exists(db + suffix)) << suffix;
  // A store that held runs before stays, whatever the import.
  ASSERT_EQ(Kscope({"--db", db, "import", testing::NsysData("tiny_cuda.sqlite")}, out), 0) << out;
  EXPECT_EQ(Kscope({"--db", db, "import", Path("empty.json")}, out), 1);
  EXPECT_TRUE(fs::exists(db));
}

// A new store in a folder the user may not write is told so, not "no such file".
TEST_F(HostileMessages, AFolderYouCannotWriteIsSaid) {
  const fs::path folder = Path("locked");
  fs::create_directory(folder);
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(dir_->path(), fs::perms::all);  // nobody reaches the folder (TempDir makes it 0700)
  const std::string db = (folder / "k.db").string();
  const std::string line = testing::InChild(
      [&] {
        auto s = store::Store::Open(db, sql::OpenMode::kCreate);
        return s.ok() ? std::string("opened") : s.error().Line();
      },
      0, /*as_nobody=*/true);
  if (line == "opened") GTEST_SKIP() << "this user writes everywhere (root without setuid)";
  EXPECT_EQ(line, "kscope: error: " + db + ": cannot create the database: you may not write in its folder " +
                      folder.string() + "; pass --db with a path in a folder you can write");
  EXPECT_EQ(ReadFile(db), "");
}

TEST_F(HostileMessages, MergeOfAFolderSaysWhatAFolderIs) {
  std::string out;
  fs::create_directory(Path("runs"));
  EXPECT_EQ(Kscope({"--db", Path("k.db"), "merge", Path("runs")}, out), 1);
  EXPECT_EQ(out, "kscope: error: " + Path("runs") +
                     ": a folder, not a kscope store; to merge a store, name its .db file (its --db or $KSCOPE_DB); "
                     "to import run directories or exported runs: kscope import " +
                     Path("runs") + "\n");
}

// `kscope profile python3 app.py --steps 3`: the workload without `--` before it is told so,
// with the command to write, and nothing runs.
TEST_F(HostileMessages, AWorkloadWithoutTheDashesIsToldWhereTheyGo) {
  std::string out;
  EXPECT_EQ(Kscope({"--db", Path("k.db"), "profile", "ncu.mode=deep", "python3", "app.py"}, out), 1);
  EXPECT_EQ(out,
            "kscope: error: 'python3' is not KEY=VALUE: the workload must follow `--`; write: kscope profile "
            "ncu.mode=deep -- python3 app.py\n");
  EXPECT_FALSE(fs::exists(Path("k.db")));
}

// A run directory's manifest cut short, or holding NaN (which JSON has not), is told so.
TEST_F(HostileMessages, ACutOrNanManifestIsToldSo) {
  const fs::path run = Path("7");
  fs::create_directory(run);
  const std::string manifest = (run / "manifest.json").string();
  const std::string fix = "; import the run's files themselves: kscope import FILE...\n";
  std::string out;
  WriteBytes(manifest, "{\"kscope_run\": 7, \"steps\": [");
  EXPECT_EQ(Kscope({"--db", Path("k.db"), "import", run.string()}, out), 1);
  EXPECT_EQ(out, "kscope: error: " + manifest + ": the JSON ends early, at byte 28 (the file is cut short)" + fix +
                     "0 of 1 run directories imported\n");
  WriteBytes(manifest, "{\"kscope_run\": 7, \"seconds\": NaN, \"steps\": []}");
  EXPECT_EQ(Kscope({"--db", Path("k.db"), "import", run.string()}, out), 1);
  EXPECT_EQ(out, "kscope: error: " + manifest +
                     ": not valid JSON at byte 29 (near \"run\": 7, \"seconds\": NaN, \"steps\": []}\"); JSON has no "
                     "NaN or Infinity" +
                     fix + "0 of 1 run directories imported\n");
}

// Every field of a real manifest (a 2-rank job's node, recorded on the GPU machine), given a
// value of another type, is named in the refusal: none is read as absent.
TEST_F(HostileMessages, EveryWronglyTypedManifestFieldIsNamed) {
  const std::string real =
      testing::Unzstd(std::string(KSCOPE_TEST_DATA_DIR) + "/jobs/tp_infer_2rank/node0/1/manifest.json.zst");
  const json m = json::parse(real);
  const fs::path run = Path("1");
  fs::create_directory(run);
  const std::string manifest = (run / "manifest.json").string();
  // The leaves and objects kscope writes, by JSON pointer; each made a value of another type.
  const json flat = m.flatten();
  std::set<std::string> pointers;
  for (const auto& [pointer, value] : flat.items()) {
    std::string p = pointer;
    while (!p.empty()) {
      pointers.insert(p);
      p = p.substr(0, p.rfind('/'));
    }
  }
  int named = 0, checked = 0;
  for (const std::string& pointer : pointers) {
    const json::json_pointer at(pointer);
    const json& was = m.at(at);
    if (was.is_null()) continue;
    // Objects and lists keyed by what the user ran (environment variables, tags, sweep
    // points, ncu's import note) hold any value.
    if (pointer.starts_with("/steps/0/env") || pointer.starts_with("/run/tags") ||
        pointer.starts_with("/ncu_settings/import") || pointer.starts_with("/selection/communication") ||
        pointer.starts_with("/sweep_point") || pointer.starts_with("/environment/")) {
      continue;
    }
    // An element of a list, replaced whole, is named by its list.
    const json::json_pointer parent = at.parent_pointer();
    const bool in_scalar_list = !at.empty() && m.at(parent).is_array();
    json edited = m;
    edited[at] = was.is_string() ? json(42) : json("a string");
    WriteBytes(manifest, edited.dump(2));
    ++checked;
    auto read = capture::ReadRunDirManifest(run);  // what kscope import DIR reads first
    ASSERT_FALSE(read.ok()) << pointer;
    const std::string out = read.error().Line();
    // "steps[0].name is a number, and kscope profile writes a string there"
    std::string shown = (in_scalar_list ? parent.to_string() : pointer).substr(1);
    for (size_t slash; (slash = shown.find('/')) != std::string::npos;) shown.replace(slash, 1, ".");
    for (size_t i = 0; i + 2 < shown.size(); ++i) {  // ".0." -> "[0]."
      if (shown[i] == '.' && std::isdigit(static_cast<unsigned char>(shown[i + 1]))) {
        const size_t end = shown.find_first_not_of("0123456789", i + 1);
        shown = shown.substr(0, i) + "[" + shown.substr(i + 1, end - i - 1) + "]" +
                (end == std::string::npos ? "" : shown.substr(end));
      }
    }
    const bool says = out.find(manifest + ": " + shown + " is ") != std::string::npos;
    EXPECT_TRUE(says) << pointer << ": " << out;
    named += says ? 1 : 0;
  }
  EXPECT_GT(checked, 100);
  EXPECT_EQ(named, checked);
}

// PyTorch profiler traces whose ts and dur are strings: the true diagnosis, not "no kernel".
TEST_F(BadInput, KinetoTimesAsStringsAreNamed) {
  json t = json::parse(testing::ReadGzip(testing::KinetoData("decoder_infer.json.gz")));
  int64_t kernels = 0;
  for (auto& e : t.at("traceEvents")) {
    if (e.contains("ts")) e["ts"] = e["ts"].dump();
    if (e.contains("dur")) e["dur"] = e["dur"].dump();
    kernels += e.value("cat", "") == "kernel" ? 1 : 0;
  }
  const std::string p = Path("strings.json");
  WriteBytes(p, t.dump());
  // Where the first kernel event's object ends (string-aware: kernel names hold braces).
  const std::string text = ReadFile(p);
  size_t at = text.rfind("{\"args\"", text.find("\"cat\":\"kernel\""));
  int depth = 0;
  bool in_string = false;
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (in_string) {
      if (c == '\\') ++at;
      if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      break;
    }
  }
  const size_t end = at;  // kscope names the byte of its closing brace
  ExpectRejected(p, "kscope: error: " + p + ": none of its " + std::to_string(kernels) +
                        " kernel events could be read: ts or dur is missing, not a number, or dur is negative (the "
                        "first, ending at byte " +
                        std::to_string(end) +
                        "); write ts and dur as JSON numbers and pid and tid as the profiler does (torch.profiler's "
                        "export_chrome_trace)");
}

// A kernel whose args is a list, not an object: kept, and its problem row says what it lacks.
TEST_F(BadInput, KinetoKernelWithAListForArgsSaysWhatItLacks) {
  json t = testing::ReadTraceJson("decoder_infer.json.gz");
  int64_t start_ns = -1;
  for (auto& e : t.at("traceEvents")) {
    if (e.value("cat", "") != "kernel") continue;
    e["args"] = json::array({1, 2});
    start_ns = testing::TsNs(e);
    break;
  }
  ASSERT_GE(start_ns, 0);
  const std::string p = Path("list_args.json");
  WriteBytes(p, testing::TraceText(t));
  auto s = store::Store::Open(db_, sql::OpenMode::kReadWrite);
  ASSERT_TRUE(s.ok());
  auto out = import::ImportFiles(*s, {p}, {});
  ASSERT_TRUE(out.ok()) << out.error().Line();
  const std::string problems = Problems(*s, out->front().run_id);
  EXPECT_NE(problems.find("kernel starting at " + std::to_string(start_ns) +
                          " ns | GPU operation without a correlation id, so without its launching CUDA call (kept) | "
                          "args.correlation missing or not a number"),
            std::string::npos)
      << problems;
  EXPECT_EQ(problems.find("-9223372036854775808"), std::string::npos) << problems;
}

// A dead process's scratch, older than this one: removed by the next scratch of its kind.
TEST_F(HostileMessages, ScratchOfAKilledKscopeIsRemovedByTheNext) {
  const pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  const fs::path folder = Path("out");
  fs::create_directory(folder);
  auto made = [&](const std::string& name, bool old) {
    const fs::path p = folder / name;
    fs::create_directory(p);
    WriteBytes((p / "part").string(), std::string(1000, 'x'));
    if (old) {
      const timespec times[2] = {{1, 0}, {1, 0}};
      utimensat(AT_FDCWD, p.c_str(), times, AT_SYMLINK_NOFOLLOW);
    }
    return p;
  };
  const std::string d = std::to_string(dead), alive = std::to_string(getppid());
  const fs::path stale_dir = made("kscope-import-" + d + "-abcdef", true);
  const fs::path stale_file = made(".report.json.kscope-" + d + "-abcdef", true);
  const fs::path running = made("kscope-import-" + alive + "-abcdef", true);  // its process lives
  const fs::path recent = made("kscope-import-" + d + "-ghijkl", false);      // younger than this process
  const fs::path other = made("kscope-export-" + d + "-abcdef", true);        // another kind: its own maker cleans it
  auto scratch = TempDir::MakeIn(folder.string(), "kscope-import-");
  ASSERT_TRUE(scratch.ok());
  EXPECT_FALSE(fs::exists(stale_dir));
  EXPECT_TRUE(fs::exists(stale_file));
  ASSERT_TRUE(WriteFileAtomically(folder / "report.json", "{}").ok());
  EXPECT_FALSE(fs::exists(stale_file));
  EXPECT_TRUE(fs::exists(running));
  EXPECT_TRUE(fs::exists(recent));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_EQ(fs::path(scratch->path()).filename().string().rfind("kscope-import-" + std::to_string(getpid()) + "-", 0),
            0U);
}

TEST(QueryBounds, OneValueOfTheResultIsBounded) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  auto t = report::QueryTable(
      s->db(),
      "SELECT group_concat(printf('%.*c', 1000000, 'x')) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
      "SELECT i + 1 FROM n WHERE i < 100) SELECT i FROM n)");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().Line(),
            "kscope: error: :memory:: query: a value of the result is larger than 64 MiB, kscope query's bound for one "
            "value; select less per row (substr(), a narrower group_concat)");
  EXPECT_TRUE(report::QueryTable(s->db(), "SELECT length(printf('%.*c', 1000000, 'x'))").ok());
}

}  // namespace
}  // namespace kscope
