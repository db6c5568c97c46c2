// kscope import DIR on run directories that kscope profile wrote, replayed from recorded real
// outputs (profile_replay_fixture.h): each directory is imported as the run it was profiled as,
// a directory missing what its manifest promises is refused with one line, and an interrupted
// import leaves no scratch copies behind.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "capture/run_dir.h"
#include "capture/run_dir_import.h"
#include "kscope_binary.h"
#include "profile_replay_fixture.h"
#include "report/kernel_reports.h"
#include "report/table.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

class RunDirReplay : public testing::ProfileReplay {};

import::ImportOptions KnownContentRefused(){import::ImportOptions o;
o.refuse_known_content = true;
return o;
}  // namespace

// The run as kscope kernels prints it, as CSV.
std::string KernelsCsv(store::Store& store, int64_t run) {
  auto table = report::KernelsTable(store, run, {});
  EXPECT_TRUE(table.ok()) << table.error().Line();
  std::ostringstream out;
  if (table.ok()) report::WriteCsv(*table, out);
  return out.str();
}

// Run directories made on one machine, imported into another store (kscope import DIR):
// each is a run equal to the run as profiled. The first directory was compressed by
// retention; the second is a targeted run made with --discovery 1, whose launches link to
// the first's kernels in the new store too.
TEST_F(RunDirReplay, RunDirectoriesImportedElsewhereEqualTheRuns) {
  config_.profile.keep_runs = 1;
  auto first = Profile();
  ASSERT_TRUE(first.ok() && first->complete);
  auto second = Profile(first->run_id);
  ASSERT_TRUE(second.ok() && second->complete) << (second.ok() && second->error ? second->error->Line() : "");
  ASSERT_TRUE(fs::exists(dir_ / "runs" / "1" / "manifest.json.zst"));

  auto other = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(other->CreateRun({}).ok());  // the ids differ there: run 1 is taken
  auto dirs = capture::FindRunDirs(dir_ / "runs");
  ASSERT_TRUE(dirs.ok()) << dirs.error().Line();
  ASSERT_EQ(dirs->size(), 2U);
  std::map<int64_t, int64_t> runs;
  store::Manifest user;
  user.tags["site"] = "lab";
  std::vector<capture::RunDirOutcome> done;
  for (const auto& d : *dirs) {
    auto r = capture::ImportRunDir(*other, d, user, {}, runs);
    ASSERT_TRUE(r.ok()) << r.error().Line();
    done.push_back(*r);
  }
  EXPECT_EQ(runs, (std::map<int64_t, int64_t>{{1, 2}, {2, 3}}));
  EXPECT_EQ(done[0].files, 3);  // the discovery export, the raw and details pages
  EXPECT_EQ(done[1].files, 2);
  EXPECT_EQ(done[0].linked, 168);
  EXPECT_EQ(done[1].linked, 168);
  EXPECT_EQ(done[1].notes, std::vector<std::string>{});
  for (auto [here, there] : {std::pair{first->run_id, 2}, {second->run_id, 3}}) {
    EXPECT_EQ(KernelsCsv(*other, there), KernelsCsv(*store_, here));
    auto a = store_->GetRun(here);
    auto b = other->GetRun(there);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(b->status, a->status);
    EXPECT_EQ(b->manifest.label, "llama-quick");
    // From the manifest's nvidia-smi query: the targeted run has it too, though it has no export.
    EXPECT_EQ(b->manifest.gpu, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(b->manifest.driver, "580.159.04");
    EXPECT_EQ(b->manifest.command, a->manifest.command);
    EXPECT_EQ(b->manifest.nsys_tool_version, a->manifest.nsys_tool_version);
    EXPECT_EQ(b->manifest.nsys_export_version, a->manifest.nsys_export_version);
    EXPECT_EQ(b->manifest.ncu_version, a->manifest.ncu_version);
    EXPECT_EQ(b->manifest.tags, (std::map<std::string, std::string>{{"site", "lab"}}));
    EXPECT_EQ(b->kernels, a->kernels);
    auto capture = nlohmann::json::parse(*other->RunCapture(there));
    EXPECT_EQ(capture["imported_from"]["run"], here);
    EXPECT_EQ(capture["selection"], nlohmann::json::parse(*store_->RunCapture(here))["selection"]);
  }
  EXPECT_EQ(*other->StreamRows(2, "kernel"), 3404);
  auto q = other->db().Prepare(
      "SELECT count(*) FROM ncu_launch WHERE run_id = 3 AND kernel_link = 'planned' AND kernel_run = 2");
  ASSERT_TRUE(q.ok() && q->Step());
  EXPECT_EQ(q->Int(0), 168);
  // Every profiled launch has its figures (ncu_launch_figures), in the store kscope profile
  // wrote and in the one its directories were imported into: launches, with figures, with SM %.
  for (store::Store* s : {store_.get(), &*other}) {
    auto f = s->db().Prepare(
        "SELECT count(*), count(f.launch_id), count(f.sm_pct) FROM ncu_launch l "
        "LEFT JOIN ncu_launch_figures f ON f.run_id = l.run_id AND f.launch_id = l.id");
    ASSERT_TRUE(f.ok() && f->Step());
    EXPECT_EQ(std::vector<int64_t>({f->Int(0), f->Int(1), f->Int(2)}), std::vector<int64_t>({336, 336, 336}));
  }
  // The compressed files are recorded by their own names, not the scratch copies.
  auto src = other->db().Prepare("SELECT path FROM source_file WHERE run_id = 2 ORDER BY id");
  ASSERT_TRUE(src.ok());
  std::vector<std::string> paths;
  while (src->Step()) paths.push_back(fs::path(src->Text(0)).lexically_relative(dir_).string());
  EXPECT_EQ(paths, (std::vector<std::string>{"runs/1/nsys/discovery.sqlite.zst", "runs/1/ncu/pass1_raw.csv.zst",
                                             "runs/1/ncu/pass1_details.csv.zst"}));

  // The same directory again is refused (its export is in the store), and nothing changes.
  auto again = capture::ImportRunDir(*other, (*dirs)[0], user, KnownContentRefused(), runs);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().Line(), "kscope: error: " + ((*dirs)[0] / "nsys" / "discovery.sqlite.zst").string() +
                                      ": already imported as run 2 (a file of the same content); use run 2, or "
                                      "import it again with --force");
  auto count = other->db().Prepare("SELECT count(*) FROM run");
  ASSERT_TRUE(count.ok() && count->Step());
  EXPECT_EQ(count->Int(0), 3);
}

TEST_F(RunDirReplay, AFolderWithoutRunDirectoriesIsOneLine) {
  auto r = capture::FindRunDirs(dir_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().Line(),
            "kscope: error: " + dir_.string() +
                ": neither a run directory (no manifest.json) nor a folder of run directories; "
                "name a directory that kscope profile wrote (profile.runs_dir/ID), or its runs folder");
}

// A run directory is imported only as its manifest promises: a pass whose report is missing is
// refused (or, with --partial, imported marked incomplete with a note), and each malformed
// field is one line naming the manifest and the step.
TEST_F(RunDirReplay, RunDirectoriesMissingWhatTheirManifestPromisesAreRefused) {
  auto first = Profile();
  ASSERT_TRUE(first.ok() && first->complete);
  const fs::path run_dir = first->run_dir;
  auto import_copy = [&](const std::function<void(const fs::path&, nlohmann::json&)>& damage, bool partial) {
    const fs::path copy = dir_ / "copy";
    fs::remove_all(copy);
    fs::copy(run_dir, copy, fs::copy_options::recursive);
    auto m = nlohmann::json::parse(testing::ReadFile((copy / "manifest.json").string()));
    damage(copy, m);
    std::ofstream(copy / "manifest.json") << m.dump();
    auto other = store::Store::Open(":memory:", sql::OpenMode::kCreate);
    std::map<int64_t, int64_t> runs;
    import::ImportOptions options;
    options.partial = partial;
    auto r = capture::ImportRunDir(*other, copy, {}, options, runs);
    return std::make_pair(std::move(r), (copy / "manifest.json").string());
  };
  auto remove_pages = [](const fs::path& d, nlohmann::json&) {
    for (const auto& e : fs::directory_iterator(d / "ncu")) fs::remove(e.path());
  };
  auto [refused, manifest] = import_copy(remove_pages, false);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().Line(),
            "kscope: error: " + (dir_ / "copy").string() +
                ": ncu pass 1 profiled 168 launch(es), and its report (ncu/pass1.ncu-rep, or its pages) is missing; "
                "copy the whole run directory, or import it with --partial to keep the rest, marked incomplete");
  auto [partial, m2] = import_copy(remove_pages, true);
  ASSERT_TRUE(partial.ok()) << partial.error().Line();
  EXPECT_EQ(partial->status, "incomplete");
  EXPECT_EQ(partial->linked, 0);
  EXPECT_EQ(partial->notes, std::vector<std::string>{
                                "ncu pass 1 profiled 168 launch(es), and its report (ncu/pass1.ncu-rep, or its pages) "
                                "is missing"});

  const std::string fix =
      "; the manifest was edited or damaged: use the one kscope profile wrote, or import the run's files themselves "
      "(kscope import FILE...)";
  auto pass_step = [](nlohmann::json& m) -> nlohmann::json& {
    for (auto& s : m["steps"]) {
      if (s.contains("profiled_kernel_rows")) return s;
    }
    return m["steps"][0];
  };
  size_t pass_index = 0;
  {
    auto m = nlohmann::json::parse(testing::ReadFile((run_dir / "manifest.json").string()));
    while (!m["steps"][pass_index].contains("profiled_kernel_rows")) ++pass_index;
  }
  const std::string at = fmt::format(": steps[{}]: ", pass_index);
  for (const auto& [name, expected] :
       {std::pair<std::string, std::string>{"ncu pass -1", "'ncu pass -1' does not name a pass by a number from 1"},
        {"ncu pass 99999999999999999999", "'ncu pass 99999999999999999999' does not name a pass by a number from 1"},
        {"ncu pass 0", "'ncu pass 0' does not name a pass by a number from 1"}}) {
    const std::string& pass_name = name;  // clang 14 captures no structured binding in a lambda
    auto [r, path] = import_copy([&](const fs::path&, nlohmann::json& m) { pass_step(m)["name"] = pass_name; }, false);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.error().Line(), "kscope: error: " + path + at + expected + fix);
  }
  auto [rows, p3] =
      import_copy([&](const fs::path&, nlohmann::json& m) { pass_step(m)["profiled_kernel_rows"] = "abc"; }, false);
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.error().Line(), "kscope: error: " + p3 + fmt::format(": steps[{}].", pass_index) +
                                     "profiled_kernel_rows is a string, and kscope profile writes a list of whole "
                                     "numbers there" +
                                     fix);
  auto [steps, p4] = import_copy([](const fs::path&, nlohmann::json& m) { m["steps"] = {1, 2, 3}; }, false);
  ASSERT_FALSE(steps.ok());
  EXPECT_EQ(steps.error().Line(),
            "kscope: error: " + p4 + ": steps is a list, and kscope profile writes a list of objects there" + fix);
}

// An import of a run directory with compressed files, ended by SIGTERM while it reads them,
// leaves none of its decompressed copies behind (its private scratch folder is removed by the
// signal handler), and the store gains no run.
TEST_F(RunDirReplay, AnInterruptedRunDirectoryImportLeavesNoScratchCopies) {
  config_.profile.keep_runs = 1;
  ASSERT_TRUE(Profile().ok());
  ASSERT_TRUE(Profile().ok());
  ASSERT_TRUE(fs::exists(dir_ / "runs" / "1" / "nsys" / "discovery.sqlite.zst"));
  const fs::path tmp = dir_ / "tmp";
  fs::create_directories(tmp);
  const char* old = std::getenv("TMPDIR");
  const std::string before = old != nullptr ? old : "";
  setenv("TMPDIR", tmp.c_str(), 1);
  const std::string db = (dir_ / "other.db").string(), log = (dir_ / "import.log").string();
  const pid_t pid = testing::StartKscope({"--db", db, "import", (dir_ / "runs" / "1").string()}, log);
  if (old != nullptr) {
    setenv("TMPDIR", before.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  // Once a decompressed copy is being written, the import is under way: stop it.
  bool seen = false;
  for (int i = 0; i < 20000 && !seen; ++i) {
    for (const auto& e : fs::recursive_directory_iterator(tmp, fs::directory_options::skip_permission_denied)) {
      if (e.is_regular_file()) seen = true;
    }
    if (!seen) usleep(500);
  }
  ASSERT_TRUE(seen) << testing::ReadFile(log);
  kill(pid, SIGTERM);
  EXPECT_EQ(testing::WaitExit(pid), 128 + SIGTERM) << testing::ReadFile(log);
  std::string left;
  for (const auto& e : fs::recursive_directory_iterator(tmp)) left += e.path().string() + "\n";
  EXPECT_EQ(left, "");
}

}  // namespace kscope
}  // namespace kscope
