// kscope atlas's communication part as a table and JSON: per model and collective kind, the
// launches, GPU time and exposed time of its communication kernels.
#include <fmt/format.h>

#include "report/atlas_report.h"

namespace kscope::report {

namespace {

Decimal Num(double v, int decimals) { return {v, fmt::format("{:.{}f}", v, decimals)}; }

Decimal Ms(int64_t ns) { return Num(static_cast<double>(ns) / 1e6, 3); }

}  // namespace

Table AtlasCommunicationTable(const analysis::atlas::Atlas& atlas) {
  Table t;
  t.title = "Communication by model (nsys): collectives and the time no compute hides";
  t.columns = {"Model", "Kind", "Runs", "Ranks", "Launches", "GPU Time (ms)", "Model %", "Exposed (ms)", "Exposed %"};
  for (const auto& c : atlas.communication) {
    t.rows.push_back({c.model, c.kind, c.runs, c.ranks, c.launches, Ms(c.gpu_time_ns), Num(c.share_pct, 1),
                      Ms(c.exposed_ns), Num(c.exposed_pct, 1)});
  }
  return t;
}

nlohmann::json AtlasCommunicationJson(const analysis::atlas::Atlas& atlas) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& c : atlas.communication) {
    rows.push_back({{"model", c.model},
                    {"kind", c.kind},
                    {"runs", c.runs},
                    {"ranks", c.ranks},
                    {"launches", c.launches},
                    {"gpu_time_ns", c.gpu_time_ns},
                    {"share_pct", c.share_pct},
                    {"exposed_ns", c.exposed_ns},
                    {"exposed_pct", c.exposed_pct}});
  }
  return rows;
}

}  // namespace kscope::report
