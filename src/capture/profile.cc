#include "capture/profile.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <optional>

#include "analysis/names/communication.h"
#include "capture/commands.h"
#include "capture/ncu_catalog.h"
#include "capture/ncu_communicator.h"
#include "capture/planned_links.h"
#include "capture/progress.h"
#include "capture/rank.h"
#include "capture/run_dir.h"
#include "capture/tool_output.h"
#include "import/import_files.h"
#include "import/ncu/rep_reader.h"
#include "util/closest.h"
#include "util/utc_now.h"

namespace kscope::capture {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The state of one profile run: its directory, its manifest and the steps taken.
struct Capture {  // NOLINT(bugprone-exception-escape): its implicit constructor allocates nothing
  int64_t run_id = 0;
  RunDir dir;
  json manifest;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();

  // Steps are addressed by index: a reference into the array would dangle when it grows.
  size_t Step(const std::string& name, const std::vector<std::string>& argv, const std::string& log) {
    manifest["steps"].push_back({{"name", name}, {"argv", argv}, {"log", fs::relative(log, dir.root).string()}});
    return manifest["steps"].size() - 1;
  }
  json& At(size_t step) { return manifest["steps"][step]; }
  void Record(size_t index, const ProcessOutcome& o) {
    json& step = At(index);
    step["exit_code"] = o.exit_code;
    if (o.signal != 0) step["signal"] = o.signal;
    if (o.timed_out) step["timed_out"] = true;
    if (o.interrupted) step["interrupted"] = true;
    step["seconds"] = std::round(o.seconds * 1000) / 1000;
  }
};

// The workload's argv with each {kscope.run_dir} replaced by the run directory.
std::vector<std::string> WithRunDir(const std::vector<std::string>& argv, const std::string& run_dir) {
  constexpr std::string_view kPlaceholder = "{kscope.run_dir}";
  std::vector<std::string> out = argv;
  for (auto& arg : out) {
    for (size_t at = arg.find(kPlaceholder); at != std::string::npos;
         at = arg.find(kPlaceholder, at + run_dir.size())) {
      arg.replace(at, kPlaceholder.size(), run_dir);
    }
  }
  return out;
}

// How the deep pass's reports become numbers: the native reader (its own version, and the
// report format it reads) or the pages the installed ncu exports.
json NcuImportJson(const config::NcuConfig& c) {
  if (c.import == "export") return {{"by", "ncu's raw and details pages (ncu --import REPORT --page PAGE --csv)"}};
  return {{"by", "kscope's .ncu-rep reader"},
          {"reader_version", import::ncu::kRepReaderVersion},
          {"report_format_version", import::ncu::kRepVersionRead}};
}

// An ncu run stopped by the progress watchdog: the launch it was stuck at, and the way out.
Error StallError(const Selection& sel, const NcuOutput& out, double stall_s) {
  std::string name = out.stuck_kernel;
  for (const auto& k : sel.kernels) {
    if (k.mangled == out.stuck_kernel) name = k.name;
  }
  const std::string shown = name.size() > 120 ? name.substr(0, 117) + "..." : name;
  const bool comm = analysis::CommunicationOf(name).has_value();
  const bool app_replay = sel.replay == "application";
  return Error{"ncu",
               fmt::format("no progress for {:g} s while profiling launch {} ('{}'), stopped", stall_s,
                           out.profiled + 1, shown.empty() ? "unknown kernel" : shown),
               comm && app_replay
                   ? "it is a communication kernel: ncu reran the whole job for each of its passes and one run made no "
                     "progress (ncu's own hint is --replay-mode app-range over a range of launches); leave "
                     "selection.communication off (the default) to measure it from nsys; the launches profiled "
                     "before it are in the run"
               : comm ? "it is a communication kernel, whose replay on one rank waits for peers that do not replay it: "
                        "leave selection.communication off (the default); the launches profiled before it are in the "
                        "run"
               : sel.ranks > 1
                   ? "in a job of several ranks a collective that runs beside a compute kernel (FSDP's prefetched "
                     "all-gathers) can hold its replay: leave the kernel out (selection.kernel, selection.exclude, "
                     "selection.top); the launches profiled before it are in the run"
                   : "a kernel that waits on another process or GPU cannot be replayed alone: leave it out "
                     "(selection.kernel, selection.top), or raise profile.ncu_stall_timeout_s if its passes are that "
                     "slow; the launches profiled before it are in the run"};
}

Error LogHint(Error e, const std::string& log) {
  e.fix += (e.fix.empty() ? "" : "; ") + std::string("its output: ") + log;
  return e;
}

}  // namespace

Status ProfileSession::DryRun(const ProfileRequest& req) {
  const auto& c = req.config;
  const std::string base = (fs::path(c.profile.runs_dir) / "<run-id>").string();
  if (req.discovery_run == 0) {
    out_ << "# discovery\n"
         << ShellQuote(NsysProfileArgv(tools_.nsys, c.nsys, base + "/nsys/discovery", req.workload)) << "\n";
    for (const auto& [k, v] : NsysProfileEnv(c.nsys)) out_ << "#   with " << k << "=" << v << "\n";
    out_ << ShellQuote(NsysExportArgv(tools_.nsys, base + "/nsys/discovery.nsys-rep", base + "/nsys/discovery.sqlite"))
         << "\n# deep pass: the kernels are chosen from the discovery run (--discovery RUN shows them now)\n";
    Selection placeholder;
    placeholder.warmup = c.selection.warmup;
    placeholder.launches = c.selection.launches;
    if (!c.selection.stage.empty()) {
      placeholder.nvtx_include = c.selection.stage + "/";
      out_ << "# (the NVTX filter of a start/end range has no trailing '/': the discovery run tells which)\n";
    }
    out_ << ShellQuote(NcuProfileArgv(tools_.ncu, c.ncu, placeholder, NcuPass{{}, "<selected kernels>", {}},
                                      NcuMetrics(c.ncu), base + "/ncu/pass1", req.workload))
         << "\n";
    return Status::Ok();
  }
  auto sel = SelectKernels(store_, req.discovery_run, c.selection, EstimatedPasses(c.ncu), c.stages.warmup,
                           c.profile.ncu_rank);
  if (!sel.ok()) return sel.error();
  out_ << FormatSelection(*sel);
  const auto metrics = NcuMetrics(c.ncu);
  for (size_t p = 0; p < sel->passes.size(); ++p) {
    out_ << fmt::format("# deep pass {} of {}\n", p + 1, sel->passes.size())
         << ShellQuote(NcuProfileArgv(tools_.ncu, c.ncu, *sel, sel->passes[p], metrics,
                                      fmt::format("{}/ncu/pass{}", base, p + 1), req.workload))
         << "\n";
  }
  out_ << "# each kernel alone\n";
  for (const auto& k : sel->kernels)
    out_ << ShellQuote(NcuKernelArgv(tools_.ncu, c.ncu, *sel, k, metrics, req.workload)) << "\n";
  return Status::Ok();
}

Result<ProfileResult> ProfileSession::Run(const ProfileRequest& req) {
  const auto& cfg = req.config;
  workload_runs_ = 0;
  auto run_env = [&](int64_t run) { return req.run_env ? req.run_env(run) : std::map<std::string, std::string>{}; };
  if (req.workload.empty())
    return Error{"", "no workload to profile", "write: kscope profile [options] -- COMMAND ARGS..."};
  if (req.dry_run) {
    KSCOPE_RETURN_IF_ERROR(DryRun(req));
    return ProfileResult{};
  }
  // Checks that need no run: the tools, their versions, the GPU.
  std::error_code ec;
  fs::create_directories(cfg.profile.runs_dir, ec);
  const fs::path pre_logs = fs::path(cfg.profile.runs_dir) / ".preflight";  // this run's checks only
  fs::remove_all(pre_logs, ec);
  fs::create_directories(pre_logs, ec);
  const bool need_nsys = req.discovery_run == 0;
  if (!versions_.contains(need_nsys)) {
    auto checked = CheckToolVersions(runner_, tools_, pre_logs.string(), need_nsys, true);
    if (!checked.ok()) return checked.error();
    versions_[need_nsys] = *checked;
  }
  const ToolVersions* versions = &versions_[need_nsys];
  auto gpu = QueryGpu(runner_, pre_logs.string());
  if (!gpu.ok()) return gpu.error();
  // What this ncu offers on this GPU (asked once per version and GPU): the set, sections and
  // metrics asked for must exist; FLOP counters it lacks are left out, with a note.
  auto catalog =
      LoadNcuCatalog(runner_, tools_.ncu, versions->ncu, *gpu ? (*gpu)->name : std::string(),
                     cfg.profile.cache_dir.empty() ? DefaultCacheDir() : cfg.profile.cache_dir, pre_logs.string());
  if (!catalog.ok()) return catalog.error();
  KSCOPE_RETURN_IF_ERROR(CheckRequest(*catalog, NcuSet(cfg.ncu), NcuSections(cfg.ncu), cfg.ncu.metrics));
  const MetricCheck check = CheckMetrics(*catalog, NcuMetrics(cfg.ncu));
  const std::vector<std::string> metrics = check.present;
  std::string metric_note;
  if (!check.missing.empty()) {
    std::string missing;
    for (const auto& m : check.missing) missing += (missing.empty() ? "" : ", ") + m;
    metric_note = fmt::format("ncu {} on this GPU lacks {} of the FLOP metrics, left out: {}", versions->ncu,
                              check.missing.size(), missing);
  }

  // With a discovery run given, the selection is made now, so a mistake (a kernel or range
  // that is not there) is found before a run is made for it; step 2 uses it.
  std::optional<Selection> early;
  if (req.discovery_run != 0) {
    auto sel = SelectKernels(store_, req.discovery_run, cfg.selection, EstimatedPasses(cfg.ncu), cfg.stages.warmup,
                             cfg.profile.ncu_rank);
    if (!sel.ok()) return sel.error();
    early = std::move(sel).value();
  }

  // The run, in the store and on disk, before anything long starts.
  Capture cap;
  store::Manifest manifest = req.manifest;
  manifest.command = ShellQuote(req.workload);
  manifest.nsys_tool_version = versions->nsys.empty() ? std::nullopt : std::optional<std::string>(versions->nsys);
  manifest.ncu_version = versions->ncu;
  if (!cfg.model.name.empty() && !manifest.model) manifest.model = cfg.model.name;
  if (!cfg.model.dtype.empty() && !manifest.dtype) manifest.dtype = cfg.model.dtype;
  for (const auto& [k, v] : req.sweep_point) manifest.tags["sweep." + k] = v;
  {
    auto tx = sql::Transaction::Begin(store_.db());
    if (!tx.ok()) return tx.error();
    auto id = store_.CreateRun(manifest);
    if (!id.ok()) return id.error();
    KSCOPE_RETURN_IF_ERROR(store_.SetRunStatus(*id, "running", ""));
    KSCOPE_RETURN_IF_ERROR(tx->Commit());
    cap.run_id = *id;
  }
  auto dir = MakeRunDir(cfg.profile.runs_dir, cap.run_id);
  if (!dir.ok()) return dir.error();
  cap.dir = *dir;
  // The workload learns its run directory from KSCOPE_RUN_DIR, or from {kscope.run_dir} in its
  // arguments (Hydra: hydra.run.dir={kscope.run_dir}/hydra); nothing else in them changes.
  const std::string run_dir = fs::absolute(cap.dir.root, ec).string();
  const std::vector<std::string> workload = WithRunDir(req.workload, run_dir);
  const std::map<std::string, std::string> workload_env{{"KSCOPE_RUN_DIR", run_dir}};
  ProfileResult result;
  result.run_id = cap.run_id;
  result.run_dir = cap.dir.root.string();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  cap.manifest = {{"kscope_run", cap.run_id},
                  {"status", "running"},
                  {"started_at", UtcNow()},
                  {"host", host},
                  {"cwd", fs::current_path(ec).string()},
                  {"run_dir", run_dir},  // where kscope report writes
                  {"workload", workload},
                  {"command", ShellQuote(workload)},
                  {"config", config::ToYaml(cfg)},
                  {"run", RunDescription(manifest)},  // kept by kscope import DIR elsewhere
                  {"sweep_point", req.sweep_point},
                  {"environment", {{"CUDA_VISIBLE_DEVICES", visible == nullptr ? json() : json(visible)}}},
                  {"tools",
                   {{"nsys", {{"path", tools_.nsys}, {"version", versions->nsys}}},
                    {"ncu", {{"path", tools_.ncu}, {"version", versions->ncu}}}}},
                  {"steps", json::array()},
                  {"notes", json::array()}};
  if (*gpu) cap.manifest["gpu"] = ToJson(**gpu);
  // Which job and rank this is: kscope import DIR... makes one run of a job's directories.
  if (auto job = JobJson(req.env, req.job); !job.is_null()) cap.manifest["job"] = job;
  if (!torch_.contains(workload[0])) torch_[workload[0]] = TorchVersion(runner_, workload, cap.dir.logs().string());
  if (const auto& torch = torch_[workload[0]]) {
    cap.manifest["environment"]["torch"] = *torch;
    cap.manifest["environment"]["python"] = WorkloadPython(workload);  // the Python that was asked
  }
  cap.manifest["ncu_settings"] = {{"mode", cfg.ncu.mode},
                                  {"set", NcuSet(cfg.ncu)},
                                  {"sections", NcuSections(cfg.ncu)},
                                  {"flops", cfg.ncu.flops},
                                  {"replay", cfg.ncu.replay},
                                  {"clock_control", cfg.ncu.clock_control},
                                  {"cache_control", cfg.ncu.cache_control},
                                  {"import", NcuImportJson(cfg.ncu)}};
  KSCOPE_RETURN_IF_ERROR(WriteManifest(cap.dir, cap.manifest));
  out_ << fmt::format("kscope profile: run {} in {}\n", cap.run_id, cap.dir.root.string());
  if (auto old = ApplyRetention(cfg.profile.runs_dir, cfg.profile.keep_runs, cfg.profile.old_runs); old.ok()) {
    for (const auto& line : *old) out_ << "  " << line << "\n";
  }

  // Ends the run: its status in the store and on disk; `error` says why it stopped early.
  auto finish = [&](std::optional<Error> error) -> Result<ProfileResult> {
    result.complete = !error.has_value();
    result.error = error;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - cap.t0).count();
    cap.manifest["status"] = result.complete ? "complete" : "incomplete";
    cap.manifest["finished_at"] = UtcNow();
    cap.manifest["seconds"] = std::round(result.seconds * 10) / 10;
    if (error) cap.manifest["error"] = error->Line();
    KSCOPE_RETURN_IF_ERROR(WriteManifest(cap.dir, cap.manifest));
    KSCOPE_RETURN_IF_ERROR(
        store_.SetRunStatus(cap.run_id, result.complete ? "complete" : "incomplete", cap.manifest.dump()));
    return result;
  };
  auto interrupted = [&](const std::string& during) {
    return Error{cap.dir.root.string(), "interrupted during " + during,
                 fmt::format("run {} is marked incomplete and holds what was gathered", cap.run_id)};
  };

  // 1. Discovery: nsys, its SQLite export, the import.
  int64_t discovery = req.discovery_run;
  if (discovery == 0) {
    Progress progress(out_, tty_, "[1/3] nsys");
    const std::string base = (cap.dir.nsys() / "discovery").string();
    ProcessSpec spec;
    spec.argv = NsysProfileArgv(tools_.nsys, cfg.nsys, base, workload);
    spec.env = NsysProfileEnv(cfg.nsys);
    spec.env.insert(workload_env.begin(), workload_env.end());
    for (const auto& [k, v] : run_env(workload_runs_)) spec.env[k] = v;
    spec.log_path = (cap.dir.logs() / "nsys_profile.log").string();
    spec.timeout_s = cfg.profile.nsys_timeout_s;
    spec.stop_signal = SIGINT;  // nsys ends collection and writes its report on SIGINT
    spec.kill_grace_s = 120;
    NsysOutput nsys_out;
    spec.on_line = [&](std::string_view l) { nsys_out.Feed(l); };
    const size_t step = cap.Step("nsys profile", spec.argv, spec.log_path);
    for (const auto& [k, v] : spec.env) cap.At(step)["env"][k] = v;
    progress.Start(ShellQuote(workload));
    auto run = runner_.Run(spec);
    if (!run.ok()) return finish(run.error());
    ++workload_runs_;
    cap.Record(step, *run);
    const std::string report = base + ".nsys-rep";
    const bool have_report = fs::exists(report, ec);
    progress.Done(fmt::format("{} in {:.1f} s", run->Describe(), run->seconds));
    if (run->interrupted && !have_report) return finish(interrupted("the nsys run"));
    if (run->timed_out && !have_report) {
      return finish(LogHint(Error{"nsys", fmt::format("stopped at its time limit ({} s)", cfg.profile.nsys_timeout_s),
                                  "raise profile.nsys_timeout_s or gate on a range with nsys.capture_range"},
                            spec.log_path));
    }
    if (!have_report) {
      if (nsys_out.importer_failed) {
        return finish(LogHint(
            Error{"nsys", "recorded the run but could not turn it into a report (its importer failed to start)",
                  "the importer needs libdw.so.1 and libelf.so.1 (Debian/Ubuntu: libdw1, libelf1); kscope doctor "
                  "checks this"},
            spec.log_path));
      }
      if (nsys_out.no_reports && !cfg.nsys.capture_range.empty()) {
        return finish(LogHint(
            Error{"nsys", fmt::format("recorded nothing: the capture range '{}' never opened", cfg.nsys.capture_range),
                  "check the range's name (nsys writes range@domain for a named domain) or leave "
                  "nsys.capture_range empty"},
            spec.log_path));
      }
      if (!run->ok()) {
        return finish(LogHint(Error{"nsys",
                                    "the workload failed under nsys (" + run->Describe() +
                                        ") and no report "
                                        "was written",
                                    "run the workload alone to see why"},
                              spec.log_path));
      }
      return finish(LogHint(Error{"nsys", "wrote no report (" + report + ")", "see its output"}, spec.log_path));
    }
    const double report_mb = static_cast<double>(fs::file_size(report, ec)) / 1e6;
    if (!ec && cfg.profile.max_trace_mb > 0 && report_mb > cfg.profile.max_trace_mb) {
      return finish(Error{report,
                          fmt::format("nsys's report is {:.{}f} MB, above profile.max_trace_mb={:g}; its SQLite "
                                      "export would be larger still",
                                      report_mb, report_mb < 10 ? 1 : 0, cfg.profile.max_trace_mb),
                          "record less (nsys.duration_s=S, or an NVTX range with nsys.capture_range), or raise "
                          "profile.max_trace_mb; the report is kept"});
    }
    std::optional<Error> workload_failed;
    if (!run->ok()) {
      workload_failed = LogHint(
          Error{"nsys",
                fmt::format("the workload {} under nsys", run->interrupted ? "was interrupted" : run->Describe()),
                "the discovery data up to then is in the run; fix the workload and profile again"},
          spec.log_path);
    }
    // Export and import what nsys wrote, also after a failure: it is what was gathered.
    Progress exp_progress(out_, tty_, "      export");
    const std::string sqlite = base + ".sqlite";
    ProcessSpec ex;
    ex.argv = NsysExportArgv(tools_.nsys, report, sqlite);
    ex.log_path = (cap.dir.logs() / "nsys_export.log").string();
    ex.timeout_s = cfg.profile.nsys_timeout_s;
    const size_t ex_step = cap.Step("nsys export", ex.argv, ex.log_path);
    auto exported = runner_.Run(ex);
    if (!exported.ok()) return finish(exported.error());
    cap.Record(ex_step, *exported);
    if (!exported->ok() || !fs::exists(sqlite, ec)) {
      return finish(LogHint(Error{"nsys export", "could not export the report to SQLite (" + exported->Describe() + ")",
                                  "the report is kept: " + report},
                            ex.log_path));
    }
    import::ImportOptions opts;
    opts.into_run = cap.run_id;
    auto imported = import::ImportFiles(store_, {sqlite}, opts);
    if (!imported.ok()) return finish(imported.error());
    exp_progress.Done(fmt::format("{} rows imported", imported->front().rows_read));
    if (workload_failed) return finish(workload_failed);
    if (Interrupted()) return finish(interrupted("the discovery"));
    discovery = cap.run_id;
  } else {
    cap.manifest["discovery_run"] = discovery;
  }

  // 2. Selection, and what the installed ncu offers of the metrics it will be asked for.
  Result<Selection> sel = early ? Result<Selection>(std::move(*early))
                                : SelectKernels(store_, discovery, cfg.selection, EstimatedPasses(cfg.ncu),
                                                cfg.stages.warmup, cfg.profile.ncu_rank);
  if (!sel.ok()) return finish(sel.error());
  if (!metric_note.empty()) sel->notes.push_back(metric_note);
  ChooseCommunicationReplay(runner_, tools_.ncu, cap.dir.logs().string(), *sel);
  if (req.max_ncu_runs > 0 && static_cast<int64_t>(sel->passes.size()) > req.max_ncu_runs) {
    size_t dropped = 0;
    for (size_t p = static_cast<size_t>(req.max_ncu_runs); p < sel->passes.size(); ++p) {
      dropped += sel->passes[p].profiled_rows.size();
    }
    sel->notes.push_back(fmt::format(
        "the plan needs {} ncu runs and every rank runs the workload for {} (profile.rank_ncu_runs): the last {} "
        "launches, of the least important kernels, are not profiled; raise profile.rank_ncu_runs on every rank",
        sel->passes.size(), req.max_ncu_runs, dropped));
    sel->passes.resize(static_cast<size_t>(req.max_ncu_runs));
  }
  cap.manifest["ncu_settings"]["metrics"] = metrics;
  result.selection = *sel;
  cap.manifest["selection"] = SelectionJson(*sel);
  for (const auto& note : sel->notes) {
    cap.manifest["notes"].push_back(note);
    out_ << "note: " << note << "\n";
  }
  out_ << "[2/3] " << FormatSelection(*sel);
  KSCOPE_RETURN_IF_ERROR(WriteManifest(cap.dir, cap.manifest));

  // 3. The deep pass: one ncu run per pass, its report imported, each profiled launch linked
  // to its kernel in the discovery run.
  const bool export_pages = cfg.ncu.import == "export";
  int64_t launches_total = 0;
  for (const auto& p : sel->passes) launches_total += static_cast<int64_t>(p.profiled_rows.size());
  Progress ncu_progress(out_, tty_, "[3/3] ncu");
  ncu_progress.Start(
      fmt::format("{} launches in {} run{}", launches_total, sel->passes.size(), sel->passes.size() == 1 ? "" : "s"));
  int64_t done_before = 0;
  int64_t launches_read = 0;  // from the reports: what ncu's output counted, unless it printed none
  for (size_t p = 0; p < sel->passes.size(); ++p) {
    if (Interrupted()) return finish(interrupted(fmt::format("the deep pass, before ncu run {}", p + 1)));
    const NcuPass& pass = sel->passes[p];
    const std::string base = (cap.dir.ncu() / fmt::format("pass{}", p + 1)).string();
    ProcessSpec spec;
    spec.argv = NcuProfileArgv(tools_.ncu, cfg.ncu, *sel, pass, metrics, base, workload);
    spec.env = workload_env;
    spec.log_path = (cap.dir.logs() / fmt::format("ncu_pass{}.log", p + 1)).string();
    for (const auto& [k, v] : run_env(workload_runs_)) spec.env[k] = v;
    spec.timeout_s = cfg.profile.ncu_timeout_s;
    spec.kill_grace_s = 60;  // ncu writes the launches profiled so far on SIGTERM
    NcuOutput ncu_out;
    // Application replay reruns the whole workload for each pass of one launch (ncu prints
    // "Application replay pass N" and then the workload's own output): a silent run of the
    // workload is progress too, so the watchdog allows twice the workload's own time.
    const bool app_replay = (sel->replay.empty() ? cfg.ncu.replay : sel->replay) == "application";
    spec.stall_timeout_s = cfg.profile.ncu_stall_timeout_s > 0 && app_replay
                               ? std::max(cfg.profile.ncu_stall_timeout_s, 2 * sel->app_s)
                               : cfg.profile.ncu_stall_timeout_s;
    spec.busy = [&](std::string_view partial) { return ncu_out.Busy(partial); };
    spec.on_line = [&](std::string_view l) {
      if (ncu_out.Feed(l)) {
        ncu_progress.Kernel(done_before + ncu_out.profiled, launches_total, ncu_out.last_passes,
                            fmt::format("run {} of {}", p + 1, sel->passes.size()));
      }
    };
    const size_t step = cap.Step(fmt::format("ncu pass {}", p + 1), spec.argv, spec.log_path);
    cap.At(step)["profiled_kernel_rows"] = pass.profiled_rows;
    auto run = runner_.Run(spec);
    if (!run.ok()) return finish(run.error());
    ++workload_runs_;
    cap.Record(step, *run);
    if (run->stalled) cap.At(step)["stalled_at"] = ncu_out.stuck_kernel;
    cap.At(step)["launches_profiled"] = ncu_out.profiled;
    done_before += ncu_out.profiled;
    if (ncu_out.memory_backup && cfg.ncu.replay == "kernel") {
      const std::string note = fmt::format(
          "ncu run {}: ncu backed up device memory in system memory before each kernel replay (the workload holds "
          "more device memory than ncu can copy on the GPU), which makes kernel replay slow; ncu.replay=application "
          "reruns the workload instead of saving and restoring its memory",
          p + 1);
      cap.manifest["notes"].push_back(note);
      out_ << "note: " << note << "\n";
    }
    const std::string report = base + ".ncu-rep";
    std::optional<Error> stop;
    if (ncu_out.no_kernels) {
      // Which kernels did ncu see instead? The ones nearest to what was asked.
      std::vector<std::string> wanted;
      for (size_t i : pass.kernels) wanted.push_back(sel->kernels[i].mangled);
      std::string near;
      for (const auto& n : Closest(wanted.front(), ncu_out.available_kernels, 3)) {
        near += (near.empty() ? "" : ", ") + n;
      }
      std::string what = fmt::format("ncu profiled no kernel: the filter {} matched nothing", pass.filter);
      if (!sel->nvtx_include.empty()) what += " inside NVTX range '" + sel->nvtx_include + "'";
      std::string fix = near.empty() ? "check that the workload launches the same kernels in each run"
                                     : "closest kernels ncu saw: " + near;
      if (ncu_out.nvtx_push_pop_hint) fix += "; ncu's NVTX include expressions match push/pop ranges only";
      stop = LogHint(Error{"ncu", what, fix}, spec.log_path);
    } else if (run->interrupted) {
      stop = interrupted(fmt::format("ncu run {}", p + 1));
    } else if (run->stalled) {
      stop = LogHint(StallError(*sel, ncu_out, spec.stall_timeout_s), spec.log_path);
    } else if (run->timed_out) {
      stop =
          LogHint(Error{"ncu", fmt::format("stopped at its time limit ({} s)", cfg.profile.ncu_timeout_s),
                        "raise profile.ncu_timeout_s, or profile fewer launches (selection.launches, selection.top)"},
                  spec.log_path);
    } else if (!run->ok()) {
      const std::string why =
          ncu_out.app_exit_code
              ? fmt::format("the workload exited with {} under ncu", *ncu_out.app_exit_code)
              : "ncu failed (" + run->Describe() + ")" + (ncu_out.errors.empty() ? "" : ": " + ncu_out.errors.front());
      stop = LogHint(Error{"ncu", why, "the launches profiled before it are in the run"}, spec.log_path);
    }
    // The report's launches into the run: read natively, or (ncu.import=export) through the
    // pages the installed ncu exports, kept in the run directory. A report of a run that
    // failed is read only when ncu says it profiled launches.
    if (fs::exists(report, ec) && (ncu_out.profiled > 0 || !stop)) {
      std::vector<std::string> files{report};
      if (export_pages) {
        files.clear();
        for (const std::string page : {"raw", "details"}) {
          ProcessSpec ex;
          ex.argv = NcuExportArgv(tools_.ncu, report, page);
          ex.stdout_path = fmt::format("{}_{}.csv", base, page);
          ex.log_path = (cap.dir.logs() / fmt::format("ncu_pass{}_{}_export.log", p + 1, page)).string();
          const size_t ex_step = cap.Step(fmt::format("ncu export pass {} {}", p + 1, page), ex.argv, ex.log_path);
          auto exported = runner_.Run(ex);
          if (!exported.ok()) return finish(exported.error());
          cap.Record(ex_step, *exported);
          if (exported->interrupted) return finish(interrupted("the export of ncu's " + page + " page"));
          if (!exported->ok()) {
            return finish(LogHint(Error{report, "ncu could not export its " + page + " page", "the report is kept"},
                                  ex.log_path));
          }
          files.push_back(ex.stdout_path);
        }
      }
      import::ImportOptions opts;
      opts.into_run = cap.run_id;
      auto imported = import::ImportFiles(store_, files, opts);
      if (!imported.ok()) {
        Error e = imported.error();
        if (!export_pages && import::ncu::IsUnreadVersion(e)) {
          e.fix = fmt::format(
              "profile with ncu.import=export (the installed ncu exports the report's pages), or add the kept "
              "report to this run: kscope import --via-ncu --run {} {}",
              cap.run_id, report);
        }
        return finish(e);
      }
      cap.At(step)["launches_read"] = imported->front().rows_read;
      launches_read += imported->front().rows_read;
      auto linked = LinkPlannedLaunches(store_, cap.run_id, imported->front().source_id, discovery, pass);
      if (!linked.ok()) return finish(linked.error());
      cap.At(step)["linked"] = linked->linked;
      if (linked->mismatched > 0) {
        // Those the importer linked by kernel, shape and NVTX range instead (LinkNcuToTimeline).
        auto q = store_.db().Prepare(
            "SELECT count(*) FROM ncu_launch WHERE run_id = ?1 AND source_id = ?2 AND kernel_link = 'matched'");
        if (!q.ok()) return finish(q.error());
        q->Bind(1, cap.run_id).Bind(2, imported->front().source_id);
        const int64_t matched = q->Step() ? q->Int(0) : 0;
        const std::string note = fmt::format(
            "ncu run {}: {} of {} profiled launches were not the discovery run's launch at the planned place (the "
            "workload launched differently under ncu, e.g. compilation or autotuning that ran only in the first "
            "run); {} of them were linked to a kernel of the same name and shape in the same NVTX range, {} kept "
            "unlinked",
            p + 1, linked->mismatched, linked->linked + linked->mismatched, matched, linked->mismatched - matched);
        cap.manifest["notes"].push_back(note);
        out_ << "note: " << note << "\n";
      }
    }
    if (stop) return finish(stop);
  }
  ncu_progress.Done(fmt::format("{} launches profiled", launches_read > 0 ? launches_read : done_before));
  return finish(std::nullopt);
}

}  // namespace kscope::capture
