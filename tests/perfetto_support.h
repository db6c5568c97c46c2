// A Chrome JSON trace that kscope export --perfetto wrote (report/perfetto_trace.h), read back:
// the whole file parsed by nlohmann (it must be one valid JSON document), and each event on
// its own line parsed again with the raw text of its ts and dur (the exact decimals written).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "import/import_files.h"
#include "report/perfetto_trace.h"
#include "test_support.h"
#include "util/sqlite.h"
#include "zoo_support.h"

namespace kscope::testing {

struct TraceEvent {
  nlohmann::json json;
  std::string ts, dur;  // as written: "1234.567"; empty when absent
  [[nodiscard]] std::string ph() const { return json.value("ph", ""); }
  [[nodiscard]] std::string cat() const { return json.value("cat", ""); }
  [[nodiscard]] std::string name() const { return json.value("name", ""); }
  [[nodiscard]] int64_t pid() const { return json.value("pid", int64_t{-1}); }
  [[nodiscard]] int64_t tid() const { return json.value("tid", int64_t{-1}); }
};

struct ReadTrace {
  nlohmann::json whole;
  std::vector<TraceEvent> events;
  std::map<int64_t, std::string> process;                     // pid -> process_name
  std::map<std::pair<int64_t, int64_t>, std::string> thread;  // (pid, tid) -> thread_name

  [[nodiscard]] std::string ThreadOf(const TraceEvent& e) const {
    const auto it = thread.find({e.pid(), e.tid()});
    return it == thread.end() ? std::string() : it->second;
  }
  [[nodiscard]] std::string ProcessOf(const TraceEvent& e) const {
    const auto it = process.find(e.pid());
    return it == process.end() ? std::string() : it->second;
  }
};

// "1234.567" -> 1234567 (the ns the text says, digit by digit).
inline int64_t NsOf(const std::string& micros) {
  const auto dot = micros.find('.');
  EXPECT_NE(dot, std::string::npos) << micros;
  EXPECT_EQ(micros.size() - dot, 4U) << micros << ": not three decimals";
  std::string digits = micros.substr(0, dot) + micros.substr(dot + 1);
  return std::stoll(digits);
}

// The text kscope must write for `ns`: ns / 1000, a point, three digits (ns >= 0).
inline std::string MicrosOf(int64_t ns) {
  std::ostringstream s;
  s << ns / 1000 << '.' << (ns % 1000) / 100 << (ns % 100) / 10 << ns % 10;
  return s.str();
}

inline ReadTrace ParseTrace(const std::string& path) {
  ReadTrace t;
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  t.whole = nlohmann::json::parse(text);  // throws (fails the test) unless the file is one JSON document
  std::istringstream lines(text);
  std::string line;
  static const std::regex ts(R"re("ts":(-?[0-9]+\.[0-9]+)[,}])re"), dur(R"re("dur":(-?[0-9]+\.[0-9]+)[,}])re");
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '{' || line.rfind("{\"traceEvents\"", 0) == 0) continue;
    if (line.back() == ',') line.pop_back();
    TraceEvent e;
    e.json = nlohmann::json::parse(line);
    std::smatch m;
    if (std::regex_search(line, m, ts)) e.ts = m[1];
    if (std::regex_search(line, m, dur)) e.dur = m[1];
    if (e.ph() == "M" && e.name() == "process_name") t.process[e.pid()] = e.json["args"]["name"];
    if (e.ph() == "M" && e.name() == "thread_name") t.thread[{e.pid(), e.tid()}] = e.json["args"]["name"];
    t.events.push_back(std::move(e));
  }
  EXPECT_EQ(t.events.size(), t.whole["traceEvents"].size()) << "one event per line";
  return t;
}

// The slice each flow event of `t` binds to as Perfetto's JSON importer binds it: events taken
// in time order (ties in file order); on each track a stack of the slices open, one popped once
// a later slice starts at or after its end; a flow event binds to the top of its track's stack
// (trace_processor's SliceTracker::MaybeCloseStack and FlowTracker). Per event: the bound
// slice, or null (for events that are not flows, or with no slice open).
inline std::vector<const TraceEvent*> BindFlows(const ReadTrace& t) {
  std::vector<size_t> order;
  std::vector<int64_t> ts(t.events.size(), 0);
  for (size_t i = 0; i < t.events.size(); ++i) {
    if (t.events[i].ts.empty()) continue;
    ts[i] = NsOf(t.events[i].ts);
    order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ts[a] < ts[b]; });
  std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> stacks;
  std::vector<const TraceEvent*> bound(t.events.size(), nullptr);
  for (const size_t i : order) {
    const TraceEvent& e = t.events[i];
    auto& stack = stacks[{e.pid(), e.tid()}];
    const std::string ph = e.ph();
    if (ph == "X") {
      const int64_t dur = NsOf(e.dur);
      while (!stack.empty()) {
        const TraceEvent& top = t.events[stack.back()];
        const int64_t top_dur = NsOf(top.dur), top_end = ts[stack.back()] + top_dur;
        if (top_end < ts[i] || (top_end == ts[i] && !(top_dur == 0 && dur == 0))) {
          stack.pop_back();
        } else {
          break;
        }
      }
      stack.push_back(i);
    } else if ((ph == "s" || ph == "f" || ph == "t") && !stack.empty()) {
      bound[i] = &t.events[stack.back()];
    }
  }
  return bound;
}

// Rows of a query over a file opened read-only (an nsys export), each column as text.
inline std::vector<std::vector<std::string>> SqlRows(const std::string& file, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  auto db = sql::Db::Open(file, sql::OpenMode::kReadOnly);
  EXPECT_TRUE(db.ok());
  if (!db.ok()) return rows;
  auto q = db->Prepare(sql);
  EXPECT_TRUE(q.ok()) << sql;
  if (!q.ok()) return rows;
  while (q->Step()) {
    std::vector<std::string> row;
    for (int c = 0; c < sqlite3_column_count(q->raw()); ++c) row.push_back(q->IsNull(c) ? "NULL" : q->Text(c));
    rows.push_back(std::move(row));
  }
  return rows;
}

inline bool HasTable(const std::string& file, const std::string& table) {
  return !SqlRows(file, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '" + table + "'").empty();
}

// A data set imported once per process into a store of its own: "tiny_cuda" (the devset's
// tiny CUDA program) or a zoo model.
struct Imported {
  std::optional<store::Store> store;
  int64_t run = 0;
  std::string file;  // the nsys export
};

inline Imported& ImportOnce(const std::string& data) {
  static std::map<std::string, std::unique_ptr<Imported>> cache;
  auto& slot = cache[data];
  if (slot) return *slot;
  slot = std::make_unique<Imported>();
  Imported& x = *slot;
  auto store = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  EXPECT_TRUE(store.ok());
  x.store.emplace(std::move(*store));
  if (data == "tiny_cuda") {
    x.file = NsysData("tiny_cuda.sqlite");
    auto imported = import::ImportFiles(*x.store, {x.file}, {});
    EXPECT_TRUE(imported.ok());
    x.run = imported.ok() ? imported->front().run_id : -1;
  } else {
    x.file = ZooFile(data, "discovery.sqlite");
    x.run = ImportZoo(*x.store, data);
  }
  EXPECT_GT(x.run, 0);
  return x;
}

struct Exported {
  store::Store* store = nullptr;
  int64_t run = 0;
  std::string file;  // the nsys export
  report::PerfettoSummary summary;
  ReadTrace trace;
};

// `data` exported once per process with at most `max_launch` launch arrows and `max_path`
// critical path arrows, and read back.
inline Exported& ExportOf(const std::string& data, size_t max_launch = 20000, size_t max_path = 20000) {
  static std::map<std::tuple<std::string, size_t, size_t>, std::unique_ptr<Exported>> cache;
  auto& slot = cache[{data, max_launch, max_path}];
  if (slot) return *slot;
  Imported& in = ImportOnce(data);
  slot = std::make_unique<Exported>();
  Exported& x = *slot;
  x.store = &*in.store;
  x.run = in.run;
  x.file = in.file;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kscope_perfetto_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / (data + "_" + std::to_string(max_launch) + "_" + std::to_string(max_path) + ".json");
  auto written = report::WritePerfettoTrace(*x.store, x.run, path, analysis::AnalysisOptions{}, {max_launch, max_path});
  EXPECT_TRUE(written.ok()) << written.error().Line();
  if (written.ok()) x.summary = *written;
  x.trace = ParseTrace(path.string());
  std::error_code ec;
  std::filesystem::remove(path, ec);  // read: the test process keeps what it needs
  std::filesystem::remove(dir, ec);   // once empty
  return x;
}

}  // namespace kscope::testing
