#include "report/chrome_trace_writer.h"

#include <fmt/format.h>

#include <cassert>
#include <cmath>

namespace kscope::report {

namespace {

constexpr size_t kFlushBytes = size_t{1} << 20;

const JsonString& Metadata() {
  static const JsonString kCat("__metadata");
  return kCat;
}

}  // namespace

std::string MicrosText(int64_t ns) {
  // Through unsigned arithmetic, so that the most negative value has a magnitude too.
  const bool negative = ns < 0;
  const uint64_t magnitude = negative ? uint64_t{0} - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  return fmt::format("{}{}.{:03}", negative ? "-" : "", magnitude / 1000, magnitude % 1000);
}

JsonString::JsonString(std::string_view text)
    : json_(nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) {}

std::string& TraceArgs::Key(std::string_view key) {
  assert(!key.empty() && key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string_view::npos);
  if (!fields_.empty()) fields_ += ',';
  fields_ += '"';
  fields_ += key;
  fields_ += "\":";
  return fields_;
}

TraceArgs& TraceArgs::Add(std::string_view key, int64_t value) {
  fmt::format_to(std::back_inserter(Key(key)), "{}", value);
  return *this;
}

TraceArgs& TraceArgs::Add(std::string_view key, double value) {
  if (std::isfinite(value)) {
    fmt::format_to(std::back_inserter(Key(key)), "{}", value);
  } else {
    Key(key) += "null";
  }
  return *this;
}

TraceArgs& TraceArgs::Add(std::string_view key, bool value) {
  Key(key) += value ? "true" : "false";
  return *this;
}

TraceArgs& TraceArgs::Add(std::string_view key, const JsonString& value) {
  Key(key) += value.json();
  return *this;
}

TraceArgs& TraceArgs::Add(std::string_view key, std::string_view text) { return Add(key, JsonString(text)); }

TraceArgs& TraceArgs::Add(std::string_view key, const std::array<int64_t, 3>& values) {
  fmt::format_to(std::back_inserter(Key(key)), "[{},{},{}]", values[0], values[1], values[2]);
  return *this;
}

Result<ChromeTraceWriter> ChromeTraceWriter::Create(const std::filesystem::path& path) {
  auto file = AtomicFile::Create(path);
  if (!file.ok()) return file.error();
  ChromeTraceWriter writer(std::move(*file));
  writer.buffer_.reserve(kFlushBytes + 4096);
  writer.buffer_ = R"({"traceEvents":[)";
  return writer;
}

void ChromeTraceWriter::Begin(char phase, TraceTrack track, const std::string& name_json, const std::string& cat_json) {
  buffer_ += events_ == 0 ? "\n" : ",\n";
  ++events_;
  fmt::format_to(std::back_inserter(buffer_), R"({{"ph":"{}","pid":{},"tid":{},"name":)", phase, track.pid, track.tid);
  buffer_ += name_json;
  buffer_ += R"(,"cat":)";
  buffer_ += cat_json;
}

void ChromeTraceWriter::Time(std::string_view key, int64_t ns) {
  buffer_ += ",\"";
  buffer_ += key;
  buffer_ += "\":";
  buffer_ += MicrosText(ns);
}

void ChromeTraceWriter::End(const TraceArgs& args) {
  if (!args.empty()) {
    buffer_ += R"(,"args":{)";
    buffer_ += args.fields();
    buffer_ += '}';
  }
  buffer_ += '}';
  if (buffer_.size() < kFlushBytes) return;
  if (error_.ok()) error_ = file_.Write(buffer_);
  bytes_ += static_cast<int64_t>(buffer_.size());
  buffer_.clear();
}

void ChromeTraceWriter::Slice(TraceTrack track, const JsonString& name, const JsonString& cat, int64_t start,
                              int64_t dur, const TraceArgs& args) {
  Begin('X', track, name.json(), cat.json());
  Time("ts", start);
  Time("dur", dur);
  End(args);
}

void ChromeTraceWriter::Slice(TraceTrack track, std::string_view name, const JsonString& cat, int64_t start,
                              int64_t dur, const TraceArgs& args) {
  Slice(track, JsonString(name), cat, start, dur, args);
}

void ChromeTraceWriter::Instant(TraceTrack track, std::string_view name, const JsonString& cat, int64_t at,
                                const TraceArgs& args) {
  Begin('i', track, JsonString(name).json(), cat.json());
  buffer_ += R"(,"s":"t")";
  Time("ts", at);
  End(args);
}

void ChromeTraceWriter::FlowStart(TraceTrack track, const JsonString& cat, int64_t id, int64_t at) {
  Begin('s', track, cat.json(), cat.json());
  fmt::format_to(std::back_inserter(buffer_), R"(,"id":{})", id);
  Time("ts", at);
  End({});
}

void ChromeTraceWriter::FlowFinish(TraceTrack track, const JsonString& cat, int64_t id, int64_t at) {
  Begin('f', track, cat.json(), cat.json());
  fmt::format_to(std::back_inserter(buffer_), R"(,"id":{})", id);
  Time("ts", at);
  buffer_ += R"(,"bp":"e")";
  End({});
}

void ChromeTraceWriter::ProcessName(int64_t pid, std::string_view name) {
  Begin('M', {pid, 0}, JsonString("process_name").json(), Metadata().json());
  End(TraceArgs().Add("name", name));
}

void ChromeTraceWriter::ProcessSortIndex(int64_t pid, int64_t index) {
  Begin('M', {pid, 0}, JsonString("process_sort_index").json(), Metadata().json());
  End(TraceArgs().Add("sort_index", index));
}

void ChromeTraceWriter::ThreadName(TraceTrack track, std::string_view name) {
  Begin('M', track, JsonString("thread_name").json(), Metadata().json());
  End(TraceArgs().Add("name", name));
}

void ChromeTraceWriter::ThreadSortIndex(TraceTrack track, int64_t index) {
  Begin('M', track, JsonString("thread_sort_index").json(), Metadata().json());
  End(TraceArgs().Add("sort_index", index));
}

Status ChromeTraceWriter::Finish(const nlohmann::json& metadata) {
  buffer_ += R"(
],"displayTimeUnit":"ns","metadata":)";
  buffer_ += metadata.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  buffer_ += "}\n";
  if (error_.ok()) error_ = file_.Write(buffer_);
  bytes_ += static_cast<int64_t>(buffer_.size());
  buffer_.clear();
  KSCOPE_RETURN_IF_ERROR(error_);
  return file_.Commit();
}

}  // namespace kscope::report
