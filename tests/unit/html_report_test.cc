// report.html: the embedded JSON and Vega modules, the page's sections against golden files for
// the reports of the devset's Llama run (with ncu data, the model of examples/llama_devset.yaml) and
// tiny_cuda run (nsys only), what an empty report gives; the Vega built in is Debian's, and
// $KSCOPE_VEGA_DIR replaces it.
// tests/html/check_report.py looks at the pages in Chromium.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "config/config.h"
#include "import/import_files.h"
#include "report/html_sections.h"
#include "report/run_report.h"
#include "report/run_report_json.h"
#include "report/vega_runtime.h"
#include "test_support.h"

namespace kscope {
namespace {

// The report of a devset run as kscope report makes it, without the time of its import.
report::RunReport DevsetReport(const std::vector<std::string>& files, const std::string& config_file) {
  auto store = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  EXPECT_TRUE(store.ok());
  auto imported = import::ImportFiles(*store, files, {});
  EXPECT_TRUE(imported.ok()) << imported.error().Line();
  auto config = config::LoadConfig(config_file);
  EXPECT_TRUE(config.ok()) << config.error().Line();
  auto report = report::BuildRunReport(*store, imported->front().run_id, *config);
  EXPECT_TRUE(report.ok()) << report.error().Line();
  report->run.imported_at.clear();
  return std::move(report).value();
}

std::string Page(const report::RunReport& report) {
  std::ostringstream out;
  const Status st = report::WriteHtmlReport(report, out);
  EXPECT_TRUE(st.ok()) << st.error().Line();
  return out.str();
}

// The text between the first `open` and the `close` after it.
std::string Between(const std::string& text, const std::string& open, const std::string& close) {
  const size_t start = text.find(open);
  if (start == std::string::npos) return "(no " + open + ")";
  const size_t end = text.find(close, start + open.size());
  return text.substr(start + open.size(), end - start - open.size());
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

void ExpectGolden(const std::string& out, const std::string& name) {
  const std::string golden = std::string(KSCOPE_TEST_DATA_DIR) + "/report/" + name;
  if (out != testing::ReadFile(golden)) {
    const std::string actual = name + ".actual";
    std::ofstream(actual) << out;
    ADD_FAILURE() << "differs from " << golden << "; what came out is in " << actual;
  }
}

// Sets an environment variable for one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(HtmlReport, LlamaPageEmbedsTheReportAndTheVegaModules) {
  const std::string data = std::string(KSCOPE_TEST_DATA_DIR) + "/";
  const report::RunReport report = DevsetReport(
      {testing::NsysData("llama.sqlite"), data + "ncu/llama_deep_raw.csv", data + "ncu/llama_deep_details.csv"},
      std::string(KSCOPE_SOURCE_DIR) + "/examples/llama_devset.yaml");
  const std::string page = Page(report);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_EQ(page.substr(page.size() - 8), "</html>\n");
  // Three scripts (the report, Vega, the charts), so three ends, and nothing else ends one.
  EXPECT_EQ(Count(page, "</script"), 3u);
  EXPECT_EQ(Count(page, "<!--"), 0u);
  const std::string embedded = Between(page, R"(<script type="application/json" id="kscope-report">)", "</script>");
  EXPECT_EQ(embedded.find('<'), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(embedded), report::ToJson(report));
  for (std::string_view module : report::VegaModules()) {
    EXPECT_EQ(Count(page, "kscopeVegaModule('" + std::string(module) + "', function"), 1u) << module;
  }
  ExpectGolden(Between(page, "<main>\n", "</main>"), "llama_sections.html");
}

TEST(HtmlReport, TinyCudaPageWithoutNcuDataSaysThereIsNoRoofline) {
  const std::string page = Page(DevsetReport({testing::NsysData("tiny_cuda.sqlite")}, ""));
  // Top kernels, stages, bottleneck mix, timeline and the critical path of an iteration.
  EXPECT_EQ(Count(page, R"(data-state="pending"><div class="chart-canvas">)"), 5u);
  EXPECT_EQ(Count(page, R"(<div class="chart" data-chart="roofline" data-state="empty">)"), 1u);
  ExpectGolden(Between(page, "<main>\n", "</main>"), "tiny_cuda_sections.html");
}

TEST(HtmlReport, EmptyReportSaysWhyEachChartIsMissing) {
  std::ostringstream out;
  const report::RunReport empty;
  report::WriteTopKernelsSection(empty, out);
  report::WriteRooflineSection(empty, out);
  report::WriteStagesSection(empty, out);
  report::WriteBottleneckMixSection(empty, out);
  report::WriteTimelineSection(empty, out);
  report::WriteNotesSection(empty, out);
  EXPECT_EQ(out.str(),
            "<section id=\"top-kernels\">\n<h2>Top kernels by GPU time</h2>\n"
            "<div class=\"chart\" data-chart=\"top-kernels\" data-state=\"empty\"><p class=\"chart-empty\">"
            "This run has no kernels.</p></div>\n</section>\n"
            "<section id=\"roofline\">\n<h2>Roofline</h2>\n"
            "<div class=\"chart\" data-chart=\"roofline\" data-state=\"empty\"><p class=\"chart-empty\">"
            "No roofline: no kernel of this run was profiled with ncu&#39;s roofline metrics. Profile it with kscope "
            "profile, or import ncu results collected with --set roofline (or --set full).</p></div>\n</section>\n"
            "<section id=\"stages\">\n<h2>Stages (NVTX ranges) and MFU</h2>\n"
            "<div class=\"chart\" data-chart=\"stages\" data-state=\"empty\"><p class=\"chart-empty\">"
            "This run has no NVTX ranges: mark its phases (torch.cuda.nvtx.range_push/pop, nvtxRangePush) to see "
            "time, MFU and findings per stage.</p></div>\n</section>\n"
            "<section id=\"bottleneck-mix\">\n<h2>GPU time by bottleneck</h2>\n"
            "<div class=\"chart\" data-chart=\"bottleneck-mix\" data-state=\"empty\"><p class=\"chart-empty\">"
            "No kernel time to divide by bottleneck.</p></div>\n</section>\n"
            "<section id=\"timeline\">\n<h2>Timeline: GPU idle and busy</h2>\n"
            "<div class=\"chart\" data-chart=\"timeline\" data-state=\"empty\"><p class=\"chart-empty\">"
            "The run has no GPU activity to show.</p></div>\n</section>\n");
}

// A kernel ncu did not profile: no class, its figures n/a.
TEST(HtmlReport, AKernelWithoutNcuDataIsNotProfiled) {
  report::RunReport report;
  report.top_kernels.push_back({.rank = 1, .name = "a<b>", .launches = 3, .total_ns = 12, .share_pct = 50.0});
  std::ostringstream out;
  report::WriteTopKernelsSection(report, out);
  EXPECT_NE(out.str().find("<tr><td class=\"num\">1</td><td class=\"name\">a&lt;b&gt;</td><td></td><td></td>"
                           "<td class=\"num\">3</td><td class=\"num\">12 ns</td><td class=\"num\">0 ns</td>"
                           "<td class=\"num\">50.0%</td><td class=\"num\">n/a</td><td class=\"num\">-</td>"
                           "<td>not profiled</td>"
                           "<td class=\"num\">n/a</td>"
                           "<td class=\"num\">n/a</td><td class=\"num\">n/a</td><td class=\"num\">n/a</td>"
                           "<td class=\"num\">n/a</td><td></td></tr>"),
            std::string::npos)
      << out.str();
}

TEST(HtmlReport, VegaBuiltIntoKscopeIsDebiansLibjsVega) {
  ASSERT_EQ(report::VegaModules().size(), 19u);
  for (std::string_view module : report::VegaModules()) {
    const std::string package_file = std::string(KSCOPE_VEGA_SOURCE_DIR) + "/" + std::string(module) + ".min.js";
    EXPECT_EQ(report::EmbeddedVegaModule(module), testing::ReadFile(package_file)) << module;
  }
  ScopedEnv env("KSCOPE_VEGA_DIR", "");  // empty: the modules built in
  const Result<std::string> script = report::VegaRuntimeScript(report::VegaOverrideDir());
  ASSERT_TRUE(script.ok()) << script.error().Line();
  for (std::string_view module : report::VegaModules()) {
    EXPECT_EQ(Count(*script, "kscopeVegaModule('" + std::string(module) + "', function (exports, module, require) {\n" +
                                 std::string(report::EmbeddedVegaModule(module)) + "\n});\n"),
              1u)
        << module;
  }
}

TEST(HtmlReport, KscopeVegaDirReplacesTheBuiltInModules) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "kscope_other_vega";
  std::filesystem::create_directories(dir);
  for (std::string_view module : report::VegaModules()) {
    std::ofstream(dir / (std::string(module) + ".min.js")) << "/* another " << module << " */";
  }
  ScopedEnv env("KSCOPE_VEGA_DIR", dir.string());
  const Result<std::string> script = report::VegaRuntimeScript(report::VegaOverrideDir());
  ASSERT_TRUE(script.ok()) << script.error().Line();
  EXPECT_EQ(Count(*script, "/* another "), 19u);
  EXPECT_EQ(Count(*script, std::string(report::EmbeddedVegaModule("vega-util"))), 0u);
  std::filesystem::remove_all(dir);
}

TEST(HtmlReport, KscopeVegaDirWithoutTheModulesSaysHowToFixIt) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "kscope_no_vega";
  std::filesystem::create_directories(dir);
  ScopedEnv env("KSCOPE_VEGA_DIR", dir.string());
  std::ostringstream out;
  const Status st = report::WriteHtmlReport(report::RunReport{}, out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().Line(), "kscope: error: " + (dir / "vega-util.min.js").string() +
                                   ": Vega's JavaScript module vega-util is missing or unreadable; KSCOPE_VEGA_DIR "
                                   "points at this folder: unset it to use the Vega built into kscope, or point it at "
                                   "a folder with Vega 5's vega-*.min.js modules");
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace kscope
