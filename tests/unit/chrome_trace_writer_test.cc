// The Chrome JSON writer (report/chrome_trace_writer.h): exact microseconds from integer ns,
// names and text arguments escaped by a real JSON writer (quotes, control characters, text
// that is not UTF-8), and the file parsed back whole and line by line.
#include "report/chrome_trace_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <limits>

#include "perfetto_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("kscope_trace_writer_" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(ChromeTraceWriter, WritesExactMicroseconds) {
  EXPECT_EQ(report::MicrosText(0), "0.000");
  EXPECT_EQ(report::MicrosText(7), "0.007");
  EXPECT_EQ(report::MicrosText(999), "0.999");
  EXPECT_EQ(report::MicrosText(1000), "1.000");
  EXPECT_EQ(report::MicrosText(19513007554), "19513007.554");
  EXPECT_EQ(report::MicrosText(-5), "-0.005");
  EXPECT_EQ(report::MicrosText(-1234567), "-1234.567");
  EXPECT_EQ(report::MicrosText(std::numeric_limits<int64_t>::max()), "9223372036854775.807");
  EXPECT_EQ(report::MicrosText(std::numeric_limits<int64_t>::min()), "-9223372036854775.808");
}

TEST(ChromeTraceWriter, EscapesEveryNameAndParsesBack) {
  const fs::path file = TempDir("writer") / "names.json";
  auto w = report::ChromeTraceWriter::Create(file);
  ASSERT_TRUE(w.ok()) << w.error().Line();
  const std::string odd = "quote\" back\\slash\nnew line\ttab \x01 ctrl </script> {\"ts\":1.000}";
  w->ProcessName(1, odd);
  w->ThreadName({1, 2}, odd);
  w->Slice({1, 2}, odd, report::JsonString("cat\""), 1500, 2,
           report::TraceArgs().Add("full_name", odd).Add("grid", std::array<int64_t, 3>{1, 2, 3}).Add("pct", 0.5));
  w->Slice(
      {1, 2}, "not utf-8: \xff\xfe", report::JsonString("kernel"), 2000, 1,
      report::TraceArgs().Add("inf", std::numeric_limits<double>::infinity()).Add("flag", true).Add("text", "plain"));
  w->Instant({1, 2}, odd, report::JsonString("nvtx"), 3000);
  w->FlowStart({1, 2}, report::JsonString("launch"), 1, 1500);
  w->FlowFinish({1, 2}, report::JsonString("launch"), 1, 2000);
  ASSERT_TRUE(w->Finish({{"note", odd}}).ok());
  const testing::ReadTrace t = testing::ParseTrace(file.string());
  ASSERT_EQ(t.events.size(), 7U);
  EXPECT_EQ(t.process.at(1), odd);
  EXPECT_EQ(t.thread.at({1, 2}), odd);
  EXPECT_EQ(t.events[2].name(), odd);
  EXPECT_EQ(t.events[2].cat(), "cat\"");
  EXPECT_EQ(t.events[2].ts, "1.500");
  EXPECT_EQ(t.events[2].dur, "0.002");
  EXPECT_EQ(t.events[2].json["args"]["full_name"], odd);
  EXPECT_EQ(t.events[2].json["args"]["grid"], nlohmann::json::array({1, 2, 3}));
  EXPECT_EQ(t.events[2].json["args"]["pct"], 0.5);
  EXPECT_EQ(t.events[3].name(), "not utf-8: \xEF\xBF\xBD\xEF\xBF\xBD");  // replaced, not fatal
  EXPECT_TRUE(t.events[3].json["args"]["inf"].is_null());
  EXPECT_EQ(t.events[3].json["args"]["flag"], true);
  EXPECT_EQ(t.events[3].json["args"]["text"], "plain");
  EXPECT_EQ(t.events[4].ph(), "i");
  EXPECT_EQ(t.events[6].json["bp"], "e");
  EXPECT_EQ(t.whole["metadata"]["note"], odd);
  fs::remove_all(file.parent_path().parent_path());
}

TEST(ChromeTraceWriter, AFolderThatIsNotThereIsAnError) {
  auto w = report::ChromeTraceWriter::Create(TempDir("writer") / "missing" / "trace.json");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().fix.find("folder exists"), std::string::npos) << w.error().Line();
  fs::remove_all(fs::temp_directory_path() / ("kscope_trace_writer_" + std::to_string(getpid())));
}

}  // namespace
}  // namespace kscope
