// Every trace shape torch.profiler has written (docs/kineto/formats.md): the older
// shapes of tests/data/kineto (make_old_formats.py, from the recorded decoder_infer trace), the
// time unit after the events, every header key after the events. What kscope imports equals
// the trace's own sums, computed here from a whole-document parse (kineto_support.h).
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <set>
#include <tuple>

#include "import/import_files.h"
#include "kineto_support.h"
#include "store/event_reader.h"
#include "store/event_streams.h"
#include "test_support.h"
#include "util/temp_dir.h"

namespace kscope {
namespace {

using testing::DurNs;
using testing::KinetoData;
using testing::ReadTraceJson;
using testing::Sum;
using Sums = std::map<std::string, Sum>;

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

Sums Summary(store::Store& s, int64_t run, const std::string& sql) {
  Sums out;
  auto q = s.db().Prepare(sql);
  EXPECT_TRUE(q.ok());
  q->Bind(1, run);
  while (q->Step()) out[q->Text(0)] = {q->Int(1), q->Int(2)};
  return out;
}

Sums KernelSums(Imported& im) {
  return Summary(im.store, im.run,
                 "SELECT string.value, n, total FROM kernel_summary JOIN string ON string.id = name_id "
                 "WHERE run_id = ?1");
}
Sums CallSums(Imported& im) {
  return Summary(im.store, im.run, "SELECT name, n, total FROM api_summary WHERE run_id = ?1");
}
Sums MemopSums(Imported& im) {  // "0": copies, "1": sets
  return Summary(im.store, im.run,
                 "SELECT operation = '[CUDA memset]', sum(n), sum(total) FROM memop_summary WHERE run_id = ?1 "
                 "GROUP BY 1");
}

int64_t Count(Imported& im, const std::string& sql) {
  auto q = im.store.db().Prepare(sql);
  EXPECT_TRUE(q.ok());
  q->Bind(1, im.run);
  return q->Step() ? q->Int(0) : -1;
}

// The trace's complete events of any of `cats`, per name.
Sums SumsOf(const nlohmann::json& trace, const std::set<std::string>& cats) {
  Sums out;
  for (const auto& cat : cats) {
    for (const auto& [name, s] : testing::SumsByName(trace, cat)) out[name].n += s.n, out[name].total += s.total;
  }
  return out;
}
Sum Total(const Sums& sums) {
  Sum t;
  for (const auto& [name, s] : sums) t.n += s.n, t.total += s.total;
  return t;
}

const std::set<std::string> kKernelCats = {"kernel", "Kernel"};
const std::set<std::string> kCallCats = {"cuda_runtime", "cuda_driver", "Runtime"};
const std::set<std::string> kCopyCats = {"gpu_memcpy", "Memcpy"};
const std::set<std::string> kSetCats = {"gpu_memset", "Memset"};

// A trace as text with its events first and then every header key, in the order given; the
// key "distributedInfo" across the end of the reader's first 256 KiB buffer that holds it (spaces
// before it put it there: the scan for it reads a buffer at a time).
std::string EventsFirst(const nlohmann::json& trace, const std::vector<std::string>& keys) {
  std::string text = "{\"traceEvents\": " + testing::TraceText(trace.at("traceEvents"));
  for (const auto& k : keys) {
    if (!trace.contains(k)) continue;
    text += ", ";
    constexpr size_t kBuffer = size_t{1} << 18;
    if (k == "distributedInfo") text.append(kBuffer - (text.size() + 8) % kBuffer, ' ');
    text += "\"" + k + "\": " + testing::TraceText(trace.at(k));
  }
  return text + "}\n";
}

std::string Write(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Kineto of April 2024 wrote "displayTimeUnit": "ns" as the document's last key, with times
// in microseconds to three decimals as every Kineto writes them: the trace imports with each
// kernel's launches and total time its own, the same as the recorded trace they came from;
// the key before the events, "ns" or "ms", changes nothing.
TEST(KinetoFormats, TimeUnitAfterTheEventsIsReadAsWritten) {
  const std::string name = "decoder_infer.pt2.4-ns.json.gz";
  const std::string text = testing::ReadGzip(KinetoData(name));
  ASSERT_TRUE(text.ends_with("\"displayTimeUnit\": \"ns\"}\n"));
  ASSERT_EQ(text.find("\"displayTimeUnit\""), text.rfind("\"displayTimeUnit\""));  // once: at the end
  const auto trace = ReadTraceJson(name);
  auto late = Import({KinetoData(name)});
  EXPECT_EQ(KernelSums(late), SumsOf(trace, kKernelCats));
  EXPECT_EQ(CallSums(late), SumsOf(trace, kCallCats));
  auto recorded = Import({KinetoData("decoder_infer.json.gz")});
  EXPECT_EQ(KernelSums(late), KernelSums(recorded));

  auto dir = TempDir::Make("kscope_kineto_formats");
  ASSERT_TRUE(dir.ok());
  auto ns_first = ReadTraceJson("decoder_infer.json.gz");
  ASSERT_EQ(ns_first.at("displayTimeUnit"), "ms");
  ns_first["displayTimeUnit"] = "ns";  // a nlohmann object writes its keys in order: before "traceEvents"
  auto first = Import({Write(*dir, "ns_first.json", testing::TraceText(ns_first))});
  EXPECT_EQ(KernelSums(first), KernelSums(recorded));
}

// Every header key after the events (deviceProperties, distributedInfo, the CUDA versions,
// displayTimeUnit): the DDP job's two traces, given in the opposite order, are the same run of
// two ranks as the recorded ones, with the same processes, GPU and CUDA version; alone, a
// trace still names its rank.
TEST(KinetoFormats, HeaderKeysAfterTheEventsImportAlike) {
  auto dir = TempDir::Make("kscope_kineto_formats");
  ASSERT_TRUE(dir.ok());
  std::vector<std::string> late;
  for (const std::string rank : {"1", "0"}) {
    const auto trace = ReadTraceJson("ddp_train_rank" + rank + ".json.gz");
    std::vector<std::string> keys;
    for (const auto& [k, v] : trace.items()) {
      if (k != "traceEvents") keys.push_back(k);
    }
    ASSERT_TRUE(trace.contains("distributedInfo"));
    late.push_back(Write(*dir, "late" + rank + ".json", EventsFirst(trace, keys)));
  }
  auto a = Import({KinetoData("ddp_train_rank1.json.gz"), KinetoData("ddp_train_rank0.json.gz")});
  auto b = Import(late);
  const std::string ranks = "SELECT rank, global_pid, pid, device, kernels, rank_from FROM run_rank WHERE run_id = ?1";
  auto rows = [&](Imported& im) {
    std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, std::string>> out;
    auto q = im.store.db().Prepare(ranks + " ORDER BY rank");
    EXPECT_TRUE(q.ok());
    q->Bind(1, im.run);
    while (q->Step()) out.emplace_back(q->Int(0), q->Int(1), q->Int(2), q->Int(3), q->Int(4), q->Text(5));
    return out;
  };
  ASSERT_EQ(rows(a).size(), 2u);
  EXPECT_EQ(rows(b), rows(a));
  EXPECT_EQ(KernelSums(b), KernelSums(a));
  auto run_a = a.store.GetRun(a.run);
  auto run_b = b.store.GetRun(b.run);
  ASSERT_TRUE(run_a.ok() && run_b.ok());
  EXPECT_EQ(run_b->manifest.gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(run_b->manifest.gpu, run_a->manifest.gpu);
  EXPECT_EQ(run_b->manifest.cuda_version, run_a->manifest.cuda_version);
  auto one = Import({late.front()});
  EXPECT_EQ(Count(one, "SELECT rank FROM run_rank WHERE run_id = ?1 AND rank_from = 'distributedInfo'"), 1);
}

// Each kernel's columns as the trace's arguments give them, whatever their spelling.
using KernelRow = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;
std::multiset<KernelRow> TraceKernelRows(const nlohmann::json& trace) {
  std::multiset<KernelRow> out;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.value("ph", "") != "X" || kKernelCats.count(e.value("cat", "")) == 0) continue;
    const auto& a = e.at("args");
    auto n = [](const nlohmann::json& v) { return v.get<int64_t>(); };
    out.emplace(n(a.at("correlation")), n(a.at("device")), n(a.at("stream")), n(a.at("registers per thread")),
                n(a.at("grid")[0]), n(a.at("block")[0]));
  }
  return out;
}
std::multiset<KernelRow> StoredKernelRows(Imported& im) {
  namespace k = store::kernel;
  auto c = store::ReadColumns(im.store.db(), im.run, store::kKernelStream,
                              {k::kCorrelation, k::kDevice, k::kStream, k::kRegisters, k::kGridX, k::kBlockX});
  EXPECT_TRUE(c.ok());
  std::multiset<KernelRow> out;
  for (size_t i = 0; c.ok() && i < (*c)[0].size(); ++i) {
    out.emplace((*c)[0][i], (*c)[1][i], (*c)[2][i], (*c)[3][i], (*c)[4][i], (*c)[5][i]);
  }
  return out;
}

// The shapes PyTorch 1.8 to 2.6 wrote (capitalized categories, "Runtime", "Operator", whole
// microseconds, "external id", "Input dims", thread ids as strings, the time unit last): each
// imports with every kernel's and CUDA function's launches and total time, the sets, each
// kernel's launch configuration and the ops' shapes its own, and no category left unread.
TEST(KinetoFormats, EveryOlderShapeImportsItsOwnSums) {
  const std::string unlaunched = "SELECT count(*) FROM import_problem WHERE run_id = ?1 AND what LIKE 'GPU operation%'";
  auto recorded = Import({KinetoData("decoder_infer.json.gz")});
  for (const std::string shape : {"pt1.8", "pt1.10", "pt1.11", "pt1.13", "pt2.4-ns"}) {
    SCOPED_TRACE(shape);
    const std::string name = "decoder_infer." + shape + ".json.gz";
    const auto trace = ReadTraceJson(name);
    auto im = Import({KinetoData(name)});
    const auto kernels = SumsOf(trace, kKernelCats);
    ASSERT_GT(kernels.size(), 10u);
    EXPECT_EQ(KernelSums(im), kernels);
    EXPECT_EQ(CallSums(im), SumsOf(trace, kCallCats));
    EXPECT_EQ(MemopSums(im)["1"], Total(SumsOf(trace, kSetCats)));
    EXPECT_EQ(StoredKernelRows(im), TraceKernelRows(trace));
    EXPECT_GT(Count(im, "SELECT count(*) FROM nvtx_summary WHERE run_id = ?1 AND range LIKE ':aten::%, sizes = [[%'"),
              0);
    EXPECT_EQ(Count(im, "SELECT count(*) FROM import_problem WHERE run_id = ?1 AND what LIKE '%category%'"), 0);
    EXPECT_EQ(Count(im, unlaunched), Count(recorded, unlaunched));  // every kernel linked as in the recorded trace
  }
}

// PyTorch 1.8 and 1.9 wrote the profiler's steps and record_function ranges as ops
// ("Operator"), copies as "Memcpy", and a peer-to-peer copy's device as "inDevice": the training
// trace so written has ProfilerStep as a stage of its three steps, and its copies' bytes,
// times and devices, as the trace sums them.
TEST(KinetoFormats, OperatorStepsAndCapitalizedCopies) {
  auto dir = TempDir::Make("kscope_kineto_formats");
  ASSERT_TRUE(dir.ok());
  const std::map<std::string, std::string> old_cats = {{"cpu_op", "Operator"},     {"user_annotation", "Operator"},
                                                       {"kernel", "Kernel"},       {"gpu_memcpy", "Memcpy"},
                                                       {"gpu_memset", "Memset"},   {"cuda_runtime", "Runtime"},
                                                       {"cuda_driver", "Runtime"}, {"gpu_user_annotation", "User"}};
  auto trace = ReadTraceJson("decoder_train.json.gz");
  std::multiset<int64_t> copy_devices;
  for (auto& e : trace.at("traceEvents")) {
    const auto cat = old_cats.find(e.value("cat", ""));
    if (e.value("ph", "") != "X" || cat == old_cats.end()) continue;
    if (cat->first == "gpu_memcpy") {
      auto& a = e.at("args");
      a["inDevice"] = a.at("device");
      a["inContext"] = a.at("context");
      a.erase("device");
      a.erase("context");
      copy_devices.insert(a.at("inDevice").get<int64_t>());
    }
    e["cat"] = cat->second;
  }
  ASSERT_GT(copy_devices.size(), 10u);
  auto im = Import({Write(*dir, "pt18_train.json", testing::TraceText(trace))});
  Sum steps;
  for (const auto& [name, s] : testing::SumsByName(trace, "Operator")) {
    if (name.starts_with("ProfilerStep#")) steps.n += s.n, steps.total += s.total;
  }
  EXPECT_EQ(steps.n, 3);
  EXPECT_EQ(Summary(im.store, im.run, "SELECT range, n, total FROM nvtx_summary WHERE run_id = ?1")[":ProfilerStep"],
            steps);
  EXPECT_EQ(KernelSums(im), SumsOf(trace, kKernelCats));
  auto memops = MemopSums(im);
  EXPECT_EQ(memops["0"], Total(SumsOf(trace, kCopyCats)));
  EXPECT_EQ(memops["1"], Total(SumsOf(trace, kSetCats)));
  namespace m = store::memop;
  auto c = store::ReadColumns(im.store.db(), im.run, store::kMemopStream, {m::kDevice, m::kIsMemset});
  ASSERT_TRUE(c.ok());
  std::multiset<int64_t> stored;
  for (size_t i = 0; i < (*c)[0].size(); ++i) {
    if ((*c)[1][i] == 0) stored.insert((*c)[0][i]);
  }
  EXPECT_EQ(stored, copy_devices);
}

}  // namespace
}  // namespace kscope
