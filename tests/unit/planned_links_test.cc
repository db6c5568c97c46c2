// Launches linked by their plan (kscope profile's, and kscope import DIR's of its run
// directories) on the zoo's capture with PyTorch's shape-recording NVTX ranges: the plan's
// links are made inside the import, before the figures, so a targeted run (its launches in a
// run of their own, its kernels in the discovery run) has the same shapes as the launches
// linked inside the discovery run itself (whose shapes launch_shapes_zoo_test.cc checks against
// SQL over the nsys export).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "capture/ncu_pass_import.h"
#include "zoo_support.h"

namespace kscope {
namespace {

// Per ncu ID of a run's launches: its link ("row kind run") and its figures' shape.
struct Linked {
  std::map<int64_t, std::string> links, shapes;
};

Linked LinkedOf(store::Store& s, int64_t run) {
  auto q = s.db().Prepare(
      "SELECT l.ncu_id, l.kernel_index, l.kernel_link, l.kernel_run, f.shape FROM ncu_launch l "
      "JOIN ncu_launch_figures f ON f.run_id = l.run_id AND f.launch_id = l.id WHERE l.run_id = ?1");
  EXPECT_TRUE(q.ok());
  Linked out;
  if (!q.ok()) return out;
  q->Bind(1, run);
  while (q->Step()) {
    out.links[q->Int(0)] =
        q->IsNull(1) ? "none" : std::to_string(q->Int(1)) + " " + q->Text(2) + " " + std::to_string(q->Int(3));
    out.shapes[q->Int(0)] = q->IsNull(4) ? "" : q->Text(4);
  }
  return out;
}

TEST(PlannedLinks, ATargetedRunHasItsDiscoveryRunsShapes) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  // The discovery run with the page, its launches matched to its kernels: the plan a profile
  // of it would have made (ncu's k-th launch is the kernel it was matched to).
  const int64_t discovery = testing::ImportZoo(*s, "decoder_train_shapes", {"profile_raw.csv"});
  ASSERT_EQ(discovery, 1);
  const Linked matched = LinkedOf(*s, discovery);
  std::vector<int64_t> plan;
  for (const auto& [ncu_id, link] : matched.links) {
    ASSERT_EQ(ncu_id, static_cast<int64_t>(plan.size()));
    ASSERT_NE(link, "none");
    plan.push_back(std::stoll(link));
  }
  ASSERT_EQ(plan.size(), 61U);

  // The same page as a targeted run's pass: a run of its own, its launches planned on run 1.
  const std::string page = testing::ZooFile("decoder_train_shapes", "profile_raw.csv");
  auto imported = capture::ImportNcuPasses(*s, {}, {{1, {page}, plan}}, discovery, {});
  ASSERT_TRUE(imported.ok()) << imported.error().Line();
  ASSERT_EQ(imported->passes.size(), 1U);
  EXPECT_EQ(imported->passes[0].launches, 61);
  EXPECT_EQ(imported->passes[0].links.planned, 61);
  EXPECT_EQ(imported->passes[0].links.mismatched, 0);
  const int64_t targeted = imported->files.front().run_id;
  ASSERT_EQ(targeted, 2);
  const Linked planned = LinkedOf(*s, targeted);
  for (const auto& [ncu_id, link] : planned.links) EXPECT_EQ(link, std::to_string(plan[ncu_id]) + " planned 1");
  EXPECT_EQ(planned.shapes, matched.shapes);
  int64_t shaped = 0;
  for (const auto& [ncu_id, shape] : planned.shapes) shaped += shape.empty() ? 0 : 1;
  EXPECT_EQ(shaped, 61);
}

// A plan that names other kernels than those profiled: the launches it cannot vouch for are
// linked by matching within the run, and the counts say so.
TEST(PlannedLinks, LaunchesThePlanMissesAreMatchedAndCounted) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  const int64_t run = testing::ImportZoo(*s, "decoder_train_shapes");
  ASSERT_EQ(run, 1);
  // Every launch planned as kernel row 0, which is the profiled kernel for none or few of them.
  const std::vector<int64_t> plan(61, 0);
  import::ImportOptions options;
  options.into_run = run;
  const std::string page = testing::ZooFile("decoder_train_shapes", "profile_raw.csv");
  auto imported = capture::ImportNcuPasses(*s, {}, {{1, {page}, plan}}, 0, options);
  ASSERT_TRUE(imported.ok()) << imported.error().Line();
  const import::LaunchLinks& links = imported->passes[0].links;
  EXPECT_EQ(links.planned + links.mismatched, 61);
  EXPECT_GT(links.mismatched, 0);
  auto q = s->db().Prepare(
      "SELECT count(*) FILTER (WHERE kernel_link = 'planned'), count(*) FILTER (WHERE kernel_link = 'matched') "
      "FROM ncu_launch WHERE run_id = 1");
  ASSERT_TRUE(q.ok() && q->Step());
  EXPECT_EQ(q->Int(0), links.planned);
  EXPECT_EQ(q->Int(1), links.matched);
  EXPECT_EQ(links.matched, links.mismatched);  // the matching finds every one of them in this run
}

}  // namespace
}  // namespace kscope
