#include "report/whatif_report.h"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

#include "analysis/names/short_names.h"
#include "report/display_clean.h"
#include "report/report_text_path.h"

namespace kscope::report {

namespace g = analysis::graph;

namespace {

Cell Ms(double ns) { return Decimal{ns / 1e6, fmt::format("{:.3f}", ns / 1e6)}; }
Cell Pct(double pct) { return Decimal{pct, fmt::format("{:+.1f}", pct)}; }

std::string EditsText(const g::WhatIfAnswer& a) {
  std::string text;
  for (const auto& e : a.edits) text += (text.empty() ? "" : " ") + e.edit;
  return text.empty() ? "none (the recording)" : text;
}

// Every text of the answer as DisplayText shows it: stage and kernel names come from the
// capture and may hold any bytes.
g::WhatIfAnswer ForDisplay(g::WhatIfAnswer a) {
  using display::Clean;
  Clean(a.primary);
  Clean(a.notes);
  for (auto& e : a.edits) Clean(e.edit);
  for (auto& s : a.steps) {
    Clean(s.name);
    Clean(s.how);
    for (auto& k : s.kernels) Clean(k.name);
  }
  return a;
}

}  // namespace

std::vector<Table> WhatIfTables(const g::WhatIfAnswer& answer) {
  const g::WhatIfAnswer a = ForDisplay(answer);
  std::vector<Table> tables;
  Table steps{"steps (median)",
              {"Steps", "Marked by", "Count", "Recorded (ms)", "Replayed (ms)", "Replay error (%)", "Predicted (ms)",
               "Change (%)"},
              {}};
  for (const g::StepAnswer& s : a.steps) {
    const double change = s.recorded_ns > 0 ? 100 * (s.predicted_ns - s.replayed_ns) / s.replayed_ns : 0;
    steps.rows.push_back({s.name, s.how, s.steps, Ms(s.recorded_ns), Ms(s.replayed_ns), Pct(s.replay_error_pct),
                          Ms(s.predicted_ns), Pct(change)});
  }
  tables.push_back(std::move(steps));
  for (const g::StepAnswer& s : a.steps) {
    Table path{
        fmt::format("critical path of {}: mean of the {} typical steps (within half and twice the median), "
                    "{:.3f} ms recorded, {:.3f} ms predicted",
                    StepName(s.name), s.typical_steps, s.typical_recorded_ns / 1e6, s.typical_predicted_ns / 1e6),
        {"Runs through", "Recorded (ms)", "Predicted (ms)"},
        {}};
    for (size_t p = 0; p < g::kPathParts; ++p) {
      if (s.before[p] == 0 && s.after[p] == 0) continue;
      path.rows.push_back({std::string(g::PathPartName(static_cast<g::PathPart>(p))), Ms(s.before[p]), Ms(s.after[p])});
    }
    tables.push_back(std::move(path));
    if (!s.ranks.empty()) {
      Table ranks{fmt::format("the critical path of {} by rank (recorded)", StepName(s.name)),
                  {"Rank", "On the path (ms)", "Mostly"},
                  {}};
      for (const g::RankOnPath& r : s.ranks) {
        double mine = 0;
        size_t most = 0;
        for (size_t p = 0; p < g::kPathParts; ++p) {
          mine += r.parts[p];
          if (r.parts[p] > r.parts[most]) most = p;
        }
        ranks.rows.push_back({r.rank, Ms(mine),
                              mine > 0 ? fmt::format("{} ({:.3f} ms)", g::PathPartName(static_cast<g::PathPart>(most)),
                                                     r.parts[most] / 1e6)
                                       : std::string("-")});
      }
      tables.push_back(std::move(ranks));
    }
    Table kernels{fmt::format("kernels of {}, by time on the critical path", StepName(s.name)),
                  {"Kernel", "Launches", "GPU time (ms)", "On the path (ms)", "On the path (%)"},
                  {}};
    for (const g::KernelOnPath& k : s.kernels) {
      kernels.rows.push_back(
          {analysis::ShortKernelName(k.name),
           static_cast<int64_t>(std::llround(static_cast<double>(k.launches) /
                                             static_cast<double>(std::max<int64_t>(s.typical_steps, 1)))),
           Ms(k.gpu_ns), Ms(k.path_ns),
           Decimal{k.gpu_ns > 0 ? 100 * k.path_ns / k.gpu_ns : 0,
                   fmt::format("{:.1f}", k.gpu_ns > 0 ? 100 * k.path_ns / k.gpu_ns : 0)}});
    }
    tables.push_back(std::move(kernels));
  }
  return tables;
}

nlohmann::ordered_json WhatIfJson(const g::WhatIfAnswer& a) {
  nlohmann::ordered_json j;
  j["run"] = a.run_id;
  j["primary_steps"] = a.primary;
  j["host_scale"] = a.host_scale ? nlohmann::ordered_json(*a.host_scale) : nlohmann::ordered_json();
  j["calibrated_to_ns"] = a.calibrated_to_ns ? nlohmann::ordered_json(*a.calibrated_to_ns) : nlohmann::ordered_json();
  j["edits"] = nlohmann::ordered_json::array();
  for (const auto& e : a.edits) j["edits"].push_back({{"edit", e.edit}, {"nodes", e.nodes}, {"edges", e.edges}});
  nlohmann::ordered_json edges;
  for (size_t k = 1; k < a.edges_by_kind.size(); ++k) {
    edges[std::string(g::EdgeKindName(static_cast<g::EdgeKind>(k)))] = a.edges_by_kind[k];
  }
  j["graph"] = {{"calls", a.calls},
                {"operations", a.ops},
                {"edges", edges},
                {"operations_without_launch", a.gaps.ops_without_launch},
                {"processes_without_calls", a.gaps.processes_without_calls},
                {"backward_edges", a.gaps.backward_edges},
                {"unmatched_collectives", a.gaps.unmatched_collectives},
                {"points_out_of_order", a.cyclic}};
  j["steps"] = nlohmann::ordered_json::array();
  for (const g::StepAnswer& s : a.steps) {
    nlohmann::ordered_json step{{"name", s.name},
                                {"source", s.source == g::StepSource::kStage ? "stage" : "iterations"},
                                {"marked_by", s.how},
                                {"steps", s.steps},
                                {"recorded_ns", s.recorded_ns},
                                {"replayed_ns", s.replayed_ns},
                                {"replay_error_pct", s.replay_error_pct},
                                {"predicted_ns", s.predicted_ns},
                                {"typical_steps", s.typical_steps},
                                {"typical_recorded_ns", s.typical_recorded_ns},
                                {"typical_predicted_ns", s.typical_predicted_ns}};
    nlohmann::ordered_json before, after;
    for (size_t p = 0; p < g::kPathParts; ++p) {
      const std::string name(g::PathPartName(static_cast<g::PathPart>(p)));
      before[name] = s.before[p];
      after[name] = s.after[p];
    }
    step["critical_path_ns"] = {{"recorded", before}, {"predicted", after}};
    step["ranks"] = nlohmann::ordered_json::array();
    for (const g::RankOnPath& r : s.ranks) {
      nlohmann::ordered_json parts;
      for (size_t p = 0; p < g::kPathParts; ++p)
        parts[std::string(g::PathPartName(static_cast<g::PathPart>(p)))] = r.parts[p];
      step["ranks"].push_back({{"rank", r.rank}, {"critical_path_ns", parts}});
    }
    step["kernels"] = nlohmann::ordered_json::array();
    for (const g::KernelOnPath& k : s.kernels) {
      step["kernels"].push_back(
          {{"name", k.name}, {"launches", k.launches}, {"gpu_ns_per_step", k.gpu_ns}, {"path_ns_per_step", k.path_ns}});
    }
    j["steps"].push_back(std::move(step));
  }
  j["notes"] = a.notes;
  return j;
}

void WriteWhatIf(const g::WhatIfAnswer& answer, std::ostream& out) {
  const g::WhatIfAnswer a = ForDisplay(answer);
  out << fmt::format("kscope whatif: run {}, edits: {}\n", a.run_id, EditsText(a));
  std::string edges;
  for (size_t k = 1; k < a.edges_by_kind.size(); ++k) {
    edges += fmt::format("{}{} {}", edges.empty() ? "" : ", ", a.edges_by_kind[k],
                         g::EdgeKindName(static_cast<g::EdgeKind>(k)));
  }
  out << fmt::format("graph: {} CUDA calls, {} GPU operations; edges: {}\n", a.calls, a.ops, edges);
  if (a.host_scale && a.calibrated_to_ns) {
    out << fmt::format(
        "calibrated: the host's time (its work between CUDA calls and the calls' own) x {:.3f}, so that {} "
        "replays in the {:.3f} ms measured without a profiler; Replayed and Predicted are of that run\n",
        *a.host_scale, StepName(a.primary), *a.calibrated_to_ns / 1e6);
  }
  for (const auto& n : a.notes) out << "note: " << n << "\n";
  for (const Table& t : WhatIfTables(answer)) {
    out << "\n";
    WriteText(t, out);
  }
}

}  // namespace kscope::report
