// Notes on what a run's numbers leave out: rows the import skipped, and NVTX ranges never
// closed (their stage time is not measured but assumed).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report/run_report_parts.h"
#include "store/column_codec.h"

namespace kscope::report::parts {

Status AddDataNotes(store::Store& store, int64_t run_id, int64_t timeline_run, const analysis::NsysEvents& nsys,
                    std::vector<std::string>& notes) {
  auto q = store.db().Prepare("SELECT coalesce(sum(rows_skipped), 0) FROM source_file WHERE run_id IN (?1, ?2)");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id).Bind(2, timeline_run);
  if (!q->Step()) return q->status();
  if (const int64_t skipped = q->Int(0); skipped > 0) {
    notes.push_back(
        fmt::format("{} bad row{} of the imported files {} left out of every number (list them with: kscope query "
                    "\"SELECT * FROM import_problem WHERE run_id IN ({}, {})\")",
                    skipped, skipped == 1 ? "" : "s", skipped == 1 ? "is" : "are", run_id, timeline_run));
  }
  std::vector<int64_t> open;  // text ids of ranges never closed
  for (size_t i = 0; i < nsys.nvtx.end.size(); ++i) {
    if (nsys.nvtx.end[i] == store::kNull) open.push_back(nsys.nvtx.text[i]);
  }
  if (open.empty()) return Status::Ok();
  auto names = store.Strings(open);
  if (!names.ok()) return names.error();
  const std::string first = (*names)[open.front()];
  notes.push_back(
      open.size() == 1
          ? fmt::format("1 NVTX range was never closed ('{}'): it is taken to end at the run's last NVTX timestamp, "
                        "so its time is a guess (0 ms when it opened last)",
                        first)
          : fmt::format("{} NVTX ranges were never closed (the first: '{}'): they are taken to end at the run's last "
                        "NVTX timestamp, so their times are guesses (0 ms for one that opened last)",
                        open.size(), first));
  return Status::Ok();
}

namespace {

// What the capture's steps say stopped: "ncu pass1 timed out", "nsys interrupted", ...
std::string StoppedSteps(const nlohmann::json& capture) {
  std::string out;
  if (!capture.contains("steps") || !capture["steps"].is_array()) return out;
  for (const auto& step : capture["steps"]) {
    if (!step.is_object()) continue;
    const std::string name = step.value("name", std::string("step"));
    std::string how;
    if (step.value("timed_out", false))
      how = "timed out";
    else if (step.value("interrupted", false))
      how = "was interrupted";
    else if (!step.contains("exit_code"))
      how = "did not finish";
    else if (step["exit_code"].is_number_integer() && step["exit_code"].get<int64_t>() != 0)
      how = fmt::format("exited with {}", step["exit_code"].get<int64_t>());
    if (!how.empty()) out += (out.empty() ? "" : "; ") + name + " " + how;
  }
  return out;
}

}  // namespace

Status AddCompleteness(store::Store& store, const store::RunInfo& run, int64_t profiled_launches, RunReport& out) {
  if (run.status == "complete") return Status::Ok();
  auto q = store.db().Prepare("SELECT coalesce(capture, '') FROM run WHERE id = ?1");
  if (!q.ok()) return q.error();
  q->Bind(1, run.id);
  if (!q->Step()) return q->status();
  const auto capture = nlohmann::json::parse(q->Text(0), nullptr, false);
  std::string what = fmt::format("INCOMPLETE RUN (status '{}'): kscope profile did not finish it", run.status);
  if (!capture.is_discarded() && capture.is_object()) {
    if (capture.contains("error") && capture["error"].is_string()) what += ": " + capture["error"].get<std::string>();
    if (const std::string stopped = StoppedSteps(capture); !stopped.empty()) what += "; " + stopped;
  }
  what += profiled_launches > 0
              ? fmt::format(
                    "; missing: what the unfinished steps would have added ({} launches profiled by ncu are "
                    "in)",
                    profiled_launches)
              : "; missing: every ncu result (kernel classes, roofline, measured FLOPs)";
  out.incomplete = what;
  return Status::Ok();
}

void AddAboveHundredNote(RunReport& out) {
  std::string which;
  int64_t count = 0;
  for (const auto& k : out.top_kernels) {
    if (!k.verdict) continue;
    const KernelVerdict& v = *k.verdict;
    for (const auto& [name, value] :
         {std::pair{"SM", v.sm_pct}, std::pair{"DRAM", v.dram_pct}, std::pair{"L1 hit", v.l1_hit_pct},
          std::pair{"L2 hit", v.l2_hit_pct}, std::pair{"occupancy", v.achieved_occupancy_pct}}) {
      if (!value || *value <= 100) continue;
      if (++count <= 3) which += fmt::format("{}{} {:.1f}% (#{})", which.empty() ? "" : ", ", name, *value, k.rank);
    }
  }
  if (count == 0) return;
  out.notes.push_back(fmt::format(
      "{} value{} that ncu reports above 100% ({}{}) {} shown as ncu gives {} and marked '!': ncu's counters are "
      "sampled and can pass their bound; read them as 100%",
      count, count == 1 ? "" : "s", which, count > 3 ? ", ..." : "", count == 1 ? "is" : "are",
      count == 1 ? "it" : "them"));
}

}  // namespace kscope::report::parts
