// kscope atlas's communication part on the zoo's 2-GPU recordings (tests/data/zoo/ddp_train,
// fsdp_train, tp_infer; recorded on two H100s) and a one-GPU run without NCCL (vit_infer):
// every row's launches, GPU time and exposed time against the nsys exports read by SQL
// (tests/rank_support.h), its share against the model's kernel time by SQL, and the runs
// without communication kernels adding nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/atlas/atlas.h"
#include "rank_support.h"
#include "report/atlas_report.h"
#include "zoo_support.h"

namespace kscope {
namespace {

using analysis::atlas::Atlas;
using analysis::atlas::CommunicationRow;
using testing::ExportKernel;

// ddp_train twice (two runs of one model), the other two 2-GPU jobs, and a run without NCCL.
const std::vector<std::string> kRunModels{"ddp_train", "ddp_train", "fsdp_train", "tp_infer", "vit_infer"};
const std::vector<std::string> kMultiGpu{"ddp_train", "fsdp_train", "tp_infer"};

store::Store& CommStore() {
  static store::Store store = [] {
    auto s = std::move(store::Store::Open(":memory:", sql::OpenMode::kCreate)).value();
    for (const auto& model : kRunModels) {
      import::ImportOptions opts;
      opts.manifest.label = model;
      auto out = import::ImportFiles(s, {testing::ZooFile(model, "discovery.sqlite")}, opts);
      EXPECT_TRUE(out.ok()) << out.error().Line();
    }
    return s;
  }();
  return store;
}

Atlas Build(const analysis::atlas::RunFilter& filter) {
  auto atlas = analysis::atlas::BuildAtlas(CommStore(), filter, analysis::atlas::Grouping::kFamily, {});
  EXPECT_TRUE(atlas.ok()) << atlas.error().Line();
  return atlas.ok() ? std::move(atlas).value() : Atlas{};
}

// CommunicationOf by name, each distinct name once (the exports repeat a few dozen names).
std::optional<analysis::CommunicationKernel> KindOf(const std::string& name) {
  static std::map<std::string, std::optional<analysis::CommunicationKernel>> known;
  auto it = known.find(name);
  if (it == known.end()) it = known.emplace(name, analysis::CommunicationOf(name)).first;
  return it->second;
}

// An export's kernels per process, read once.
const std::vector<std::vector<ExportKernel>>& Processes(const std::string& model) {
  static std::map<std::string, std::vector<std::vector<ExportKernel>>> read;
  auto it = read.find(model);
  if (it == read.end())
    it = read.emplace(model, testing::KernelsByProcess(testing::ZooFile(model, "discovery.sqlite"))).first;
  return it->second;
}

// What a collective kind adds up to, computed from the export alone.
struct Expected {
  int64_t ranks = 0, launches = 0, ns = 0, exposed = 0;
};

// The time of `w` that no interval of `cover` (sorted by start, disjoint) covers.
int64_t Uncovered(const ExportKernel& w, const std::vector<std::pair<int64_t, int64_t>>& cover) {
  int64_t covered = 0;
  auto it = std::lower_bound(cover.begin(), cover.end(), w.start,
                             [](const std::pair<int64_t, int64_t>& c, int64_t t) { return c.second <= t; });
  for (; it != cover.end() && it->first < w.end; ++it) {
    covered += std::min(it->second, w.end) - std::max(it->first, w.start);
  }
  return w.end - w.start - covered;
}

// A process's compute kernels (not communication), merged into disjoint intervals by start.
std::vector<std::pair<int64_t, int64_t>> ComputeCover(const std::vector<ExportKernel>& kernels) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const auto& k : kernels) {
    if (!KindOf(k.name)) spans.emplace_back(k.start, k.end);
  }
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<int64_t, int64_t>> merged;
  for (const auto& s : spans) {
    if (!merged.empty() && s.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, s.second);
    } else {
      merged.push_back(s);
    }
  }
  return merged;
}

// Per collective kind, over the processes of one export (or only the process `only`).
std::map<std::string, Expected> ExpectedKinds(const std::string& model, int only = -1) {
  std::map<std::string, Expected> out;
  const auto& processes = Processes(model);
  EXPECT_EQ(processes.size(), 2U) << model;
  for (size_t p = 0; p < processes.size(); ++p) {
    if (only >= 0 && p != static_cast<size_t>(only)) continue;
    const auto cover = ComputeCover(processes[p]);
    std::set<std::string> seen;
    for (const auto& k : processes[p]) {
      auto c = KindOf(k.name);
      if (!c) continue;
      const std::string kind(analysis::CollectiveKindName(c->kind));
      Expected& e = out[kind];
      if (seen.insert(kind).second) ++e.ranks;
      ++e.launches;
      e.ns += k.end - k.start;
      e.exposed += Uncovered(k, cover);
    }
  }
  return out;
}

// The summed duration of every kernel of a zoo export, by SQL.
int64_t ExportKernelNs(const std::string& model) {
  int64_t ns = 0;
  for (const auto& [name, sum] : testing::ExportKernels(model)) ns += sum.ns;
  return ns;
}

std::vector<CommunicationRow> RowsOf(const Atlas& atlas, const std::string& model) {
  std::vector<CommunicationRow> out;
  for (const auto& r : atlas.communication) {
    if (r.model == model) out.push_back(r);
  }
  return out;
}

TEST(AtlasCommunication, EveryRowMatchesTheExports) {
  const Atlas atlas = Build({});
  for (const auto& model : kMultiGpu) {
    const int64_t copies = std::count(kRunModels.begin(), kRunModels.end(), model);
    const auto expected = ExpectedKinds(model);
    const auto rows = RowsOf(atlas, model);
    ASSERT_FALSE(expected.empty()) << model;
    ASSERT_EQ(rows.size(), expected.size()) << model;
    const double model_ns = static_cast<double>(copies * ExportKernelNs(model));
    for (const auto& r : rows) {
      SCOPED_TRACE(model + " " + r.kind);
      ASSERT_TRUE(expected.contains(r.kind));
      const Expected& e = expected.at(r.kind);
      EXPECT_EQ(r.runs, copies);
      EXPECT_EQ(r.ranks, copies * e.ranks);
      EXPECT_EQ(r.launches, copies * e.launches);
      EXPECT_EQ(r.gpu_time_ns, copies * e.ns);
      EXPECT_EQ(r.exposed_ns, copies * e.exposed);
      EXPECT_GT(r.gpu_time_ns, 0);
      EXPECT_NEAR(r.share_pct, 100.0 * static_cast<double>(r.gpu_time_ns) / model_ns, 1e-9);
      EXPECT_NEAR(r.exposed_pct, 100.0 * static_cast<double>(r.exposed_ns) / static_cast<double>(r.gpu_time_ns), 1e-9);
    }
  }
}

// Summed over kinds, a rank's exposed launches hold at least the communication time its compute
// does not overlap (rank_support.h's sweep): equal where its communication kernels never overlap.
// (ddp_train alone: the helper classifies every launch's name, seconds in a debug build.)
TEST(AtlasCommunication, ExposedTimeHoldsTheRanksUncoveredCommunication) {
  const Atlas atlas = Build({});
  for (const std::string model : {"ddp_train"}) {
    const int64_t copies = std::count(kRunModels.begin(), kRunModels.end(), model);
    int64_t swept = 0, communication = 0;
    for (const auto& kernels : Processes(model)) swept += testing::ExposedCommunication(kernels);
    for (const auto& [kind, e] : ExpectedKinds(model)) communication += e.ns;
    int64_t exposed = 0, gpu = 0;
    for (const auto& r : RowsOf(atlas, model)) {
      exposed += r.exposed_ns;
      gpu += r.gpu_time_ns;
    }
    EXPECT_EQ(gpu, copies * communication) << model;
    EXPECT_GE(exposed, copies * swept) << model;
    EXPECT_LE(exposed, gpu) << model;
  }
}

TEST(AtlasCommunication, RowsAreByModelThenGpuTime) {
  const Atlas atlas = Build({});
  ASSERT_FALSE(atlas.communication.empty());
  for (size_t i = 1; i < atlas.communication.size(); ++i) {
    const auto& a = atlas.communication[i - 1];
    const auto& b = atlas.communication[i];
    EXPECT_TRUE(a.model < b.model || (a.model == b.model && a.gpu_time_ns >= b.gpu_time_ns)) << i;
  }
}

TEST(AtlasCommunication, ARunWithoutNcclAddsNoRow) {
  EXPECT_TRUE(RowsOf(Build({}), "vit_infer").empty());
  analysis::atlas::RunFilter vit;
  vit.label = "vit_infer";
  const Atlas alone = Build(vit);
  EXPECT_EQ(alone.runs.size(), 1U);
  EXPECT_TRUE(alone.communication.empty());
  EXPECT_TRUE(report::AtlasCommunicationTable(alone).rows.empty());
  EXPECT_TRUE(report::AtlasJson(alone).at("communication").empty());
}

TEST(AtlasCommunication, OneRankCountsItsOwnKernels) {
  analysis::atlas::RunFilter filter;
  filter.label = "fsdp_train";
  filter.rank = 1;
  const Atlas atlas = Build(filter);
  const auto expected = ExpectedKinds("fsdp_train", 1);
  ASSERT_EQ(atlas.communication.size(), expected.size());
  for (const auto& r : atlas.communication) {
    SCOPED_TRACE(r.kind);
    const Expected& e = expected.at(r.kind);
    EXPECT_EQ(r.ranks, 1);
    EXPECT_EQ(r.launches, e.launches);
    EXPECT_EQ(r.gpu_time_ns, e.ns);
    EXPECT_EQ(r.exposed_ns, e.exposed);
    EXPECT_NEAR(r.share_pct,
                100.0 * static_cast<double>(r.gpu_time_ns) / static_cast<double>(atlas.runs.front().kernel_ns), 1e-9);
  }
}

TEST(AtlasCommunication, TableAndJsonHoldEveryRow) {
  const Atlas atlas = Build({});
  const auto table = report::AtlasCommunicationTable(atlas);
  const auto json = report::AtlasJson(atlas);
  ASSERT_EQ(table.rows.size(), atlas.communication.size());
  ASSERT_EQ(json.at("communication").size(), atlas.communication.size());
  for (size_t i = 0; i < atlas.communication.size(); ++i) {
    const auto& r = atlas.communication[i];
    const auto& j = json.at("communication")[i];
    EXPECT_EQ(j.at("model"), r.model);
    EXPECT_EQ(j.at("kind"), r.kind);
    EXPECT_EQ(j.at("launches"), r.launches);
    EXPECT_EQ(j.at("gpu_time_ns"), r.gpu_time_ns);
    EXPECT_EQ(j.at("exposed_ns"), r.exposed_ns);
    EXPECT_EQ(std::get<std::string>(table.rows[i][0]), r.model);
    EXPECT_EQ(std::get<int64_t>(table.rows[i][4]), r.launches);
  }
}

}  // namespace
}  // namespace kscope
