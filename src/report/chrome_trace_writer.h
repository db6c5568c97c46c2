// The Chrome Trace Event Format (the JSON that ui.perfetto.dev and chrome://tracing open),
// written event by event to a file: {"traceEvents": [...], "displayTimeUnit": "ns", "metadata": {...}}.
// Nothing is held but a buffer of about a megabyte; the file appears whole or not at all
// (util/atomic_file.h).
//
// Times are given in ns and written as the format's microseconds with three decimals, by
// integer arithmetic (1234567 ns -> 1234.567), so that no nanosecond is lost on the way.
// Every name and every text argument goes through nlohmann::json's serializer (text that is
// not UTF-8 is replaced, never fatal); a name written many times (a kernel's, a CUDA
// function's) is escaped once, as a JsonString.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "util/atomic_file.h"
#include "util/status.h"

namespace kscope::report {

// A track: a process and one of its threads (the format's pid and tid).
struct TraceTrack {
  int64_t pid = 0, tid = 0;
};

// `ns` as microseconds with three decimals: 1234567 -> "1234.567", -5 -> "-0.005".
std::string MicrosText(int64_t ns);

// Text as a JSON string, quotes included, escaped by nlohmann's serializer.
class JsonString {
 public:
  explicit JsonString(std::string_view text);
  [[nodiscard]] const std::string& json() const { return json_; }

 private:
  std::string json_;
};

// The arguments of one event: a JSON object. Keys are the caller's constants (letters, digits
// and '_', checked); text values are escaped.
class TraceArgs {
 public:
  TraceArgs& Add(std::string_view key, int64_t value);
  TraceArgs& Add(std::string_view key, double value);  // not finite: null
  TraceArgs& Add(std::string_view key, bool value);
  TraceArgs& Add(std::string_view key, const JsonString& value);
  TraceArgs& Add(std::string_view key, std::string_view text);
  TraceArgs& Add(std::string_view key, const char* text) { return Add(key, std::string_view(text)); }
  TraceArgs& Add(std::string_view key, const std::array<int64_t, 3>& values);
  [[nodiscard]] bool empty() const { return fields_.empty(); }
  [[nodiscard]] const std::string& fields() const { return fields_; }  // "key":value,... without braces

 private:
  std::string& Key(std::string_view key);
  std::string fields_;
};

class ChromeTraceWriter {
 public:
  static Result<ChromeTraceWriter> Create(const std::filesystem::path& path);

  // A complete slice (ph X) from `start` for `dur` ns.
  void Slice(TraceTrack track, const JsonString& name, const JsonString& cat, int64_t start, int64_t dur,
             const TraceArgs& args = {});
  void Slice(TraceTrack track, std::string_view name, const JsonString& cat, int64_t start, int64_t dur,
             const TraceArgs& args = {});
  // An instant (ph i) on the track's thread.
  void Instant(TraceTrack track, std::string_view name, const JsonString& cat, int64_t at, const TraceArgs& args = {});
  // A flow's start (ph s) and finish (ph f, bound to the enclosing slice: "bp":"e"); each binds
  // to the slice open on its track at its time. `id` is the flow's, unique in the file.
  void FlowStart(TraceTrack track, const JsonString& cat, int64_t id, int64_t at);
  void FlowFinish(TraceTrack track, const JsonString& cat, int64_t id, int64_t at);
  // Metadata (ph M): names and the order of processes and threads.
  void ProcessName(int64_t pid, std::string_view name);
  void ProcessSortIndex(int64_t pid, int64_t index);
  void ThreadName(TraceTrack track, std::string_view name);
  void ThreadSortIndex(TraceTrack track, int64_t index);

  // Closes the event list, writes `metadata` (an object) and commits the file. The first error
  // of any write before comes back here.
  Status Finish(const nlohmann::json& metadata);

  [[nodiscard]] int64_t events() const { return events_; }
  [[nodiscard]] int64_t bytes() const { return bytes_; }

 private:
  explicit ChromeTraceWriter(AtomicFile file) : file_(std::move(file)) {}
  // An event: {"ph":..,"pid":..,"tid":..,"name":..,"cat":.. then the rest.
  void Begin(char phase, TraceTrack track, const std::string& name_json, const std::string& cat_json);
  void Time(std::string_view key, int64_t ns);
  void End(const TraceArgs& args);

  AtomicFile file_;
  std::string buffer_;
  Status error_;
  int64_t events_ = 0, bytes_ = 0;
};

}  // namespace kscope::report
