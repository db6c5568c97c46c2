// kscope atlas's systemic signals as tables and JSON: each signal's state and reach, then the
// families that show it.
#include <fmt/format.h>

#include "report/atlas_report.h"

namespace kscope::report {

namespace {

using analysis::atlas::Atlas;

Decimal Num(double v, int decimals) { return {v, fmt::format("{:.{}f}", v, decimals)}; }

std::string Joined(const std::vector<std::string>& items, std::string_view sep = ", ") {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : std::string(sep)) + i;
  return out;
}

}  // namespace

Table AtlasSignalsTable(const Atlas& atlas) {
  Table t;
  t.title = "Systemic signals";
  t.columns = {"Signal", "State", "Families", "Of Families With Data", "Models", "GPU Time %", "Rule", "Rests On"};
  for (const auto& s : atlas.signals) {
    t.rows.push_back({s.title, std::string(SignalStateName(s.state)), static_cast<int64_t>(s.families.size()),
                      s.families_with_data, Joined(s.models), Num(s.gpu_time_pct, 1), s.rule, Joined(s.metrics, "; ")});
  }
  return t;
}

Table AtlasSignalFamiliesTable(const Atlas& atlas) {
  Table t;
  t.title = "Families that show a signal";
  t.columns = {"Signal", "Family",        "Library", "Launches", "Showing It",
               "Models", "GPU Time (ms)", "Detail",  "Value",    "Median Waves"};
  for (const auto& s : atlas.signals) {
    for (const auto& f : s.families) {
      t.rows.push_back({s.id, f.family, f.library, f.launches, f.matching, Joined(f.models),
                        Num(static_cast<double>(f.gpu_time_ns) / 1e6, 3), s.detail_name, Num(f.detail, 1),
                        f.median_waves ? Cell(Num(*f.median_waves, 2)) : Cell()});
    }
  }
  return t;
}

nlohmann::json AtlasSignalsJson(const Atlas& atlas) {
  using nlohmann::json;
  json out = json::array();
  for (const auto& s : atlas.signals) {
    json j{{"id", s.id},
           {"title", s.title},
           {"state", SignalStateName(s.state)},
           {"metrics", s.metrics},
           {"rule", s.rule},
           {"families_with_data", s.families_with_data},
           {"models", s.models},
           {"gpu_time_pct", s.gpu_time_pct},
           {"detail_name", s.detail_name},
           {"advice", s.advice}};
    j["families"] = json::array();
    for (const auto& f : s.families) {
      j["families"].push_back({{"family", f.family},
                               {"library", f.library},
                               {"launches", f.launches},
                               {"matching", f.matching},
                               {"models", f.models},
                               {"gpu_time_ns", f.gpu_time_ns},
                               {"detail", f.detail},
                               {"median_waves", f.median_waves ? json(*f.median_waves) : json()}});
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace kscope::report
