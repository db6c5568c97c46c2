// Input made to hurt: a trace whose CUDA calls and kernels share one correlation id, report
// folders planted by another user, SQL functions that hand out pointers. Each must be refused
// or bounded, never followed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "import/import_files.h"
#include "import/shared_correlations.h"
#include "kineto_support.h"
#include "kscope_binary.h"
#include "report/query_table.h"
#include "robustness/bad_input_fixture.h"
#include "store/store.h"
#include "test_support.h"
#include "util/temp_dir.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KSCOPE_HEAP_HOOKS 1
#include <sanitizer/allocator_interface.h>
#endif
#endif

extern char** environ;

namespace kscope {
namespace {

namespace fs = std::filesystem;

// The heap's peak while a piece of code runs: ASan's allocation hooks count every thread's
// allocations (the import reads with several).
std::atomic<int64_t> g_heap{0}, g_peak{0};
#ifdef KSCOPE_HEAP_HOOKS
void OnMalloc(const volatile void* /*p*/, size_t size) {
  const int64_t now = g_heap += static_cast<int64_t>(size);
  int64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}
void OnFree(const volatile void* p) {
  g_heap -= static_cast<int64_t>(__sanitizer_get_allocated_size(const_cast<const void*>(p)));
}
#endif

// The trace the issue describes: decoder_infer's metadata, then one cudaLaunchKernel and the
// kernel it launched (same args.correlation), each repeated `n` times.
std::string SharedCorrelationTrace(const TempDir& dir, int n) {
  const nlohmann::json t = nlohmann::json::parse(testing::ReadGzip(testing::KinetoData("decoder_infer.json.gz")));
  nlohmann::json out = t;
  nlohmann::json events = nlohmann::json::array();
  for (const auto& e : t.at("traceEvents")) {
    if (e.value("ph", "") == "M") events.push_back(e);
  }
  const nlohmann::json* call = nullptr;
  for (const auto& e : t.at("traceEvents")) {
    if (e.value("cat", "") == "cuda_runtime" && e.value("name", "") == "cudaLaunchKernel") {
      call = &e;
      break;
    }
  }
  EXPECT_NE(call, nullptr);
  const auto corr = call->at("args").at("correlation");
  const nlohmann::json* kernel = nullptr;
  for (const auto& e : t.at("traceEvents")) {
    if (e.value("cat", "") == "kernel" && e.at("args").at("correlation") == corr) kernel = &e;
  }
  EXPECT_NE(kernel, nullptr);
  for (int i = 0; i < n; ++i) events.push_back(*call);
  for (int i = 0; i < n; ++i) events.push_back(*kernel);
  out["traceEvents"] = events;
  const std::string path = (fs::path(dir.path()) / ("shared" + std::to_string(n) + ".json")).string();
  testing::WriteBytes(path, out.dump());
  return path;
}

TEST(HostileInput, SharedCorrelationIdsLinkInLinearMemoryAndTime) {
  auto dir = TempDir::Make("kscope_hostile");
  ASSERT_TRUE(dir.ok());
  const std::string trace = SharedCorrelationTrace(*dir, 8000);
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
#ifdef KSCOPE_HEAP_HOOKS
  __sanitizer_install_malloc_and_free_hooks(OnMalloc, OnFree);
#endif
  g_heap = 0;
  g_peak = 0;
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  auto out = import::ImportFiles(*s, {trace}, {});
  getrusage(RUSAGE_SELF, &after);
#ifdef KSCOPE_HEAP_HOOKS
  __sanitizer_install_malloc_and_free_hooks(nullptr, nullptr);
  // 8,000 x 8,000 links would be 64 million (about 800 MB); one call's 8,000 are a few.
  EXPECT_LT(g_peak.load(), int64_t{100} << 20) << "peak heap of the import, bytes";
  EXPECT_GT(g_peak.load(), 0);
  std::cout << "peak heap of the import: " << g_peak.load() / 1024 << " KiB\n";
#endif
  auto cpu = [](const rusage& r) {
    return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
           static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
  };
  EXPECT_LT(cpu(after) - cpu(before), 20.0) << "CPU seconds of the import (sanitizers on)";
  ASSERT_TRUE(out.ok()) << out.error().Line();
  EXPECT_EQ(out->front().shared_correlations, 7999);
  auto q = s->db().Prepare("SELECT location, what FROM import_problem WHERE what LIKE '%correlation id%'");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(q->Step());
  EXPECT_EQ(q->Text(0), "CUDA calls");
  EXPECT_EQ(q->Text(1),
            "7999 CUDA calls repeat an earlier call's correlation id in their process; their GPU operations are "
            "linked to the first call alone");
  EXPECT_FALSE(q->Step());
  // Every kernel is kept, and linked to its one call: none is counted as launched by nothing.
  auto k = s->db().Prepare("SELECT sum(n) FROM kernel_summary WHERE run_id = ?1");
  ASSERT_TRUE(k.ok());
  k->Bind(1, out->front().run_id);
  ASSERT_TRUE(k->Step());
  EXPECT_EQ(k->Int(0), 8000);
  auto unlaunched = s->db().Prepare("SELECT count(*) FROM import_problem WHERE what LIKE 'GPU operation without%'");
  ASSERT_TRUE(unlaunched.ok());
  ASSERT_TRUE(unlaunched->Step());
  EXPECT_EQ(unlaunched->Int(0), 0);
}

using testing::BadInput;

TEST_F(BadInput, SharedCorrelationIdsPastTheBoundAreRefused) {
  auto dir = TempDir::Make("kscope_hostile");
  ASSERT_TRUE(dir.ok());
  const int n = static_cast<int>(import::kMaxSharedCorrelations) + 2;
  const std::string trace = SharedCorrelationTrace(*dir, n);
  ExpectRejected(trace, "kscope: error: " + trace + ": " + std::to_string(n - 1) +
                            " CUDA calls repeat an earlier call's correlation id (more than 10000: CUPTI gives every "
                            "call its own, so the file is corrupt or several captures were merged into it); export "
                            "the trace again from one profiler session: prof.export_chrome_trace(...)");
}

// kscope run in `cwd` with `args`, its stdout and stderr into `log`, under `mask`; its exit status.
int KscopeIn(const fs::path& cwd, std::vector<std::string> args, const std::string& log, mode_t mask = 022) {
  args.insert(args.begin(), KSCOPE_BINARY);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  const mode_t old = umask(mask);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  umask(old);
  posix_spawn_file_actions_destroy(&actions);
  return testing::WaitExit(rc == 0 ? pid : -1);
}

class DefaultReportFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Make("kscope_report_dir");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(*dir));
    db_ = (fs::path(dir_->path()) / "k.db").string();
    ASSERT_EQ(KscopeIn(dir_->path(), {"--db", db_, "import", testing::NsysData("tiny_cuda.sqlite")}, Log()), 0)
        << testing::ReadFile(Log());
  }
  [[nodiscard]] std::string Log() const { return (fs::path(dir_->path()) / "log").string(); }
  [[nodiscard]] fs::path Folder() const { return fs::path(dir_->path()) / "kscope-report-1"; }
  // One line on stderr and stdout together, the exit status 1, no report file anywhere.
  void ExpectRefused(const std::string& line, const fs::path& elsewhere) {
    EXPECT_EQ(KscopeIn(dir_->path(), {"--db", db_, "report", "1"}, Log()), 1);
    EXPECT_EQ(testing::ReadFile(Log()), line + "\n");
    EXPECT_FALSE(fs::exists(elsewhere / "report.html"));
  }
  std::unique_ptr<TempDir> dir_;
  std::string db_;
};

TEST_F(DefaultReportFolder, ASymbolicLinkIsNotFollowed) {
  const fs::path target = fs::path(dir_->path()) / "theirs";
  fs::create_directory(target);
  fs::create_directory_symlink(target, Folder());
  ExpectRefused(
      "kscope: error: kscope-report-1: is a symbolic link; kscope writes its own folders only where no "
      "link leads it elsewhere (another user may have planted it); remove the link if it is yours, or "
      "pass --out DIR",
      target);
}

TEST_F(DefaultReportFolder, AnotherUsersFolderIsRefused) {
  fs::create_directory(Folder());
  fs::permissions(Folder(), fs::perms::all);
  if (chown(Folder().c_str(), 4242, 4242) != 0) GTEST_SKIP() << "giving a folder to another user needs root";
  ExpectRefused(
      "kscope: error: kscope-report-1: is a folder of another user (uid 4242), who could read or replace "
      "what kscope writes there; pass --out DIR",
      Folder());
}

TEST_F(DefaultReportFolder, AFileOfThatNameIsRefused) {
  testing::WriteBytes(Folder().string(), "not a folder");
  EXPECT_EQ(KscopeIn(dir_->path(), {"--db", db_, "report", "1"}, Log()), 1);
  EXPECT_EQ(testing::ReadFile(Log()), "kscope: error: kscope-report-1: exists and is not a folder; pass --out DIR\n");
}

TEST_F(DefaultReportFolder, IsMadeWithTheUsersUmask) {
  ASSERT_EQ(KscopeIn(dir_->path(), {"--db", db_, "report", "1", "--quiet"}, Log(), 077), 0) << testing::ReadFile(Log());
  struct stat st {};
  ASSERT_EQ(lstat(Folder().c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700U);
  for (const char* name : {"report.json", "report.md", "report.html"}) {
    ASSERT_EQ(stat((Folder() / name).c_str(), &st), 0) << name;
    EXPECT_EQ(st.st_mode & 0777, 0600U) << name;
  }
  // A folder of the user's own, there already, is written into.
  ASSERT_EQ(KscopeIn(dir_->path(), {"--db", db_, "report", "1", "--quiet"}, Log(), 022), 0) << testing::ReadFile(Log());
  ASSERT_EQ(stat((Folder() / "report.html").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644U);
}

class QueryFunctions : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
    ASSERT_TRUE(s.ok());
    store_ = std::make_unique<store::Store>(std::move(*s));
  }
  // What kscope query answers to `sql`: the error line, or "ok".
  std::string Ask(const std::string& sql) {
    auto t = report::QueryTable(store_->db(), sql);
    return t.ok() ? "ok" : t.error().Line();
  }
  std::unique_ptr<store::Store> store_;
};

std::string Denied(const std::string& name) {
  return "kscope: error: :memory:: query: kscope query does not run the SQL function " + name +
         "(); use SQLite's core, date, math, JSON, aggregate and window functions (docs/query.md)";
}

TEST_F(QueryFunctions, PointerFileAndCodeFunctionsAreDenied) {
  // The one-argument fts3_tokenizer gives a code address; the two-argument one registers any
  // address as a tokenizer.
  EXPECT_EQ(Ask("SELECT hex(fts3_tokenizer('simple'))"), Denied("fts3_tokenizer"));
  EXPECT_EQ(Ask("SELECT fts3_tokenizer('x', x'4141414141414141')"), Denied("fts3_tokenizer"));
  EXPECT_EQ(Ask("SELECT FTS3_Tokenizer('simple')"), Denied("fts3_tokenizer"));  // named as SQLite names it
  EXPECT_EQ(Ask("SELECT load_extension('/tmp/x.so')"), Denied("load_extension"));
  EXPECT_EQ(Ask("SELECT length(randomblob(1000000000))"), Denied("randomblob"));
  EXPECT_EQ(Ask("SELECT length(zeroblob(1000000000))"), Denied("zeroblob"));
  EXPECT_EQ(Ask("SELECT count(*) FROM v_runs WHERE fts3_tokenizer('simple') IS NOT NULL"), Denied("fts3_tokenizer"));
  // What analyses use still runs.
  EXPECT_EQ(Ask("SELECT printf('%.1f', avg(total_ns) / 1e6), round(max(1.5, 2)), coalesce(NULL, 1), "
                "json_extract('{\"a\": 1}', '$.a'), sqrt(4), strftime('%Y', 'now'), lower('A') FROM v_kernels"),
            "ok");
  EXPECT_EQ(Ask("SELECT kernel_name, row_number() OVER (ORDER BY total_ns DESC) FROM v_kernels"), "ok");
}

// Every function the linked SQLite offers is either on the allow-list, and runs, or denied by
// name; none fails some other way first.
TEST_F(QueryFunctions, EveryFunctionOfTheLibraryIsAllowedOrDenied) {
  auto all = store_->db().Prepare("SELECT DISTINCT name, narg FROM pragma_function_list ORDER BY name");
  ASSERT_TRUE(all.ok());
  std::set<std::string> denied, seen;
  while (all->Step()) {
    const std::string name = all->Text(0);
    if (!seen.insert(name + "/" + std::to_string(all->Int(1))).second) continue;
    if (name == "->" || name == "->>") continue;  // operators, not called by name
    const int64_t narg = all->Int(1);
    std::string args;
    for (int64_t i = 0; i < std::max<int64_t>(narg, 1); ++i) args += i == 0 ? "'1'" : ", '1'";
    if (narg == 0) args.clear();
    const std::string answer = Ask("SELECT " + name + "(" + args + ")");
    if (report::QueryFunctionAllowed(name)) {
      EXPECT_NE(answer, Denied(name)) << name;
    } else {
      EXPECT_EQ(answer, Denied(name)) << name << "/" << narg;
      denied.insert(name);
    }
  }
  EXPECT_TRUE(denied.count("fts3_tokenizer")) << "the linked SQLite has no fts3_tokenizer: the test saw none denied";
}

}  // namespace
}  // namespace kscope
