#include "capture/profile.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "capture/commands.h"
#include "capture/ncu_rank_gate.h"
#include "capture/profile_run.h"
#include "capture/run_dir.h"
#include "import/ncu/rep_reader.h"
#include "tools/ncu_catalog.h"
#include "tools/rank.h"
#include "util/own_dir.h"
#include "util/utc_now.h"

namespace kscope::capture {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

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
json NcuImportJson(const NcuOptions& c) {
  if (c.import == "export") return {{"by", "ncu's raw and details pages (ncu --import REPORT --page PAGE --csv)"}};
  return {{"by", "kscope's .ncu-rep reader"},
          {"reader_version", import::ncu::kRepReaderVersion},
          {"report_format_version", import::ncu::kRepVersionRead}};
}

}  // namespace

Error Capture::InterruptedDuring(const std::string& during) const {
  return Error{dir.root.string(), "interrupted during " + during,
               fmt::format("run {} is marked incomplete and holds what was gathered", run_id)};
}

void Capture::Note(const std::string& note, std::ostream& out) {
  manifest["notes"].push_back(note);
  out << "note: " << note << "\n";
}

Error LogHint(Error e, const std::string& log) {
  e.fix += (e.fix.empty() ? "" : "; ") + std::string("its output: ") + log;
  return e;
}

std::map<std::string, std::string> RunEnv(const ProfileRequest& req, int64_t run) {
  return req.run_env ? req.run_env(run) : std::map<std::string, std::string>{};
}

Status ProfileSession::DryRun(const ProfileRequest& req) {
  const auto& c = req.config;
  const std::string base = (fs::path(c.profile.runs_dir) / "<run-id>").string();
  if (req.discovery_run == 0) {
    out_ << "# discovery\n"
         << ShellQuote(NsysProfileArgv(tools_.nsys, c.nsys, base + "/nsys/discovery", req.workload,
                                       SeesSomeGpusOnly(NsysProfileEnv(c.nsys))))
         << "\n";
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
    NcuPass pass;
    pass.filter = "<selected kernels>";
    out_ << ShellQuote(NcuProfileArgv(tools_.ncu, c.ncu, placeholder, pass, NcuMetrics(c.ncu), base + "/ncu/pass1",
                                      req.workload))
         << "\n";
    return Status::Ok();
  }
  auto sel = SelectKernels(store_, req.discovery_run, c.selection, EstimatedPasses(c.ncu), c.stages.warmup,
                           c.profile.ncu_rank);
  if (!sel.ok()) return sel.error();
  out_ << FormatSelection(*sel);
  const auto metrics = NcuMetrics(c.ncu);
  const bool gated = UsesRankGate(*sel, sel->replay.empty() ? c.ncu.replay : sel->replay, c.profile.ncu_rank_gate);
  for (size_t p = 0; p < sel->passes.size(); ++p) {
    out_ << fmt::format("# deep pass {} of {}\n", p + 1, sel->passes.size());
    if (gated) {
      out_ << fmt::format(
                  "# the job runs as it is; its rank {} executes itself again under this ncu "
                  "(profile.ncu_rank_gate):\n",
                  sel->rank)
           << ShellQuote(NcuProfileArgv(tools_.ncu, c.ncu, *sel, sel->passes[p], metrics,
                                        fmt::format("{}/ncu/pass{}", base, p + 1),
                                        {"<rank " + std::to_string(sel->rank) + ">"}, NcuDevice::kAny))
           << "\n"
           << ShellQuote(req.workload) << "\n";
      continue;
    }
    out_ << ShellQuote(NcuProfileArgv(tools_.ncu, c.ncu, *sel, sel->passes[p], metrics,
                                      fmt::format("{}/ncu/pass{}", base, p + 1), req.workload))
         << "\n";
  }
  out_ << "# each kernel alone\n";
  for (const auto& k : sel->kernels)
    out_ << ShellQuote(NcuKernelArgv(tools_.ncu, c.ncu, *sel, k, metrics, req.workload)) << "\n";
  return Status::Ok();
}

Result<ProfileResult> ProfileSession::Run(const ProfileRequest& req) {
  workload_runs_ = 0;
  if (req.workload.empty())
    return Error{"", "no workload to profile", "write: kscope profile [options] -- COMMAND ARGS..."};
  if (req.dry_run) {
    KSCOPE_RETURN_IF_ERROR(DryRun(req));
    return ProfileResult{};
  }
  auto pre = CheckBeforeRun(req);
  if (!pre.ok()) return pre.error();
  auto cap = StartRun(req, *pre);
  if (!cap.ok()) return cap.error();
  auto discovery = Discover(req, *cap);
  if (!discovery.ok()) return Finish(*cap, discovery.error());
  auto sel = Plan(req, *pre, *cap, *discovery);
  if (!sel.ok()) return Finish(*cap, sel.error());
  return Finish(*cap, DeepPass(req, *pre, *cap, *sel, *discovery));
}

// Checks that need no run: the tools, their versions, the GPU, what ncu offers on it; with a
// discovery run given, the selection, so that a mistake (a kernel or range that is not there)
// is found before a run is made for it.
Result<Preflight> ProfileSession::CheckBeforeRun(const ProfileRequest& req) {
  const auto& cfg = req.config;
  std::error_code ec;
  if (cfg.profile.runs_dir == ProfileOptions{}.runs_dir) {  // the folder kscope picks: never a link or another's
    KSCOPE_RETURN_IF_ERROR(MakeOwnDir(cfg.profile.runs_dir, "set profile.runs_dir to a folder of your own"));
  }
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
  Preflight pre;
  pre.versions = &versions_[need_nsys];
  const ToolVersions* versions = pre.versions;
  auto gpu = QueryGpu(runner_, pre_logs.string());
  if (!gpu.ok()) return gpu.error();
  pre.gpu = *gpu;
  // What this ncu offers on this GPU (asked once per version and GPU): the set, sections and
  // metrics asked for must exist; FLOP counters it lacks are left out, with a note.
  auto catalog =
      LoadNcuCatalog(runner_, tools_.ncu, versions->ncu, *gpu ? (*gpu)->name : std::string(),
                     cfg.profile.cache_dir.empty() ? DefaultCacheDir() : cfg.profile.cache_dir, pre_logs.string());
  if (!catalog.ok()) return catalog.error();
  KSCOPE_RETURN_IF_ERROR(CheckRequest(*catalog, NcuSet(cfg.ncu), NcuSections(cfg.ncu), cfg.ncu.metrics));
  const MetricCheck check = CheckMetrics(*catalog, NcuMetrics(cfg.ncu));
  pre.metrics = check.present;
  if (!check.missing.empty()) {
    std::string missing;
    for (const auto& m : check.missing) missing += (missing.empty() ? "" : ", ") + m;
    pre.metric_note = fmt::format("ncu {} on this GPU lacks {} of the FLOP metrics, left out: {}", versions->ncu,
                                  check.missing.size(), missing);
  }
  if (req.discovery_run != 0) {
    auto sel = SelectKernels(store_, req.discovery_run, cfg.selection, EstimatedPasses(cfg.ncu), cfg.stages.warmup,
                             cfg.profile.ncu_rank);
    if (!sel.ok()) return sel.error();
    pre.early = std::move(sel).value();
  }
  return pre;
}

// The run, in the store and on disk, before anything long starts: its row (status running),
// its directory, its manifest; older run directories retired.
Result<Capture> ProfileSession::StartRun(const ProfileRequest& req, const Preflight& pre) {
  const auto& cfg = req.config;
  const ToolVersions* versions = pre.versions;
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
  std::error_code ec;
  const std::string run_dir = fs::absolute(cap.dir.root, ec).string();
  cap.workload = WithRunDir(req.workload, run_dir);
  const std::vector<std::string>& workload = cap.workload;
  cap.workload_env = {{"KSCOPE_RUN_DIR", run_dir}};
  cap.result.run_id = cap.run_id;
  cap.result.run_dir = cap.dir.root.string();
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
                  {"config", req.config_yaml},
                  {"run", RunDescription(manifest)},  // kept by kscope import DIR elsewhere
                  {"sweep_point", req.sweep_point},
                  {"environment", {{"CUDA_VISIBLE_DEVICES", visible == nullptr ? json() : json(visible)}}},
                  {"tools",
                   {{"nsys", {{"path", tools_.nsys}, {"version", versions->nsys}}},
                    {"ncu", {{"path", tools_.ncu}, {"version", versions->ncu}}}}},
                  {"steps", json::array()},
                  {"notes", json::array()}};
  if (pre.gpu) cap.manifest["gpu"] = ToJson(*pre.gpu);
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
  return cap;
}

// Ends the run: its status in the store and on disk; a failed `outcome` says why it stopped early.
Result<ProfileResult> ProfileSession::Finish(Capture& cap, const Status& outcome) {
  ProfileResult& result = cap.result;
  result.complete = outcome.ok();
  if (!outcome.ok()) result.error = outcome.error();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - cap.t0).count();
  cap.manifest["status"] = result.complete ? "complete" : "incomplete";
  cap.manifest["finished_at"] = UtcNow();
  cap.manifest["seconds"] = std::round(result.seconds * 10) / 10;
  if (!outcome.ok()) cap.manifest["error"] = outcome.error().Line();
  KSCOPE_RETURN_IF_ERROR(WriteManifest(cap.dir, cap.manifest));
  KSCOPE_RETURN_IF_ERROR(
      store_.SetRunStatus(cap.run_id, result.complete ? "complete" : "incomplete", cap.manifest.dump()));
  return result;
}

}  // namespace kscope::capture
