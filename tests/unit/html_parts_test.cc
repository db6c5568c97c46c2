// The parts report.html is written with: escaping, JSON inside a script element, lenient
// reading of report.json, numbers for people, and the HTML table writer.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>

#include "report/display_numbers.h"
#include "report/html_escape.h"
#include "report/html_table.h"
#include "report/json_fields.h"

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

TEST(ForDisplay, EveryStringAndKeyValidUtf8WithControlCharactersEscaped) {
  const nlohmann::json value = {{"name", "kernel\xff"},
                                {"k\n", {std::string("a\0b\x07\tc\r\x7f", 8), 3, "\xC2\x85 \xC3\xA9"}}};
  EXPECT_EQ(ForDisplay(value), nlohmann::json({{"name", "kernel\xEF\xBF\xBD"},
                                               {"k\\n", {"a\\0b\\x07\\tc\\r\\x7f", 3, "\\u0085 \xC3\xA9"}}}));
}

TEST(JsonFields, MissingNullAndOtherTypesReadAsAbsent) {
  const nlohmann::json row = nlohmann::json::parse(
      R"({"n": 12, "x": 1.5, "s": "a", "z": null, "l": [1], "big": 18446744073709551615, "b": true})");
  EXPECT_EQ(IntegerField(row, "n"), 12);
  EXPECT_EQ(IntegerField(row, "x"), 2);
  EXPECT_EQ(IntegerField(row, "s"), std::nullopt);
  EXPECT_EQ(IntegerField(row, "big"), std::nullopt);
  EXPECT_EQ(NumberField(row, "x"), 1.5);
  EXPECT_EQ(NumberField(row, "z"), std::nullopt);
  EXPECT_EQ(NumberField(row, "missing"), std::nullopt);
  EXPECT_EQ(TextField(row, "s"), "a");
  EXPECT_EQ(TextField(row, "n"), "12");
  EXPECT_EQ(TextField(row, "b"), "true");
  EXPECT_EQ(TextField(row, "z"), "");
  EXPECT_EQ(TextField(row, "l"), "");
  EXPECT_EQ(ListField(row, "l").size(), 1u);
  EXPECT_TRUE(ListField(row, "s").empty());
  EXPECT_TRUE(Field(nlohmann::json::array(), "n").is_null());
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
