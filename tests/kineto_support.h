// The recorded PyTorch profiler traces of tests/data/kineto, read independently of kscope's
// importer: zlib's gzread and nlohmann::json's whole-document parse (the tests' reference, not
// kscope's streaming reader), and sums over the trace's own events.
#pragma once

#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kscope::testing {

inline std::string KinetoData(const std::string& name) { return std::string(KSCOPE_TEST_DATA_DIR) + "/kineto/" + name; }

// The whole inflated text of a .json.gz file.
inline std::string ReadGzip(const std::string& path) {
  std::string text;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return text;
  std::vector<char> buf(1 << 16);
  int n = 0;
  while ((n = gzread(f, buf.data(), static_cast<unsigned>(buf.size()))) > 0) text.append(buf.data(), n);
  gzclose(f);
  return text;
}

// The trace's text with every "ts" and "dur" number quoted, so that the reference parse keeps
// their digits (a double holds a timestamp of 4.9e15 ns only to a few ns).
inline std::string QuoteTimes(const std::string& text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t at = 0;
  while (at < text.size()) {
    size_t key = text.find("\"ts\": ", at);
    const size_t dur = text.find("\"dur\": ", at);
    size_t len = 6;
    if (dur < key) key = dur, len = 7;
    if (key == std::string::npos) break;
    size_t end = key + len;
    out.append(text, at, end - at);
    if (end < text.size() && text[end] != '"') {
      const size_t stop = text.find_first_of(",}\n ", end);
      out += '"' + text.substr(end, stop - end) + '"';
      end = stop;
    }
    at = end;
  }
  out.append(text, at, std::string::npos);
  return out;
}

// The compact dump of a trace read with QuoteTimes, its times unquoted again: a trace file.
inline std::string TraceText(const nlohmann::json& trace) {
  std::string text = trace.dump();
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    size_t key = text.find("\"ts\":\"", at);
    const size_t dur = text.find("\"dur\":\"", at);
    size_t len = 6;
    if (dur < key) key = dur, len = 7;
    if (key == std::string::npos) break;
    out.append(text, at, key + len - 1 - at);
    const size_t close = text.find('"', key + len);
    out.append(text, key + len, close - key - len);
    at = close + 1;
  }
  out.append(text, at, std::string::npos);
  return out;
}

inline nlohmann::json ReadTraceJson(const std::string& name) {
  return nlohmann::json::parse(QuoteTimes(ReadGzip(KinetoData(name))));
}

// "4915566494376.883" microseconds as nanoseconds, digit by digit (three decimals at most).
inline int64_t MicrosText(const std::string& us) {
  const size_t dot = us.find('.');
  std::string frac = dot == std::string::npos ? "" : us.substr(dot + 1);
  frac.resize(3, '0');
  return std::stoll(us.substr(0, dot)) * 1000 + std::stoll(frac);
}
inline int64_t TsNs(const nlohmann::json& e) { return MicrosText(e.at("ts").get<std::string>()); }
inline int64_t DurNs(const nlohmann::json& e) { return MicrosText(e.at("dur").get<std::string>()); }

struct Sum {
  int64_t n = 0, total = 0;
  bool operator==(const Sum&) const = default;
};

// Per name, the count and summed duration of the trace's complete events of category `cat`.
inline std::map<std::string, Sum> SumsByName(const nlohmann::json& trace, const std::string& cat) {
  std::map<std::string, Sum> sums;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.value("ph", "") != "X" || e.value("cat", "") != cat) continue;
    Sum& s = sums[e.at("name").get<std::string>()];
    ++s.n;
    s.total += DurNs(e);
  }
  return sums;
}

}  // namespace kscope::testing
