// Each profiled launch's shape (ncu_launch_figures.shape: the launching PyTorch op and its input
// shapes) on the zoo's capture with PyTorch's shape-recording NVTX ranges, against SQL straight
// over its nsys export; the atlas's shape bins against a count of those launches.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "analysis/atlas/atlas.h"
#include "analysis/names/kernel_names.h"
#include "analysis/stages/torch_ops.h"
#include "analysis/timeline/nsys_events.h"
#include "report/atlas_report.h"
#include "zoo_support.h"

namespace kscope {
namespace {

TEST(TorchOpRange, KeepsTheInputShapes) {
  auto op = analysis::ParseTorchOpRange(
      "aten::mm, seq = 12, op_id = 40, sizes = [[2048, 1024], [1024, 3584]], input_op_ids = [(39,0), (7,0)]");
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(op->sizes, "[[2048, 1024], [1024, 3584]]");
  EXPECT_EQ(analysis::ShapeText(*op), "aten::mm [[2048, 1024], [1024, 3584]]");
  op = analysis::ParseTorchOpRange("MmBackward0, seq = 12, op_id = 97");
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(analysis::ShapeText(*op), "");
}

// Per runtime call's correlation id (of the JSON array ?1): the innermost range with sizes on the calling thread that
// contains the call, as "op [[...]]" (the op: the text before its first ", "; the sizes: up to
// ", input_op_ids = "), or NULL.
const char* kShapesByCorrelation = R"sql(
WITH t AS (SELECT n.start, n.end, n.globalTid AS tid, coalesce(n.text, s.value) AS text
           FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId
           WHERE n.eventType = 59 AND instr(coalesce(n.text, s.value), ', sizes = ') > 0),
     c AS (SELECT c.correlationId AS id,
                  (SELECT t.text FROM t WHERE t.tid = c.globalTid AND t.start <= c.start AND t.end >= c.end
                   ORDER BY t.start DESC, t.end ASC LIMIT 1) AS text
           FROM CUPTI_ACTIVITY_KIND_RUNTIME c
           WHERE c.correlationId IN (SELECT value FROM json_each(?1)))
SELECT id, substr(text, 1, instr(text, ', ') - 1) || ' ' ||
           substr(text, instr(text, ', sizes = ') + 10,
                  instr(text, ', input_op_ids = ') - instr(text, ', sizes = ') - 10)
FROM c WHERE text IS NOT NULL)sql";

struct ShapesRun {
  store::Store db = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
  int64_t run = testing::ImportZoo(db, "decoder_train_shapes", {"profile_raw.csv"});
};

ShapesRun& Shapes() {
  static ShapesRun r;
  return r;
}

TEST(LaunchShapes, AreTheLaunchingOpsShapesOfTheExport) {
  auto& [s, run] = Shapes();
  ASSERT_GT(run, 0);
  auto events = analysis::LoadNsysEvents(s, run);
  ASSERT_TRUE(events.ok());
  // Each profiled launch: its nsys kernel's correlation id and its stored shape.
  auto q = s.db().Prepare(
      "SELECT l.kernel_index, f.shape FROM ncu_launch l JOIN ncu_launch_figures f "
      "ON f.run_id = l.run_id AND f.launch_id = l.id WHERE l.run_id = ?1 ORDER BY l.id");
  ASSERT_TRUE(q.ok());
  q->Bind(1, run);
  std::vector<std::pair<int64_t, std::string>> stored;
  std::string correlations;
  while (q->Step()) {
    ASSERT_FALSE(q->IsNull(0)) << "every profiled launch has its nsys kernel";
    stored.push_back({events->kernels.correlation[static_cast<size_t>(q->Int(0))], q->IsNull(1) ? "" : q->Text(1)});
    correlations += (correlations.empty() ? "[" : ",") + std::to_string(stored.back().first);
  }
  correlations += "]";
  std::map<int64_t, std::string> expected_by_correlation;
  auto db = sql::Db::Open(testing::ZooFile("decoder_train_shapes", "discovery.sqlite"), sql::OpenMode::kReadOnly);
  ASSERT_TRUE(db.ok());
  auto x = db->Prepare(kShapesByCorrelation);
  ASSERT_TRUE(x.ok());
  x->Bind(1, correlations);
  while (x->Step()) expected_by_correlation[x->Int(0)] = x->Text(1);
  int64_t launches = 0, shaped = 0;
  for (const auto& [correlation, shape] : stored) {
    ++launches;
    auto it = expected_by_correlation.find(correlation);
    EXPECT_EQ(shape, it == expected_by_correlation.end() ? "" : it->second) << "correlation id " << correlation;
    shaped += shape.empty() ? 0 : 1;
  }
  EXPECT_EQ(launches, 61);
  EXPECT_EQ(shaped, 61);  // every launch of this capture ran inside an op range with sizes
}

TEST(LaunchShapes, AtlasBinsEachFamilyByShape) {
  auto& [s, run] = Shapes();
  ASSERT_GT(run, 0);
  auto atlas = analysis::atlas::BuildAtlas(s, {}, analysis::atlas::Grouping::kFamily, {});
  ASSERT_TRUE(atlas.ok()) << atlas.error().Line();
  // The family with most launches that has shapes.
  const analysis::atlas::CorrelateRow* row = nullptr;
  for (const auto& r : atlas->correlates) {
    if (std::any_of(r.bins.begin(), r.bins.end(),
                    [](const auto& b) { return b.parameter == analysis::atlas::Parameter::kShape; })) {
      row = &r;
      break;
    }
  }
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->family, "nvjet_gemm");
  // The count: the family's launches with its figure, by stored shape.
  const char* figure = row->figure == analysis::atlas::Figure::kRoof ? "roof_pct" : "sm_pct";
  auto q = s.db().Prepare(std::string("SELECT kernel_name, shape FROM v_ncu_launch_figures WHERE run_id = ?1 AND ") +
                          figure + " IS NOT NULL AND shape IS NOT NULL");
  ASSERT_TRUE(q.ok());
  q->Bind(1, run);
  std::map<std::string, int64_t> counts;
  while (q->Step()) {
    if (analysis::IdentifyKernel(q->Text(0)).family == row->family) ++counts[std::string(q->Text(1))];
  }
  std::vector<std::pair<int64_t, std::string>> expected;
  for (const auto& [shape, n] : counts) expected.push_back({-n, shape});
  std::sort(expected.begin(), expected.end());
  if (expected.size() > 8) expected.resize(8);
  std::vector<std::pair<int64_t, std::string>> bins;
  for (const auto& b : row->bins) {
    if (b.parameter == analysis::atlas::Parameter::kShape) bins.push_back({-b.figure.launches, b.bin});
  }
  EXPECT_EQ(bins, expected);
  // The terminal's table: a shape longer than 80 characters is cut to its first 77 and "...".
  auto full = report::AtlasCorrelatesTable(*atlas);
  auto shortened = full;
  report::ShortenShapes(shortened);
  const size_t bin = 5;  // Family, Library, Figure, Launches, Median, Parameter, Bin
  ASSERT_EQ(full.columns[bin + 1], "Bin");
  int64_t cut = 0;
  for (size_t r = 0; r < full.rows.size(); ++r) {
    const std::string text = report::CellText(full.rows[r][bin + 1]);
    const std::string shown = report::CellText(shortened.rows[r][bin + 1]);
    EXPECT_EQ(shown, text.size() > 80 ? text.substr(0, 77) + "..." : text);
    cut += text.size() > 80 ? 1 : 0;
  }
  EXPECT_EQ(cut, 8) << "bins of ops with long input lists (1,486 characters the longest)";
}

}  // namespace
}  // namespace kscope
