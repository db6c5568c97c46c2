// kscope export --perfetto (report/perfetto_trace.h) on recorded data: the devset's tiny CUDA
// program and zoo runs (a training loop with NVTX stages, an inference without NVTX, a 2-GPU
// DDP job). The trace is read back with nlohmann and checked against SQL over the nsys export
// itself: every kernel, copy, set, CUDA call and NVTX range once, at its exact time (ns / 1000,
// three decimals) on its own track; every flow with one start and one finish on a slice; every
// track named; the critical path's pieces filling the median step the analysis measures; the
// phases the report computes; the stages' and iterations' instances.
#include "report/perfetto_trace.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <optional>

#include "analysis/graph/dependency_graph.h"
#include "analysis/graph/graph_events.h"
#include "analysis/graph/whatif.h"
#include "analysis/names/api_names.h"
#include "perfetto_support.h"
#include "report/run_report.h"
#include "test_support.h"
#include "zoo_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
namespace g = analysis::graph;
using testing::Exported;
using testing::ExportOf;
using testing::MicrosOf;
using testing::NsOf;
using testing::ReadTrace;
using testing::SqlRows;
using testing::TraceEvent;

int64_t OsPid(const std::string& global) { return (std::stoll(global) >> 24) & 0xFFFFFF; }

// The pid a GPU process's name gives ("GPU 0 (rank 1: python (pid 860))"), or -1 ("GPU 0").
int64_t PidInName(const std::string& name) {
  const auto at = name.rfind("(pid ");
  return at == std::string::npos ? -1 : std::stoll(name.substr(at + 5));
}

class PerfettoTrace : public ::testing::TestWithParam<std::string> {};

TEST_P(PerfettoTrace, EveryGpuOperationOnceAtItsExportTimeOnItsStream) {
  Exported& x = ExportOf(GetParam());
  // (ts, dur, kind, device, stream, pid or -1 for a run with one GPU process, full name)
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, int64_t, std::string>;
  std::string sql =
      "SELECT k.start, k.end, 'kernel', k.deviceId, k.streamId, k.globalPid, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
      "JOIN StringIds s ON s.id = k.demangledName";
  if (testing::HasTable(x.file, "CUPTI_ACTIVITY_KIND_MEMCPY")) {
    sql += " UNION ALL SELECT start, end, 'memcpy', deviceId, streamId, globalPid, '' FROM CUPTI_ACTIVITY_KIND_MEMCPY";
  }
  if (testing::HasTable(x.file, "CUPTI_ACTIVITY_KIND_MEMSET")) {
    sql += " UNION ALL SELECT start, end, 'memset', deviceId, streamId, globalPid, '' FROM CUPTI_ACTIVITY_KIND_MEMSET";
  }
  const auto rows = SqlRows(x.file, sql);
  std::set<int64_t> processes;
  for (const auto& r : rows) processes.insert(OsPid(r[5]));
  std::map<Key, int> expected, seen;
  for (const auto& r : rows) {
    const int64_t start = std::stoll(r[0]), end = std::stoll(r[1]);
    ++expected[{MicrosOf(start), MicrosOf(std::max<int64_t>(end - start, 0)), r[2], r[3], r[4],
                processes.size() > 1 ? OsPid(r[5]) : -1, r[6]}];
  }
  int64_t kernels = 0;
  for (const TraceEvent& e : x.trace.events) {
    const std::string cat = e.cat();
    if (e.ph() != "X" || (cat != "kernel" && cat != "memcpy" && cat != "memset")) continue;
    const std::string process = x.trace.ProcessOf(e), thread = x.trace.ThreadOf(e);
    ASSERT_EQ(process.rfind("GPU ", 0), 0U) << process;
    ASSERT_EQ(thread.rfind("stream ", 0), 0U) << thread;
    const std::string device = std::to_string(std::stoll(process.substr(4)));
    const std::string full = cat == "kernel" ? e.json["args"]["full_name"].get<std::string>() : "";
    ++seen[{e.ts, e.dur, cat, device, thread.substr(7), PidInName(process), full}];
    EXPECT_EQ(e.json["args"]["duration_ns"].get<int64_t>(), NsOf(e.dur));
    if (cat == "kernel") {
      ++kernels;
      EXPECT_EQ(e.json["args"]["grid"].size(), 3U);
      EXPECT_EQ(e.json["args"]["block"].size(), 3U);
    }
  }
  EXPECT_GT(kernels, 0);
  EXPECT_EQ(kernels, x.summary.kernels);
  EXPECT_EQ(seen.size(), expected.size());
  for (const auto& [key, n] : expected) {
    const auto it = seen.find(key);
    EXPECT_TRUE(it != seen.end() && it->second == n)
        << std::get<2>(key) << " " << std::get<6>(key) << " at " << std::get<0>(key) << " on GPU " << std::get<3>(key)
        << " stream " << std::get<4>(key) << ": " << n << " in the export, " << (it == seen.end() ? 0 : it->second)
        << " in the trace";
  }
}

TEST_P(PerfettoTrace, EveryCudaCallAndNvtxRangeOnItsThread) {
  Exported& x = ExportOf(GetParam());
  std::map<std::string, std::string> thread_names;  // global tid -> name
  for (const auto& r : SqlRows(x.file,
                               "SELECT t.globalTid, s.value FROM ThreadNames t JOIN StringIds s ON s.id = "
                               "t.nameId")) {
    thread_names[r[0]] = r[1];
  }
  auto thread_of = [&](const std::string& global_tid) {
    const auto it = thread_names.find(global_tid);
    return it != thread_names.end() && !it->second.empty()
               ? it->second
               : "thread " + std::to_string(std::stoll(global_tid) & 0xFFFFFF);
  };
  using Key = std::tuple<std::string, std::string, std::string, std::string, int64_t>;  // ts, dur, name, thread, pid
  std::map<Key, int> expected, seen;
  for (const auto& r : SqlRows(x.file,
                               "SELECT r.start, r.end, s.value, r.globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
                               "JOIN StringIds s ON s.id = r.nameId")) {
    const int64_t start = std::stoll(r[0]), end = std::stoll(r[1]);
    ++expected[{MicrosOf(start), MicrosOf(std::max<int64_t>(end - start, 0)), analysis::ApiDisplayName(r[2]),
                thread_of(r[3]), OsPid(r[3])}];
  }
  std::map<Key, int> expected_nvtx, seen_nvtx;
  if (testing::HasTable(x.file, "NVTX_EVENTS")) {
    for (const auto& r : SqlRows(x.file,
                                 "SELECT n.start, n.end, coalesce(n.text, s.value, ''), n.globalTid FROM NVTX_EVENTS n "
                                 "LEFT JOIN StringIds s ON s.id = n.textId WHERE n.eventType IN (59, 60, 70, 71) AND "
                                 "n.end IS NOT NULL")) {
      const int64_t start = std::stoll(r[0]), end = std::stoll(r[1]);
      ++expected_nvtx[{MicrosOf(start), MicrosOf(end - start), r[2], thread_of(r[3]), OsPid(r[3])}];
    }
  }
  for (const TraceEvent& e : x.trace.events) {
    if (e.ph() != "X" || (e.cat() != "cuda_api" && e.cat() != "nvtx")) continue;
    const Key key{e.ts, e.dur, e.name(), x.trace.ThreadOf(e), PidInName(x.trace.ProcessOf(e))};
    ++(e.cat() == "nvtx" ? seen_nvtx : seen)[key];
  }
  EXPECT_GT(expected.size(), 0U);
  EXPECT_TRUE(seen == expected) << seen.size() << " distinct calls in the trace, " << expected.size()
                                << " in the export";
  EXPECT_TRUE(seen_nvtx == expected_nvtx)
      << seen_nvtx.size() << " distinct NVTX ranges in the trace, " << expected_nvtx.size() << " in the export";
}

TEST_P(PerfettoTrace, EveryFlowHasAStartAndAFinishBoundToASlice) {
  Exported& x = ExportOf(GetParam());
  const std::vector<const TraceEvent*> bound = testing::BindFlows(x.trace);
  std::map<std::pair<std::string, int64_t>, std::vector<size_t>> flows;  // (cat, id) -> its events: s, f
  for (size_t i = 0; i < x.trace.events.size(); ++i) {
    const TraceEvent& e = x.trace.events[i];
    if (e.ph() == "s" || e.ph() == "f" || e.ph() == "t") flows[{e.cat(), e.json["id"].get<int64_t>()}].push_back(i);
  }
  auto on_gpu = [](const TraceEvent* e) {
    return e->cat() == "kernel" || e->cat() == "memcpy" || e->cat() == "memset";
  };
  int64_t launches = 0, path = 0;
  std::set<int64_t> ids;
  for (const auto& [key, events] : flows) {
    ASSERT_EQ(events.size(), 2U) << key.first << " flow " << key.second;
    const TraceEvent &s = x.trace.events[events[0]], &f = x.trace.events[events[1]];
    EXPECT_EQ(s.ph(), "s");
    EXPECT_EQ(f.ph(), "f");
    EXPECT_EQ(f.json.value("bp", ""), "e");
    EXPECT_LE(NsOf(s.ts), NsOf(f.ts)) << "a flow's start comes first";
    EXPECT_TRUE(ids.insert(key.second).second) << "flow ids are unique in the file";
    // Each end binds to the call or operation it is for: a slice that starts at its time.
    const TraceEvent* ends[] = {bound[events[0]], bound[events[1]]};
    for (size_t k = 0; k < 2; ++k) {
      ASSERT_NE(ends[k], nullptr) << key.first << " flow " << key.second << ": no slice to bind to";
      EXPECT_EQ(ends[k]->ts, x.trace.events[events[k]].ts) << key.first << " flow " << key.second;
      EXPECT_TRUE(ends[k]->cat() == "cuda_api" || on_gpu(ends[k])) << ends[k]->cat();
    }
    if (key.first == "launch") {
      ++launches;
      EXPECT_NE(on_gpu(ends[0]), on_gpu(ends[1])) << "a call to the operation it launched";
    } else {
      EXPECT_EQ(key.first, "critical path");
      ++path;
    }
  }
  // A launch arrow per operation whose process made a call of its correlation id (as the
  // dependency graph links them), up to the cap.
  std::string ops = "SELECT correlationId c, globalPid >> 24 p FROM CUPTI_ACTIVITY_KIND_KERNEL";
  for (const char* t : {"CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"}) {
    if (testing::HasTable(x.file, t)) ops += std::string(" UNION ALL SELECT correlationId, globalPid >> 24 FROM ") + t;
  }
  const int64_t launched =
      std::stoll(SqlRows(x.file, "SELECT count(*) FROM (" + ops +
                                     ") o JOIN (SELECT DISTINCT correlationId c, globalTid >> 24 p FROM "
                                     "CUPTI_ACTIVITY_KIND_RUNTIME) r USING (c, p)")[0][0]);
  EXPECT_EQ(launches, std::min<int64_t>(launched, 20000));
  EXPECT_EQ(launches, x.summary.launch_flows);
  EXPECT_EQ(x.summary.launches_left_out, launched - launches);
  EXPECT_EQ(path, x.summary.critical_path ? x.summary.critical_path->arrows : 0);
}

TEST_P(PerfettoTrace, EveryTrackIsNamed) {
  Exported& x = ExportOf(GetParam());
  for (const TraceEvent& e : x.trace.events) {
    if (e.ph() == "M") continue;
    EXPECT_TRUE(x.trace.process.contains(e.pid())) << "no process_name for pid " << e.pid();
    EXPECT_FALSE(x.trace.ThreadOf(e).empty()) << "no thread_name for " << e.pid() << "/" << e.tid();
  }
  int analysis = 0, gpus = 0;
  for (const auto& [pid, name] : x.trace.process) {
    analysis += name == "kscope analysis" ? 1 : 0;
    gpus += name.starts_with("GPU ") ? 1 : 0;
  }
  EXPECT_EQ(analysis, 1);
  EXPECT_GE(gpus, GetParam() == "ddp_train" ? 2 : 1);
  // Tids are unique in the file, so that no viewer merges two tracks.
  std::map<int64_t, int64_t> pid_of_tid;
  for (const auto& [track, name] : x.trace.thread) {
    const auto [it, added] = pid_of_tid.emplace(track.second, track.first);
    EXPECT_TRUE(added || it->second == track.first) << "tid " << track.second << " in two processes";
  }
  EXPECT_EQ(x.trace.whole["displayTimeUnit"], "ns");
  EXPECT_EQ(x.trace.whole["metadata"]["kscope_run"], x.run);
}

// The pieces of the critical path fill the step the analysis measures: the median step (by
// recorded length, the lower middle of an even count) of the step set kscope whatif answers for first.
TEST_P(PerfettoTrace, TheCriticalPathFillsTheMedianStep) {
  Exported& x = ExportOf(GetParam());
  auto events = g::LoadGraphEvents(*x.store, x.run);
  ASSERT_TRUE(events.ok());
  const g::DependencyGraph graph = g::BuildGraph(std::move(*events));
  auto sets = g::FindStepSets(*x.store, x.run, graph, 1);
  ASSERT_TRUE(sets.ok());
  const g::StepSet* primary = g::PrimaryStepSet(*sets);
  if (primary == nullptr) {
    EXPECT_FALSE(x.summary.critical_path);
    return;
  }
  ASSERT_TRUE(x.summary.critical_path);
  const g::StepSet& set = *primary;
  std::vector<int64_t> lengths;
  for (const g::Step& s : set.steps) {
    lengths.push_back((graph.recorded(s.end.point) - s.end.offset) - (graph.recorded(s.begin.point) - s.begin.offset));
  }
  std::vector<int64_t> sorted = lengths;
  std::sort(sorted.begin(), sorted.end());
  const int64_t median = sorted[(sorted.size() - 1) / 2];
  const report::DrawnPath& p = *x.summary.critical_path;
  EXPECT_EQ(p.step_set, set.name);
  EXPECT_EQ(lengths[static_cast<size_t>(p.step - 1)], median);
  EXPECT_EQ(p.end - p.start, median);
  if (sorted.size() % 2 == 1) {  // what kscope whatif reports as the median step
    auto answer = g::AnswerWhatIf(*x.store, x.run, {}, {});
    ASSERT_TRUE(answer.ok());
    EXPECT_EQ(answer->steps.front().recorded_ns, static_cast<double>(median));
  }
  // On the trace: the step's slice, and its pieces, back to back, filling it.
  const TraceEvent* step = nullptr;
  std::vector<const TraceEvent*> pieces;
  for (const TraceEvent& e : x.trace.events) {
    if (e.ph() == "X" && e.cat() == "step") step = &e;
    if (e.ph() == "X" && e.cat() == "critical path") pieces.push_back(&e);
  }
  ASSERT_NE(step, nullptr);
  ASSERT_FALSE(pieces.empty());
  EXPECT_EQ(NsOf(step->ts), p.start);
  EXPECT_EQ(NsOf(step->dur), median);
  EXPECT_TRUE(x.trace.ThreadOf(*step).starts_with("critical path: " + set.name));
  int64_t sum = 0, at = p.start;
  for (const TraceEvent* e : pieces) {
    EXPECT_EQ(e->tid(), step->tid());
    EXPECT_EQ(NsOf(e->ts), at) << "pieces back to back";
    at = NsOf(e->ts) + NsOf(e->dur);
    sum += NsOf(e->dur);
  }
  EXPECT_EQ(sum, median) << "the critical path's pieces sum to the step's length";
  EXPECT_EQ(sum, p.path_ns);
  EXPECT_EQ(static_cast<int64_t>(pieces.size()), p.pieces);
}

// The run's phases as the report computes them.
TEST_P(PerfettoTrace, ThePhasesAreTheReports) {
  Exported& x = ExportOf(GetParam());
  auto report = report::BuildRunReport(*x.store, x.run, analysis::AnalysisOptions{}, std::nullopt);
  ASSERT_TRUE(report.ok()) << report.error().Line();
  std::vector<std::tuple<std::string, std::string, std::string>> expected, seen;
  for (const auto& p : report->phases) expected.emplace_back(p.kind, MicrosOf(p.start), MicrosOf(p.end - p.start));
  for (const TraceEvent& e : x.trace.events) {
    if (e.ph() == "X" && e.cat() == "phase") {
      seen.emplace_back(e.name(), e.ts, e.dur);
      EXPECT_EQ(x.trace.ThreadOf(e), "run phases");
    }
  }
  EXPECT_EQ(seen, expected);
}

INSTANTIATE_TEST_SUITE_P(Recorded, PerfettoTrace,
                         ::testing::Values("tiny_cuda", "decoder_train", "no_nvtx_infer", "ddp_train"));

}  // namespace
}  // namespace kscope
