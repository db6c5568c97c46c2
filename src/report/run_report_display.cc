// ForDisplay (report/run_report.h): every text of a run's report as DisplayText shows it.
#include <utility>

#include "report/display_clean.h"
#include "report/run_report.h"

namespace kscope::report {

namespace {

using display::Clean;
using display::CleanKeys;

void Clean(std::vector<analysis::Finding>& findings) {
  for (auto& f : findings) {
    for (std::string* s : {&f.kind, &f.title, &f.detail, &f.size_unit, &f.fix}) Clean(*s);
    if (f.worth) {
      Clean(f.worth->edit);
      Clean(f.worth->steps);
    }
  }
}

void Clean(RunPart& run) {
  auto& m = run.manifest;
  for (auto* s : {&m.label, &m.model, &m.dtype, &m.gpu, &m.driver, &m.cuda_version, &m.ncu_version, &m.command,
                  &m.nsys_export_version, &m.nsys_tool_version}) {
    Clean(*s);
  }
  Clean(run.status);
  Clean(run.imported_at);
  if (run.rank) Clean(run.rank->rank_from);
  for (auto& [key, value] : m.tags) Clean(value);
  CleanKeys(m.tags);
}

void Clean(TimelinePart& timeline) {
  Clean(timeline.diagnosis.findings);
  for (auto& g : timeline.diagnosis.largest_gaps) {
    for (auto& h : g.host) Clean(h.api);
  }
}

void Clean(analysis::StageMfu& m) {
  for (auto* peak : {&m.peak, &m.ncu_peak}) {
    if (*peak) {
      Clean((*peak)->precision);
      Clean((*peak)->source);
    }
  }
  for (auto& l : m.lines) {
    Clean(l.name);
    Clean(l.formula);
  }
  for (std::string* s : {&m.mfu_source, &m.mfu_line, &m.bytes_source}) Clean(*s);
  Clean(m.notes);
  CleanKeys(m.measured_by_precision);
}

void Clean(StagePart& s) {
  for (std::string* t : {&s.name, &s.display_name, &s.text, &s.domain, &s.style}) Clean(*t);
  for (auto& t : s.other_threads.threads) Clean(t.name);
  if (s.backward_of_forward) {
    for (auto& o : s.backward_of_forward->by_forward_op) Clean(o.op);
  }
  for (auto& k : s.top_kernels) {
    Clean(k.name);
    Clean(k.short_name);
    Clean(k.family);
    Clean(k.bottleneck);
  }
  Clean(s.mfu);
  Clean(s.findings);
}

void Clean(KernelVerdict& v) {
  for (std::string* s : {&v.bottleneck, &v.top_stall, &v.why, &v.stall_unit, &v.ncu_name}) Clean(*s);
  Clean(v.rests_on);
  for (auto& s : v.stalls) Clean(s.reason);
}

void Clean(TopKernel& k) {
  for (std::string* s : {&k.name, &k.short_name, &k.base, &k.family, &k.library}) Clean(*s);
  if (k.verdict) Clean(*k.verdict);
}

void Clean(RooflinePart& roofline) {
  for (auto& p : roofline.points) {
    for (std::string* s : {&p.kernel, &p.short_name, &p.base, &p.family, &p.precision, &p.bottleneck}) Clean(*s);
  }
  for (auto& r : roofline.roofs) Clean(r.precision);
}

}  // namespace

RunReport ForDisplay(const RunReport& report) {
  RunReport r = report;
  Clean(r.run);
  Clean(r.timeline);
  for (auto& s : r.stages) Clean(s);
  for (auto& k : r.top_kernels) Clean(k);
  for (auto& p : r.profiled) {
    Clean(p.name);
    Clean(p.short_name);
    Clean(p.verdict);
  }
  for (auto& m : r.bottleneck_mix) Clean(m.bottleneck);
  Clean(r.roofline);
  Clean(r.notes);
  for (auto& rank : r.ranks) {
    Clean(rank.rank.rank_from);
    for (auto& t : rank.stages) Clean(t.stage);
    for (auto& c : rank.collectives) Clean(c.kind);
    for (auto& t : rank.gpu_stages) Clean(t.stage);
    for (auto& k : rank.top_kernels) Clean(k);
  }
  if (r.straggler) {
    Clean(r.straggler->step_stage);
    Clean(r.straggler->advice);
    Clean(r.straggler->overlap_advice);
  }
  if (r.incomplete) Clean(*r.incomplete);
  if (r.critical_path) {
    Clean(r.critical_path->steps);
    for (auto& k : r.critical_path->kernels) {
      Clean(k.name);
      Clean(k.short_name);
    }
  }
  if (r.iterations) {
    Clean(r.iterations->mfu);
    Clean(r.iterations->findings);
  }
  return r;
}

}  // namespace kscope::report
