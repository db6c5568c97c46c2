// kscope atlas: kernel families (or kernels) across the runs of the database or a selection:
// popularity per model from nsys; performance, launch correlates and systemic signals from ncu.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "analysis/atlas/atlas.h"
#include "cli/commands.h"
#include "config/config.h"
#include "import/store_upgrade.h"
#include "report/atlas_html.h"
#include "report/atlas_report.h"
#include "util/atomic_file.h"

namespace kscope::cli {

namespace {

struct AtlasArgs {
  std::vector<int64_t> runs;
  std::vector<std::string> tags;
  std::vector<std::string> views;
  std::string label, model, gpu, by = "family", format = "table", html;
  std::optional<int64_t> rank;
};

// The tables of each view, in the order of kViews.
constexpr const char* kViews[] = {"popularity", "performance", "correlates", "signals", "communication"};

// A view's table and the line the terminal prints when it has no rows.
struct ViewTable {
  report::Table table;
  std::string empty;
};

std::vector<ViewTable> ViewTables(const std::string& view, const analysis::atlas::Atlas& atlas) {
  if (view == "popularity")
    return {{report::AtlasPopularityTable(atlas), "none: the selected runs launched no kernel"}};
  if (view == "performance") {
    return {{report::AtlasPerformanceTable(atlas),
             "none: no selected run has ncu results (kscope profile, or kscope import --run N REPORT.ncu-rep)"}};
  }
  if (view == "correlates") {
    return {{report::AtlasCorrelatesTable(atlas),
             "none: no profiled launch has its % of roof or SM throughput with its launch parameters (ncu data)"},
            {report::AtlasOutliersTable(atlas), "none: no launch configuration is far below its family's median"}};
  }
  if (view == "communication") {
    return {{report::AtlasCommunicationTable(atlas),
             "none: no selected run launched a communication kernel (NCCL, NVSHMEM or a custom all-reduce)"}};
  }
  return {{report::AtlasSignalsTable(atlas), "none: no signal has the metrics it needs"},
          {report::AtlasSignalFamiliesTable(atlas), "none: no family shows a signal"}};
}

Result<analysis::atlas::RunFilter> ToFilter(const AtlasArgs& a) {
  ManifestArgs m;
  m.tags = a.tags;
  auto manifest = ToManifest(m);  // checks and splits the KEY=VALUE tags
  if (!manifest.ok()) return manifest.error();
  analysis::atlas::RunFilter f;
  f.run_ids = a.runs;
  f.tags = manifest->tags;
  if (!a.label.empty()) f.label = a.label;
  if (!a.model.empty()) f.model = a.model;
  if (!a.gpu.empty()) f.gpu = a.gpu;
  f.rank = a.rank;
  return f;
}

int Run(const AtlasArgs& a, const GlobalOptions& global) {
  auto cfg = config::LoadConfig(global.config, global.overrides);
  if (!cfg.ok()) return Fail(cfg.error());
  auto filter = ToFilter(a);
  if (!filter.ok()) return Fail(filter.error());
  auto store = import::OpenStore(global.DbPath(), sql::OpenMode::kReadOnly);
  if (!store.ok()) return Fail(store.error());
  const auto grouping = a.by == "kernel" ? analysis::atlas::Grouping::kKernel : analysis::atlas::Grouping::kFamily;
  auto atlas = analysis::atlas::BuildAtlas(*store, *filter, grouping, {cfg->classify, cfg->atlas});
  if (!atlas.ok()) return Fail(atlas.error());
  if (!a.html.empty()) {
    // Written whole or not at all: a full disk or a kill leaves the page that was there.
    std::ostringstream page;
    if (auto st = report::WriteAtlasHtml(*atlas, page); !st.ok()) {
      return Fail(Error{a.html, st.error().what, st.error().fix});
    }
    if (auto st = WriteFileAtomically(a.html, page.str()); !st.ok()) return Fail(st.error());
  }
  if (a.format == "json") {
    std::cout << report::AtlasJson(*atlas).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
              << "\n";
    return 0;
  }
  const auto format = a.format == "csv" ? report::Format::kCsv : report::Format::kTable;
  bool first = true;
  for (const char* view : kViews) {
    if (!a.views.empty() && std::find(a.views.begin(), a.views.end(), view) == a.views.end()) continue;
    for (auto& [table, empty] : ViewTables(view, *atlas)) {
      if (!first) std::cout << "\n";
      first = false;
      if (format == report::Format::kTable) report::ShortenShapes(table);
      report::Write(table, format, std::cout);
      if (format == report::Format::kTable && table.rows.empty()) std::cout << empty << "\n";
    }
  }
  return 0;
}

}  // namespace

void RegisterAtlas(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto a = std::make_shared<AtlasArgs>();
  CLI::App* cmd = app.add_subcommand("atlas", "Kernel families across runs and models: popularity and performance");
  cmd->add_option("--run", a->runs, "a run id to include (repeatable; default: every run)");
  cmd->add_option("--tag", a->tags, "only runs with this KEY=VALUE tag (repeatable: all of them)");
  cmd->add_option("--label", a->label, "only runs with this label");
  cmd->add_option("--model", a->model, "only runs of this manifest model");
  cmd->add_option("--gpu", a->gpu, "only runs on this GPU (as kscope runs shows it)");
  cmd->add_option("--view", a->views,
                  "popularity, performance, correlates (with the outliers), signals or communication (repeatable; "
                  "default: all; "
                  "the terminal and CSV views)")
      ->check(CLI::IsMember({"popularity", "performance", "correlates", "signals", "communication"}));
  cmd->add_option("--rank", a->rank,
                  "one rank of each run (multi-GPU jobs): its kernels and ncu's launches on its GPU");
  cmd->add_option("--by", a->by, "family or kernel")->check(CLI::IsMember({"family", "kernel"}));
  cmd->add_option("--html", a->html, "also write the atlas as one self-contained page (atlas.html) to this file");
  cmd->add_option("--format,-f", a->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->callback([a, &global, &exit_code] { exit_code = Run(*a, global); });
}

}  // namespace kscope::cli
