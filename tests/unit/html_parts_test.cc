// The parts report.html is written with: escaping, JSON inside a script element, numbers for
// people, and the HTML table writer.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>

#include "report/display_numbers.h"
#include "report/html_escape.h"
#include "report/html_table.h"
#include "report/run_report.h"
#include "report/run_report_json.h"
#include "util/display_text.h"

namespace kscope::report {
namespace {

TEST(HtmlEscape, DevsetKernelName) {
  EXPECT_EQ(EscapeHtml("void at::native::vectorized_elementwise_kernel<(int)8, "
                       "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda(float) "
                       "(instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)"),
            "void at::native::vectorized_elementwise_kernel&lt;(int)8, "
            "at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &amp;)::[lambda(float) (instance 1)], "
            "std::array&lt;char *, (unsigned long)2&gt;&gt;(int, T2, T3)");
}

TEST(HtmlEscape, QuotesForAttributeValues) { EXPECT_EQ(EscapeHtml(R"(a "b" 'c')"), "a &quot;b&quot; &#39;c&#39;"); }

TEST(JsonForScript, NothingCanEndTheScriptElement) {
  const nlohmann::json value = {{"name", "</script><!-- a<b> && c"}};
  const std::string text = JsonForScript(value);
  EXPECT_EQ(text, R"({"name":"\u003c/script\u003e\u003c!-- a\u003cb\u003e \u0026\u0026 c"})");
  EXPECT_EQ(nlohmann::json::parse(text), value);
}

TEST(JsonForScript, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  const nlohmann::json value = {{"name", "kernel\xff"}};
  EXPECT_EQ(JsonForScript(value), "{\"name\":\"kernel\xEF\xBF\xBD\"}");
}

// Every text of a run's report as the views show it: a text that is not UTF-8 and holds a
// control character, put in each text field and map key, comes out of ForDisplay, as ToJson
// writes it, valid UTF-8 with the control character escaped.
TEST(ForDisplay, EveryTextOfTheRunReport) {
  const std::string odd = "x\xff\n";
  RunReport r;
  auto& m = r.run.manifest;
  for (auto* s : {&m.label, &m.model, &m.dtype, &m.gpu, &m.driver, &m.cuda_version, &m.ncu_version, &m.command,
                  &m.nsys_export_version, &m.nsys_tool_version}) {
    *s = odd;
  }
  m.tags = {{odd, odd}};
  r.run.status = r.run.imported_at = odd;
  const analysis::Finding finding{odd, odd, odd, 1, odd, odd};
  r.timeline.diagnosis.findings = {finding};
  r.timeline.diagnosis.largest_gaps = {{.host = {{odd, 1, 1}}}};
  StagePart s{.name = odd, .display_name = odd, .text = odd, .domain = odd, .style = odd};
  s.other_threads.threads = {{.name = odd}};
  s.backward_of_forward = BackwardPart{.by_forward_op = {{.op = odd}}};
  s.top_kernels = {{.name = odd, .family = odd, .bottleneck = odd}};
  s.mfu.peak = s.mfu.ncu_peak = analysis::StagePeak{.precision = odd, .source = odd};
  s.mfu.lines = {{.name = odd, .formula = odd}};
  s.mfu.mfu_source = s.mfu.mfu_line = s.mfu.bytes_source = odd;
  s.mfu.notes = {odd};
  s.mfu.measured_by_precision = {{odd, 1}};
  s.findings = {finding};
  r.stages = {s};
  r.top_kernels = {{.name = odd,
                    .base = odd,
                    .family = odd,
                    .library = odd,
                    .verdict = KernelVerdict{
                        .bottleneck = odd, .top_stall = odd, .why = odd, .rests_on = {odd}, .stall_unit = odd}}};
  r.bottleneck_mix = {{.bottleneck = odd}};
  r.roofline.points = {{.kernel = odd, .base = odd, .family = odd, .precision = odd, .bottleneck = odd}};
  r.roofline.roofs = {{.precision = odd}};
  r.notes = {odd};

  int shown = 0;
  std::function<void(const nlohmann::json&)> check = [&](const nlohmann::json& v) {
    if (v.is_string()) {
      const auto& text = v.get_ref<const std::string&>();
      EXPECT_EQ(DisplayText(text), text) << "not as shown: " << v.dump(-1, ' ', true);
      shown += text == DisplayText(odd) ? 1 : 0;
    } else if (v.is_object()) {
      for (const auto& [key, item] : v.items()) {
        EXPECT_EQ(DisplayText(key), key);
        shown += key == DisplayText(odd) ? 1 : 0;
        check(item);
      }
    } else if (v.is_array()) {
      for (const auto& item : v) check(item);
    }
  };
  check(ToJson(ForDisplay(r)));
  EXPECT_EQ(shown, 63);  // every text and key set above
}

TEST(DisplayNumbers, DevsetFigures) {
  EXPECT_EQ(DurationText(4450951117), "4.45 s");
  EXPECT_EQ(DurationText(964351359), "964.35 ms");
  EXPECT_EQ(DurationText(1664), "1.66 us");
  EXPECT_EQ(DurationText(832), "832 ns");
  EXPECT_EQ(DurationText(std::nullopt), "n/a");
  EXPECT_EQ(SiText(1513768058880000.0, "FLOP/s"), "1.51 PFLOP/s");
  EXPECT_EQ(SiText(288540179942.0, "FLOP/s"), "289 GFLOP/s");
  EXPECT_EQ(SiText(4798961696000.0, "B/s"), "4.80 TB/s");
  EXPECT_EQ(SiText(12.5, "FLOP"), "12.5 FLOP");
  EXPECT_EQ(PercentText(1.589), "1.59%");
  EXPECT_EQ(PercentText(98.411), "98.4%");
  EXPECT_EQ(PercentText(100), "100%");
  EXPECT_EQ(PercentText(0.003559041007660669), "0.00356%");
  EXPECT_EQ(PercentText(0), "0%");
  EXPECT_EQ(PercentText(1e-9), "1.00e-09%");
  EXPECT_EQ(CountText(3778), "3,778");
  EXPECT_EQ(CountText(10544), "10,544");
  EXPECT_EQ(CountText(999), "999");
  EXPECT_EQ(CountText(std::numeric_limits<int64_t>::min()), "-9,223,372,036,854,775,808");
  EXPECT_EQ(DecimalText(1753.471794275281), "1753");
  EXPECT_EQ(DecimalText(15.866881309767004), "15.9");
}

TEST(HtmlTable, EscapesHeadingsAndCells) {
  HtmlTable table({"Kernel", "<Launches>"});
  table.rows.push_back({Name("void tiled_gemm<(int)16>(int, const float *, const float *, float *)"), Num("1")});
  table.rows.push_back({{"a & b"}, {"2"}});
  std::ostringstream out;
  WriteHtmlTable(table, out);
  EXPECT_EQ(out.str(),
            "<table>\n<thead><tr><th>Kernel</th><th>&lt;Launches&gt;</th></tr></thead>\n<tbody>\n"
            "<tr><td class=\"name\">void tiled_gemm&lt;(int)16&gt;(int, const float *, const float *, float *)</td>"
            "<td class=\"num\">1</td></tr>\n"
            "<tr><td>a &amp; b</td><td>2</td></tr>\n</tbody>\n</table>\n");
  std::ostringstream facts;
  WriteHtmlFacts({{"GPU", "NVIDIA H200"}, {"Command", "python3 x.py --tag a<b"}}, facts);
  EXPECT_EQ(facts.str(),
            "<table class=\"facts\">\n<tbody>\n<tr><th>GPU</th><td>NVIDIA H200</td></tr>\n"
            "<tr><th>Command</th><td>python3 x.py --tag a&lt;b</td></tr>\n</tbody>\n</table>\n");
}

}  // namespace
}  // namespace kscope::report
