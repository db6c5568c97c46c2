// kscope profile's discovery: the workload under nsys, the report's SQLite export, its import
// into the run.
#include <fmt/format.h>

#include <csignal>
#include <filesystem>

#include "capture/commands.h"
#include "capture/profile.h"
#include "capture/profile_run.h"
#include "capture/progress.h"
#include "import/import_files.h"
#include "tools/tool_output.h"
#include "util/sqlite.h"

namespace kscope::capture {

namespace fs = std::filesystem;

namespace {

class Discovery {
 public:
  Discovery(store::Store& store, ProcessRunner& runner, const Toolchain& tools, std::ostream& out, bool tty,
            const ProfileRequest& req, Capture& cap)
      : store_(store), runner_(runner), tools_(tools), out_(out), tty_(tty), req_(req), cap_(cap) {}

  // nsys profile: the report it wrote; `failed` says so when the workload failed (what nsys
  // recorded up to then is still exported and imported).
  Result<std::string> Profile(int64_t& workload_runs, std::optional<Error>& failed) {
    Progress progress(out_, tty_, "[1/3] nsys");
    const std::string base = (cap_.dir.nsys() / "discovery").string();
    ProcessSpec spec;
    spec.env = NsysProfileEnv(req_.config.nsys);
    spec.env.insert(cap_.workload_env.begin(), cap_.workload_env.end());
    for (const auto& [k, v] : RunEnv(req_, workload_runs)) spec.env[k] = v;
    spec.argv = NsysProfileArgv(tools_.nsys, req_.config.nsys, base, cap_.workload, SeesSomeGpusOnly(spec.env));
    spec.log_path = (cap_.dir.logs() / "nsys_profile.log").string();
    spec.timeout_s = req_.config.profile.nsys_timeout_s;
    spec.stop_signal = SIGINT;  // nsys ends collection and writes its report on SIGINT
    spec.kill_grace_s = 120;
    NsysOutput nsys_out;
    spec.on_line = [&](std::string_view l) { nsys_out.Feed(l); };
    const size_t step = cap_.Step("nsys profile", spec.argv, spec.log_path);
    for (const auto& [k, v] : spec.env) cap_.At(step)["env"][k] = v;
    progress.Start(ShellQuote(cap_.workload));
    auto run = runner_.Run(spec);
    if (!run.ok()) return run.error();
    ++workload_runs;
    cap_.Record(step, *run);
    const std::string report = base + ".nsys-rep";
    std::error_code ec;
    const bool have_report = fs::exists(report, ec);
    progress.Done(fmt::format("{} in {:.1f} s", run->Describe(), run->seconds));
    if (run->interrupted && !have_report) return cap_.InterruptedDuring("the nsys run");
    if (run->timed_out && !have_report) {
      return LogHint(Error{"nsys", fmt::format("stopped at its time limit ({} s)", req_.config.profile.nsys_timeout_s),
                           "raise profile.nsys_timeout_s or gate on a range with nsys.capture_range"},
                     spec.log_path);
    }
    if (!have_report) {
      if (nsys_out.importer_failed) {
        return LogHint(
            Error{"nsys", "recorded the run but could not turn it into a report (its importer failed to start)",
                  "the importer needs libdw.so.1 and libelf.so.1 (Debian/Ubuntu: libdw1, libelf1); kscope doctor "
                  "checks this"},
            spec.log_path);
      }
      if (nsys_out.no_reports && !req_.config.nsys.capture_range.empty()) {
        return LogHint(
            Error{"nsys",
                  fmt::format("recorded nothing: the capture range '{}' never opened", req_.config.nsys.capture_range),
                  "check the range's name (nsys writes range@domain for a named domain) or leave "
                  "nsys.capture_range empty"},
            spec.log_path);
      }
      if (!run->ok()) {
        return LogHint(Error{"nsys",
                             "the workload failed under nsys (" + run->Describe() +
                                 ") and no report "
                                 "was written",
                             "run the workload alone to see why"},
                       spec.log_path);
      }
      return LogHint(Error{"nsys", "wrote no report (" + report + ")", "see its output"}, spec.log_path);
    }
    const double report_mb = static_cast<double>(fs::file_size(report, ec)) / 1e6;
    if (!ec && req_.config.profile.max_trace_mb > 0 && report_mb > req_.config.profile.max_trace_mb) {
      return Error{report,
                   fmt::format("nsys's report is {:.{}f} MB, above profile.max_trace_mb={:g}; its SQLite "
                               "export would be larger still",
                               report_mb, report_mb < 10 ? 1 : 0, req_.config.profile.max_trace_mb),
                   "record less (nsys.duration_s=S, or an NVTX range with nsys.capture_range), or raise "
                   "profile.max_trace_mb; the report is kept"};
    }
    if (!run->ok()) {
      failed = LogHint(
          Error{"nsys",
                fmt::format("the workload {} under nsys", run->interrupted ? "was interrupted" : run->Describe()),
                "the discovery data up to then is in the run; fix the workload and profile again"},
          spec.log_path);
    }
    return report;
  }

  // nsys export to SQLite, and its import into the run.
  Status ExportAndImport(const std::string& report) {
    // Export and import what nsys wrote, also after a failure: it is what was gathered.
    Progress exp_progress(out_, tty_, "      export");
    const std::string sqlite = (cap_.dir.nsys() / "discovery.sqlite").string();
    std::error_code ec;
    ProcessSpec ex;
    ex.argv = NsysExportArgv(tools_.nsys, report, sqlite);
    ex.log_path = (cap_.dir.logs() / "nsys_export.log").string();
    ex.timeout_s = req_.config.profile.nsys_timeout_s;
    const size_t ex_step = cap_.Step("nsys export", ex.argv, ex.log_path);
    auto exported = runner_.Run(ex);
    if (!exported.ok()) return exported.error();
    cap_.Record(ex_step, *exported);
    if (!exported->ok() || !fs::exists(sqlite, ec)) {
      return LogHint(Error{"nsys export", "could not export the report to SQLite (" + exported->Describe() + ")",
                           "the report is kept: " + report},
                     ex.log_path);
    }
    import::ImportOptions opts;
    opts.into_run = cap_.run_id;
    auto imported = import::ImportFiles(store_, {sqlite}, opts);
    if (!imported.ok()) return imported.error();
    exp_progress.Done(fmt::format("{} rows imported", imported->front().rows_read));
    RecordWorkloadTime(sqlite);
    NoteMissingGpuMetrics(sqlite);
    return Status::Ok();
  }

 private:
  // nsys was asked for GPU metrics and its export has none: it records none when another
  // profiler holds the GPU's counters (ncu, DCGM, a kscope profile of another GPU of the node
  // sampling every GPU) or the GPU does not allow it, and says nothing of it.
  void NoteMissingGpuMetrics(const std::string& sqlite) {
    if (req_.config.nsys.gpu_metrics != "on") return;
    auto db = sql::Db::Open(sqlite, sql::OpenMode::kReadOnly);
    if (!db.ok()) return;
    auto q = db->Prepare("SELECT count(*) FROM sqlite_master WHERE name = 'GPU_METRICS'");
    if (!q.ok() || !q->Step() || q->Int(0) != 0) return;
    cap_.Note(
        "nsys sampled no GPU metrics (nsys.gpu_metrics=on), so no stage or iteration shows the sampled SM, tensor "
        "and DRAM activity: another profiler held the GPU's counters (ncu, DCGM, an nsys sampling every GPU of the "
        "node) or the GPU does not allow it (kscope doctor)",
        out_);
  }

  // The workload's wall time under nsys (its session's duration), which every ncu run repeats:
  // for the selection's estimate of the ncu time (selection.workload_s).
  void RecordWorkloadTime(const std::string& sqlite) {
    auto db = sql::Db::Open(sqlite, sql::OpenMode::kReadOnly);
    if (!db.ok()) return;
    auto q = db->Prepare("SELECT duration FROM ANALYSIS_DETAILS");
    if (q.ok() && q->Step() && !q->IsNull(0)) cap_.manifest["workload_s"] = static_cast<double>(q->Int(0)) * 1e-9;
  }

  store::Store& store_;
  ProcessRunner& runner_;
  const Toolchain& tools_;
  std::ostream& out_;
  bool tty_;
  const ProfileRequest& req_;
  Capture& cap_;
};

}  // namespace

Result<int64_t> ProfileSession::Discover(const ProfileRequest& req, Capture& cap) {
  if (req.discovery_run != 0) {
    cap.manifest["discovery_run"] = req.discovery_run;
    return req.discovery_run;
  }
  Discovery discovery(store_, runner_, tools_, out_, tty_, req, cap);
  std::optional<Error> failed;
  auto report = discovery.Profile(workload_runs_, failed);
  if (!report.ok()) return report.error();
  KSCOPE_RETURN_IF_ERROR(discovery.ExportAndImport(*report));
  if (failed) return *failed;
  if (Interrupted()) return cap.InterruptedDuring("the discovery");
  return cap.run_id;
}

}  // namespace kscope::capture
