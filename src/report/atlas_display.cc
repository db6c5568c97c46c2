// ForDisplay (report/atlas_report.h): every text of an atlas as DisplayText shows it.
#include <utility>

#include "report/atlas_report.h"
#include "report/display_clean.h"

namespace kscope::report {

namespace {

using analysis::atlas::Atlas;

using display::Clean;
using display::CleanKeys;

void CleanRows(Atlas& a) {
  for (auto& p : a.popularity) {
    for (std::string* s : {&p.key, &p.family, &p.library}) Clean(*s);
    CleanKeys(p.share_pct);
  }
  for (auto& p : a.performance) {
    for (std::string* s : {&p.key, &p.family, &p.library}) Clean(*s);
    CleanKeys(p.classes);
    CleanKeys(p.top_stalls);
  }
  for (auto& c : a.correlates) {
    for (std::string* s : {&c.key, &c.family, &c.library}) Clean(*s);
    for (auto& b : c.bins) Clean(b.bin);
    for (auto& o : c.outliers) {
      Clean(o.kernel);
      Clean(o.shape);
      Clean(o.models);
    }
  }
}

void CleanSignals(Atlas& a) {
  for (auto& s : a.signals) {
    for (std::string* t : {&s.id, &s.title, &s.rule, &s.detail_name, &s.advice}) Clean(*t);
    Clean(s.metrics);
    Clean(s.models);
    for (auto& f : s.families) {
      Clean(f.family);
      Clean(f.library);
      Clean(f.models);
    }
  }
}

}  // namespace

Atlas ForDisplay(const Atlas& atlas) {
  Atlas a = atlas;
  for (auto& r : a.runs) Clean(r.model);
  Clean(a.models);
  CleanRows(a);
  CleanSignals(a);
  for (auto& c : a.communication) Clean(c.model);
  return a;
}

}  // namespace kscope::report
