// PyTorch profiler traces recorded on an H100 (tests/data/kineto, record_trace.py): what kscope
// imports equals the trace's own sums, computed here from a whole-document parse of the trace
// (kineto_support.h), never from kscope's reader or SQL.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "config/config.h"
#include "import/import_files.h"
#include "import/kineto/trace_time.h"
#include "kineto_support.h"
#include "report/report_text.h"
#include "report/run_report.h"
#include "report/run_report_json.h"
#include "test_support.h"
#include "util/temp_dir.h"

namespace kscope {
namespace {

using testing::DurNs;
using testing::KinetoData;
using testing::ReadTraceJson;
using testing::Sum;
using testing::TsNs;

const std::vector<std::string> kTraces = {"decoder_infer.json.gz", "decoder_train.json.gz", "ddp_train_rank0.json.gz",
                                          "ddp_train_rank1.json.gz"};

struct Imported {
  store::Store store;
  int64_t run = 0;
};

Imported Import(const std::vector<std::string>& paths) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  EXPECT_TRUE(s.ok());
  auto out = import::ImportFiles(*s, paths, {});
  EXPECT_TRUE(out.ok()) << out.error().Line();
  return {std::move(*s), out.ok() ? out->front().run_id : 0};
}

// name -> (n, total) of one of the run's summary tables.
std::map<std::string, Sum> Summary(store::Store& s, int64_t run, const std::string& sql) {
  std::map<std::string, Sum> out;
  auto q = s.db().Prepare(sql);
  EXPECT_TRUE(q.ok());
  q->Bind(1, run);
  while (q->Step()) out[q->Text(0)] = {q->Int(1), q->Int(2)};
  return out;
}

std::map<std::string, Sum> KernelSums(store::Store& s, int64_t run) {
  return Summary(
      s, run, "SELECT string.value, n, total FROM kernel_summary JOIN string ON string.id = name_id WHERE run_id = ?1");
}

int64_t Count(store::Store& s, const std::string& sql, int64_t run) {
  auto q = s.db().Prepare(sql);
  EXPECT_TRUE(q.ok());
  q->Bind(1, run);
  return q->Step() ? q->Int(0) : -1;
}

TEST(KinetoTime, MicrosecondTextToNanosecondsExactly) {
  using import::kineto::ParseTime;
  using import::kineto::TimeUnit;
  EXPECT_EQ(ParseTime("4915566494376.883", TimeUnit::kMicroseconds), 4915566494376883);
  EXPECT_EQ(ParseTime("3490.69", TimeUnit::kMicroseconds), 3490690);
  EXPECT_EQ(ParseTime("12", TimeUnit::kMicroseconds), 12000);
  EXPECT_EQ(ParseTime("0.736", TimeUnit::kMicroseconds), 736);
  EXPECT_EQ(ParseTime("1.5e3", TimeUnit::kMicroseconds), 1500000);
  EXPECT_EQ(ParseTime("2.0004", TimeUnit::kMicroseconds), 2000);  // below a nanosecond: dropped
  EXPECT_EQ(ParseTime("4915566494376883", TimeUnit::kNanoseconds), 4915566494376883);
  EXPECT_EQ(ParseTime("-1.5", TimeUnit::kMicroseconds), -1500);
  EXPECT_EQ(ParseTime("1.", TimeUnit::kMicroseconds), std::nullopt);
  EXPECT_EQ(ParseTime("abc", TimeUnit::kMicroseconds), std::nullopt);
  EXPECT_EQ(ParseTime("99999999999999999999", TimeUnit::kMicroseconds), std::nullopt);
}

// Every kernel's launches and total time equal the trace's own, to the nanosecond.
TEST(KinetoImport, KernelTotalsEqualTheTraceSums) {
  for (const auto& name : kTraces) {
    SCOPED_TRACE(name);
    auto trace = ReadTraceJson(name);
    auto expected = testing::SumsByName(trace, "kernel");
    ASSERT_GT(expected.size(), 10u);
    auto im = Import({KinetoData(name)});
    EXPECT_EQ(KernelSums(im.store, im.run), expected);
  }
}

// CUDA runtime and driver calls per function, copies and sets per kind, as the trace counts them.
TEST(KinetoImport, CallsCopiesAndSetsEqualTheTrace) {
  for (const auto& name : kTraces) {
    SCOPED_TRACE(name);
    auto trace = ReadTraceJson(name);
    auto expected = testing::SumsByName(trace, "cuda_runtime");
    for (const auto& [fn, sum] : testing::SumsByName(trace, "cuda_driver")) expected[fn] = sum;
    auto im = Import({KinetoData(name)});
    EXPECT_EQ(Summary(im.store, im.run, "SELECT name, n, total FROM api_summary WHERE run_id = ?1"), expected);
    Sum copies, sets;
    for (const auto& [n, s] : testing::SumsByName(trace, "gpu_memcpy")) copies.n += s.n, copies.total += s.total;
    for (const auto& [n, s] : testing::SumsByName(trace, "gpu_memset")) sets.n += s.n, sets.total += s.total;
    auto memops = Summary(im.store, im.run,
                          "SELECT operation = '[CUDA memset]', sum(n), sum(total) FROM memop_summary "
                          "WHERE run_id = ?1 GROUP BY 1");
    EXPECT_EQ(memops["0"].n, copies.n);
    EXPECT_EQ(memops["0"].total, copies.total);
    EXPECT_EQ(memops["1"], sets);
  }
}

// The trace's record_function ranges, each name's instances and summed time; ProfilerStep#N
// are the instances of one stage, "ProfilerStep".
std::map<std::string, Sum> AnnotationSums(const nlohmann::json& trace) {
  std::map<std::string, Sum> sums;
  for (const auto& [name, s] : testing::SumsByName(trace, "user_annotation")) {
    Sum& to = sums[":" + (name.starts_with("ProfilerStep#") ? std::string("ProfilerStep") : name)];
    to.n += s.n;
    to.total += s.total;
  }
  return sums;
}

// Per ProfilerStep instance, the GPU operations its thread launched inside it (nsys's
// projection rule): their count, and the span from the first one's start to the last one's end.
struct Iteration {
  int64_t ops = 0, projected = 0;
};
std::vector<Iteration> Iterations(const nlohmann::json& trace) {
  const auto& ev = trace.at("traceEvents");
  std::map<int64_t, std::pair<int64_t, int64_t>> gpu;  // correlation -> (first start, last end)
  std::map<int64_t, int64_t> gpu_count;
  for (const auto& e : ev) {
    const std::string cat = e.value("cat", "");
    if (e.value("ph", "") != "X" || (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset")) continue;
    const int64_t corr = e.at("args").at("correlation").get<int64_t>();
    auto [it, fresh] = gpu.try_emplace(corr, TsNs(e), TsNs(e) + DurNs(e));
    it->second = {std::min(it->second.first, TsNs(e)), std::max(it->second.second, TsNs(e) + DurNs(e))};
    ++gpu_count[corr];
  }
  std::vector<Iteration> out;
  for (const auto& step : ev) {
    if (step.value("cat", "") != "user_annotation" || !step.value("name", "").starts_with("ProfilerStep#")) continue;
    const int64_t start = TsNs(step), end = start + DurNs(step);
    Iteration it;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (const auto& c : ev) {
      const std::string cat = c.value("cat", "");
      if (cat != "cuda_runtime" && cat != "cuda_driver") continue;
      if (c.at("tid") != step.at("tid") || TsNs(c) < start || TsNs(c) + DurNs(c) > end) continue;
      auto g = gpu.find(c.at("args").value("correlation", int64_t{-1}));
      if (g == gpu.end()) continue;
      it.ops += 1;  // distinct correlation ids, as nsys counts GPU operations
      first = std::min(first, g->second.first);
      last = std::max(last, g->second.second);
    }
    if (it.ops > 0) it.projected = last - first;
    out.push_back(it);
  }
  return out;
}

// The training trace: three active steps of a schedule (ProfilerStep#2..#4), each with its
// forward, backward and optimizer ranges; their counts and times are the trace's.
TEST(KinetoImport, StagesAndIterationsEqualTheTrace) {
  for (const auto& name : {"decoder_train.json.gz", "ddp_train_rank0.json.gz", "decoder_infer.json.gz"}) {
    SCOPED_TRACE(name);
    auto trace = ReadTraceJson(name);
    auto im = Import({KinetoData(name)});
    auto stored = Summary(im.store, im.run, "SELECT range, n, total FROM nvtx_summary WHERE run_id = ?1");
    for (const auto& [range, sum] : AnnotationSums(trace)) EXPECT_EQ(stored[range], sum) << range;
    const auto iterations = Iterations(trace);
    if (std::string(name) == "decoder_infer.json.gz") {
      EXPECT_TRUE(iterations.empty());  // profiled whole, without a schedule
      EXPECT_EQ(stored[":generate"].n, 2);
      EXPECT_EQ(stored[":decode"].n, 2);
      continue;
    }
    EXPECT_EQ(stored[":ProfilerStep"].n, std::string(name) == "decoder_train.json.gz" ? 3 : 2);
    Sum projected;
    int64_t ops = 0;
    for (const auto& it : iterations) projected.n += it.ops > 0 ? 1 : 0, projected.total += it.projected, ops += it.ops;
    auto q = im.store.db().Prepare(
        "SELECT n, total, gpu_ops FROM nvtx_projection_summary WHERE run_id = ?1 AND range = ':ProfilerStep'");
    ASSERT_TRUE(q.ok());
    q->Bind(1, im.run);
    ASSERT_TRUE(q->Step());
    EXPECT_EQ(q->Int(0), projected.n);
    EXPECT_EQ(q->Int(1), projected.total);
    EXPECT_EQ(q->Int(2), ops);
  }
}

// The ranks of a DDP job: each trace's distributedInfo, one process per rank, with the trace's
// kernels; imported together, the two traces are one run of two ranks.
TEST(KinetoImport, DdpTracesAreRanksOfOneRun) {
  auto im = Import({KinetoData("ddp_train_rank1.json.gz"), KinetoData("ddp_train_rank0.json.gz")});
  auto q = im.store.db().Prepare("SELECT rank, pid, device, kernels FROM run_rank WHERE run_id = ?1 ORDER BY rank");
  ASSERT_TRUE(q.ok());
  q->Bind(1, im.run);
  for (int64_t rank : {0, 1}) {
    ASSERT_TRUE(q->Step());
    auto trace = ReadTraceJson("ddp_train_rank" + std::to_string(rank) + ".json.gz");
    EXPECT_EQ(trace.at("distributedInfo").at("rank"), rank);
    int64_t kernels = 0, pid = -1;
    for (const auto& e : trace.at("traceEvents")) {
      if (e.value("cat", "") == "kernel") ++kernels;
      if (pid < 0 && e.value("cat", "") == "cpu_op") pid = e.at("pid").get<int64_t>();
    }
    EXPECT_EQ(q->Int(0), rank);
    EXPECT_EQ(q->Int(1), pid);
    EXPECT_EQ(q->Int(2), rank);  // each rank on its own GPU
    EXPECT_EQ(q->Int(3), kernels);
  }
  EXPECT_FALSE(q->Step());
  // Alone, a rank's trace names its rank from distributedInfo.
  auto one = Import({KinetoData("ddp_train_rank1.json.gz")});
  EXPECT_EQ(Count(one.store, "SELECT rank FROM run_rank WHERE run_id = ?1 AND rank_from = 'distributedInfo'", one.run),
            1);
}

// What the trace says of the run: its GPU, its CUDA version, that it came from a trace.
TEST(KinetoImport, RunManifestFromTheTrace) {
  auto im = Import({KinetoData("decoder_infer.json.gz")});
  auto run = im.store.GetRun(im.run);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->manifest.gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(run->manifest.cuda_version, "13.0");
  EXPECT_EQ(Count(im.store, "SELECT count(*) FROM source_file WHERE run_id = ?1 AND format = 'kineto-trace'", im.run),
            1);
  // CPU ops keep their input shapes, as PyTorch's op ranges spell them.
  EXPECT_GT(Count(im.store,
                  "SELECT count(*) FROM nvtx_summary WHERE run_id = ?1 AND range LIKE ':aten::%, sizes = [[%'", im.run),
            0);
}

}  // namespace
}  // namespace kscope

namespace kscope {
namespace {

// A real trace changed by `edit`, written as a file in `dir`.
std::string EditedTrace(const TempDir& dir, const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
  auto trace = ReadTraceJson(name);
  edit(trace);
  const std::string path = dir.path() + "/edited_" + std::to_string(std::rand()) + ".json";
  std::ofstream(path, std::ios::binary) << testing::TraceText(trace);
  return path;
}

int64_t Problems(store::Store& s, int64_t run, const std::string& like) {
  auto q = s.db().Prepare("SELECT count(*) FROM import_problem WHERE run_id = ?1 AND what LIKE ?2");
  EXPECT_TRUE(q.ok());
  q->Bind(1, run).Bind(2, like);
  return q->Step() ? q->Int(0) : -1;
}

// The same events in the opposite order import as the same run: kernels, ranges, projections.
TEST(KinetoImport, EventsOutOfOrderImportAlike) {
  auto dir = TempDir::Make("kscope_kineto");
  ASSERT_TRUE(dir.ok());
  const std::string name = "decoder_train.json.gz";
  const std::string reversed = EditedTrace(*dir, name, [](nlohmann::json& t) {
    auto& ev = t.at("traceEvents");
    std::reverse(ev.begin(), ev.end());
  });
  auto a = Import({KinetoData(name)});
  auto b = Import({reversed});
  EXPECT_EQ(KernelSums(b.store, b.run), testing::SumsByName(ReadTraceJson(name), "kernel"));
  for (const std::string table : {"nvtx_summary", "nvtx_projection_summary"}) {
    const std::string sql = "SELECT range, n, total FROM " + table + " WHERE run_id = ?1";
    EXPECT_EQ(Summary(a.store, a.run, sql), Summary(b.store, b.run, sql)) << table;
  }
}

// Kernels whose launching call the trace lacks (as at the profiler's window edge) are kept,
// each counted; GPU work that ends after the window closed is counted once.
TEST(KinetoImport, KernelsWithoutLaunchAndPastTheWindowAreKeptAndCounted) {
  auto dir = TempDir::Make("kscope_kineto");
  ASSERT_TRUE(dir.ok());
  const std::string name = "ddp_train_rank0.json.gz";
  std::set<int64_t> dropped;  // correlation ids of the first 10 kernels
  int64_t dropped_ops = 0, past_window = 0;
  const std::string edited = EditedTrace(*dir, name, [&](nlohmann::json& t) {
    auto& ev = t.at("traceEvents");
    int64_t last_start = 0;
    for (const auto& e : ev) {
      if (e.value("cat", "") != "kernel") continue;
      if (dropped.size() < 10) dropped.insert(e.at("args").at("correlation").get<int64_t>());
      last_start = std::max(last_start, TsNs(e));
    }
    nlohmann::json kept = nlohmann::json::array();
    for (auto& e : ev) {
      const std::string cat = e.value("cat", "");
      const bool call = cat == "cuda_runtime" || cat == "cuda_driver";
      if (call && dropped.count(e.at("args").value("correlation", int64_t{-1})) > 0) continue;
      if (e.value("name", "") == "Record Window End") e["ts"] = std::to_string(last_start / 1000) + ".000";
      kept.push_back(e);
    }
    ev = kept;
    for (const auto& e : ev) {
      const std::string cat = e.value("cat", "");
      if (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset") continue;
      dropped_ops += dropped.count(e.at("args").at("correlation").get<int64_t>());
      past_window += TsNs(e) + DurNs(e) > last_start / 1000 * 1000 ? 1 : 0;
    }
  });
  auto im = Import({edited});
  EXPECT_EQ(KernelSums(im.store, im.run), testing::SumsByName(ReadTraceJson(name), "kernel"));
  EXPECT_GE(dropped_ops, 10);
  EXPECT_EQ(Problems(im.store, im.run, "GPU operation without its launching CUDA call%"), dropped_ops);
  ASSERT_GT(past_window, 0);
  EXPECT_EQ(Problems(im.store, im.run,
                     std::to_string(past_window) + " GPU operations end after the profiler's window closed%"),
            1);
}

}  // namespace
}  // namespace kscope

namespace kscope {
namespace {

// kscope report on the DDP job's two traces as one run: its totals are the traces' kernels,
// ProfilerStep is one stage whose instances are both ranks' iterations, and the run has two
// ranks. The sums are the traces' own.
TEST(KinetoImport, ReportReadsTheTraceRun) {
  auto im = Import({KinetoData("ddp_train_rank0.json.gz"), KinetoData("ddp_train_rank1.json.gz")});
  Sum kernels, steps;
  for (const std::string rank : {"0", "1"}) {
    auto trace = ReadTraceJson("ddp_train_rank" + rank + ".json.gz");
    for (const auto& [name, s] : testing::SumsByName(trace, "kernel")) kernels.n += s.n, kernels.total += s.total;
    for (const auto& [name, s] : testing::SumsByName(trace, "user_annotation")) {
      if (name.starts_with("ProfilerStep#")) steps.n += s.n, steps.total += s.total;
    }
  }
  auto r = report::BuildRunReport(im.store, im.run, config::Config{});
  ASSERT_TRUE(r.ok()) << r.error().Line();
  EXPECT_EQ(r->run.manifest.gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r->run.source, "PyTorch profiler trace");  // report.json's run.source; nsys runs have none
  EXPECT_EQ(r->summary.kernels, kernels.n);
  EXPECT_EQ(r->summary.kernel_ns, kernels.total);
  auto step = std::find_if(r->stages.begin(), r->stages.end(), [](const auto& s) { return s.text == "ProfilerStep"; });
  ASSERT_NE(step, r->stages.end());
  EXPECT_EQ(step->instances, steps.n);
  EXPECT_EQ(step->instances, 4);  // two active steps on each of two ranks
  EXPECT_EQ(step->range_ns, steps.total);
  EXPECT_EQ(r->ranks.size(), 2u);
  // The operator ranges came from the trace's cpu_op events, not from nsys.
  const auto op_note = std::find_if(r->notes.begin(), r->notes.end(), [](const std::string& n) {
    return n.find("operator ranges") != std::string::npos;
  });
  ASSERT_NE(op_note, r->notes.end());
  EXPECT_NE(op_note->find("(the trace's cpu_op events)"), std::string::npos) << *op_note;
  EXPECT_EQ(op_note->find("nsys"), std::string::npos) << *op_note;
}

// The NCCL kernels' message sizes: per rank and collective kind, the report's bytes are the
// trace's own sum of each kernel's larger message ("In msg nelems", "Out msg nelems") times its
// dtype's size, in every view.
TEST(KinetoImport, CollectiveBytesPerRankEqualTheTraceSums) {
  auto im = Import({KinetoData("ddp_train_rank0.json.gz"), KinetoData("ddp_train_rank1.json.gz")});
  auto r = report::BuildRunReport(im.store, im.run, config::Config{});
  ASSERT_TRUE(r.ok()) << r.error().Line();
  ASSERT_EQ(r->ranks.size(), 2u);
  const auto json = report::ToJson(*r);
  std::ostringstream text;
  report::WriteReportSummary(*r, text);
  for (int64_t rank : {0, 1}) {
    auto trace = ReadTraceJson("ddp_train_rank" + std::to_string(rank) + ".json.gz");
    int64_t count = 0, bytes = 0;
    for (const auto& e : trace.at("traceEvents")) {
      if (e.value("cat", "") != "kernel" || !e.at("name").get<std::string>().starts_with("ncclDevKernel_AllReduce"))
        continue;
      const auto& a = e.at("args");
      ASSERT_EQ(a.at("dtype"), "Float");  // 4 bytes an element
      ++count;
      bytes += 4 * std::max(a.at("In msg nelems").get<int64_t>(), a.at("Out msg nelems").get<int64_t>());
    }
    ASSERT_GT(count, 0);
    const auto& collectives = r->ranks[static_cast<size_t>(rank)].collectives;
    ASSERT_EQ(collectives.size(), 1u);
    EXPECT_EQ(collectives[0].kind, "AllReduce");
    EXPECT_EQ(collectives[0].count, count);
    EXPECT_EQ(collectives[0].sized, count);
    EXPECT_EQ(collectives[0].bytes, bytes);
    EXPECT_EQ(json["ranks"][rank]["collectives"][0]["bytes"], bytes);
    const std::string shown = fmt::format("AllReduce {}x ", count);
    const std::string mb = fmt::format(" {:.3f}", static_cast<double>(bytes) / 1e6);
    const size_t at = text.str().find(shown);
    ASSERT_NE(at, std::string::npos) << text.str();
    EXPECT_NE(text.str().find(mb, at), std::string::npos) << text.str();
  }
}

}  // namespace
}  // namespace kscope
