#include "analysis/stages/nvtx_nesting.h"

#include <gtest/gtest.h>

namespace kscope::analysis {
namespace {

TEST(NvtxNesting, PushPopStackGivesParentsAndDepths) {
  // outer [0,100] > mid [10,50] > inner [20,30]; sibling [60,90] under outer.
  const std::vector<NvtxInterval> r = {{0, 100, 7}, {10, 50, 7}, {20, 30, 7}, {60, 90, 7}};
  const NvtxNesting n = ComputeNvtxNesting(r);
  EXPECT_EQ(n.parent, (std::vector<int64_t>{-1, 0, 1, 0}));
  EXPECT_EQ(n.depth, (std::vector<int64_t>{0, 1, 2, 1}));
}

TEST(NvtxNesting, OtherThreadsAndCrossThreadRangesDoNotNest) {
  const std::vector<NvtxInterval> r = {{0, 100, 7}, {10, 20, 8}, {30, 40, 7, false}};
  const NvtxNesting n = ComputeNvtxNesting(r);
  EXPECT_EQ(n.parent, (std::vector<int64_t>{-1, -1, -1}));
  EXPECT_EQ(n.depth, (std::vector<int64_t>{0, 0, -1}));
}

TEST(NvtxNesting, OverlappingStartEndRangesTakeTheTightestContainer) {
  // a [0,100], b [5,200] overlap; c [10,60] is inside both: a is tighter (10+40 < 5+140).
  const std::vector<NvtxInterval> r = {{0, 100, 1}, {5, 200, 1}, {10, 60, 1}};
  const NvtxNesting n = ComputeNvtxNesting(r);
  EXPECT_EQ(n.parent[2], 0);
  EXPECT_EQ(n.parent[1], -1);
  EXPECT_EQ(n.depth[2], 1);
}

TEST(NvtxNesting, IdenticalRangesContainEachOtherAndHaveNoDepth) {
  // As in nsys's query, two equal ranges are each other's parent: neither reaches a root.
  const std::vector<NvtxInterval> r = {{0, 10, 1}, {0, 10, 1}, {2, 3, 1}};
  const NvtxNesting n = ComputeNvtxNesting(r);
  EXPECT_EQ(n.parent[0], 1);
  EXPECT_EQ(n.parent[1], 0);
  EXPECT_EQ(n.depth[0], -1);
  EXPECT_EQ(n.depth[2], -1);
}

}  // namespace
}  // namespace kscope::analysis
