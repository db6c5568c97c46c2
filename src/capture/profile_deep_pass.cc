// kscope profile's plan and deep pass: the selection made from the discovery run, then one ncu
// run per pass of the plan, each report imported with its launches linked to the kernels the
// plan named (ncu_pass_import.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "analysis/names/communication.h"
#include "capture/commands.h"
#include "capture/ncu_communicator.h"
#include "capture/ncu_pass_import.h"
#include "capture/ncu_rank_gate.h"
#include "capture/ncu_stall_retry.h"
#include "capture/profile.h"
#include "capture/profile_run.h"
#include "capture/progress.h"
#include "import/ncu/rep_reader.h"
#include "tools/rank.h"
#include "tools/tool_output.h"
#include "util/closest.h"

namespace kscope::capture {

namespace fs = std::filesystem;

namespace {

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

// ncu printed that its filter matched no kernel: the kernels it saw nearest to those asked for.
Error NoKernelError(const Selection& sel, const NcuPass& pass, const NcuOutput& out) {
  std::vector<std::string> wanted;
  for (size_t i : pass.kernels) wanted.push_back(sel.kernels[i].mangled);
  std::string near;
  for (const auto& n : Closest(wanted.front(), out.available_kernels, 3)) near += (near.empty() ? "" : ", ") + n;
  std::string what = fmt::format("ncu profiled no kernel: the filter {} matched nothing", pass.filter);
  if (!sel.nvtx_include.empty()) what += " inside NVTX range '" + sel.nvtx_include + "'";
  std::string fix = near.empty() ? "check that the workload launches the same kernels in each run"
                                 : "closest kernels ncu saw: " + near;
  if (out.nvtx_push_pop_hint) fix += "; ncu's NVTX include expressions match push/pop ranges only";
  return Error{"ncu", what, fix};
}

// The ncu runs of the plan, one per pass, each report imported as it is written.
class NcuRuns {
 public:
  NcuRuns(store::Store& store, ProcessRunner& runner, const Toolchain& tools, std::ostream& out, bool tty,
          const ProfileRequest& req, const Preflight& pre, Capture& cap, const Selection& sel, int64_t discovery)
      : store_(store),
        runner_(runner),
        tools_(tools),
        out_(out),
        req_(req),
        pre_(pre),
        cap_(cap),
        sel_(sel),
        discovery_(discovery),
        plan_(sel.passes),
        progress_(out, tty, "[3/3] ncu") {}

  Status RunAll(int64_t& workload_runs) {
    int64_t launches_total = 0;
    for (const auto& p : plan_) launches_total += static_cast<int64_t>(p.profiled_rows.size());
    progress_.Start(fmt::format("{} launches in {} run{}", launches_total, plan_.size(), plan_.size() == 1 ? "" : "s"));
    // A run stopped inside a compute kernel's launch may add a retry to the plan (RetryAfterStall).
    for (size_t p = 0; p < plan_.size(); ++p) {
      if (Interrupted()) return cap_.InterruptedDuring(fmt::format("the deep pass, before ncu run {}", p + 1));
      KSCOPE_RETURN_IF_ERROR(RunPass(p, launches_total, workload_runs));
    }
    progress_.Done(fmt::format("{} launches profiled", launches_read_ > 0 ? launches_read_ : done_before_));
    return Status::Ok();
  }

 private:
  // Pass `p`: ncu, then its report's import; what stopped ncu early, after that import.
  Status RunPass(size_t p, int64_t& launches_total, int64_t& workload_runs) {
    const NcuPass pass = plan_[p];  // a copy: a retry may grow the plan
    const std::string base = (cap_.dir.ncu() / fmt::format("pass{}", p + 1)).string();
    NcuOutput ncu_out;
    ProcessSpec spec = NcuSpec(p, base, workload_runs, launches_total, ncu_out);
    const bool gated = Gated();
    std::vector<std::string> ncu_argv;
    if (gated) {
      auto gate = ThroughRankGate(p, base, spec);
      if (!gate.ok()) return gate.error();
      ncu_argv = std::move(gate).value();
    }
    const size_t step = cap_.Step(fmt::format("ncu pass {}", p + 1), spec.argv, spec.log_path);
    cap_.At(step)["profiled_kernel_rows"] = pass.profiled_rows;
    if (retry_of_.contains(p)) cap_.At(step)["retry_of"] = retry_of_.at(p) + 1;
    if (gated) cap_.At(step)["rank_gate"] = {{"rank", sel_.rank}, {"ncu_argv", ncu_argv}};
    auto run = runner_.Run(spec);
    if (!run.ok()) return run.error();
    ++workload_runs;
    cap_.Record(step, *run);
    if (gated && ncu_out.connected == 0 && !run->interrupted) return GateStayedClosed(p, launches_total, workload_runs);
    if (run->stalled) cap_.At(step)["stalled_at"] = ncu_out.stuck_kernel;
    cap_.At(step)["launches_profiled"] = ncu_out.profiled;
    done_before_ += ncu_out.profiled;
    if (ncu_out.memory_backup && req_.config.ncu.replay == "kernel") {
      cap_.Note(fmt::format("ncu run {}: ncu backed up device memory in system memory before each kernel replay (the "
                            "workload holds more device memory than ncu can copy on the GPU), which makes kernel "
                            "replay slow; ncu.replay=application reruns the workload instead of saving and restoring "
                            "its memory",
                            p + 1),
                out_);
    }
    const std::optional<Error> stop = StopOf(p, *run, ncu_out, spec);
    // A report of a run that failed is read only when ncu says it profiled launches.
    std::error_code ec;
    if (fs::exists(base + ".ncu-rep", ec) && (ncu_out.profiled > 0 || !stop)) {
      KSCOPE_RETURN_IF_ERROR(ImportReport(p, base, step));
    }
    if (stop && run->stalled && Retryable(ncu_out)) {
      PlanRetry(p, ncu_out.profiled, launches_total);
      return Status::Ok();
    }
    if (stop) return *stop;
    return Status::Ok();
  }

  ProcessSpec NcuSpec(size_t p, const std::string& base, int64_t workload_runs, int64_t launches_total,
                      NcuOutput& ncu_out) {
    const auto& cfg = req_.config;
    ProcessSpec spec;
    spec.argv = NcuProfileArgv(tools_.ncu, cfg.ncu, sel_, plan_[p], pre_.metrics, base, cap_.workload);
    spec.env = cap_.workload_env;
    spec.log_path = (cap_.dir.logs() / fmt::format("ncu_pass{}.log", p + 1)).string();
    for (const auto& [k, v] : RunEnv(req_, workload_runs)) spec.env[k] = v;
    spec.timeout_s = cfg.profile.ncu_timeout_s;
    spec.kill_grace_s = 60;  // ncu writes the launches profiled so far on SIGTERM
    // Application replay reruns the whole workload for each pass of one launch (ncu prints
    // "Application replay pass N" and then the workload's own output): a silent run of the
    // workload is progress too, so the watchdog allows twice the workload's own time.
    const bool app_replay = (sel_.replay.empty() ? cfg.ncu.replay : sel_.replay) == "application";
    spec.stall_timeout_s = StallTimeout(app_replay);
    spec.busy = [&ncu_out](std::string_view partial) { return ncu_out.Busy(partial); };
    spec.on_line = [this, p, launches_total, &ncu_out](std::string_view l) {
      if (ncu_out.Feed(l)) {
        progress_.Kernel(done_before_ + ncu_out.profiled, launches_total, ncu_out.last_passes,
                         fmt::format("run {} of {}", p + 1, plan_.size()));
      }
    };
    return spec;
  }

  // Whether the next ncu run goes through the rank gate (capture/ncu_rank_gate.h).
  bool Gated() const {
    const auto& cfg = req_.config;
    return !gate_closed_ &&
           UsesRankGate(sel_, sel_.replay.empty() ? cfg.ncu.replay : sel_.replay, cfg.profile.ncu_rank_gate);
  }

  // Turns `spec`, ncu over the whole job, into the job's own command with the rank gate in its
  // environment; returns ncu's command, which the profiled rank runs itself under. ncu sees that
  // rank alone, so it is not told the rank's GPU (--devices): the rank profiles whichever it uses.
  Result<std::vector<std::string>> ThroughRankGate(size_t p, const std::string& base, ProcessSpec& spec) {
    const auto& cfg = req_.config;
    std::vector<std::string> ncu =
        NcuProfileArgv(tools_.ncu, cfg.ncu, sel_, plan_[p], pre_.metrics, base, {}, NcuDevice::kAny);
    const std::map<std::string, std::string> env = CurrentEnvironment();
    std::string pythonpath;
    if (auto it = spec.env.find("PYTHONPATH"); it != spec.env.end()) {
      pythonpath = it->second;
    } else if (auto own = env.find("PYTHONPATH"); own != env.end()) {
      pythonpath = own->second;
    }
    auto gate_env =
        WriteRankGate(cap_.dir.ncu() / "rank_gate", fmt::format("pass{}", p + 1), ncu, sel_.rank, env, pythonpath);
    if (!gate_env.ok()) return gate_env.error();
    for (const auto& [k, v] : *gate_env) spec.env[k] = v;
    spec.argv = cap_.workload;
    return ncu;
  }

  // No process of the job executed itself under ncu (its ranks are not Python processes, or no
  // launcher variable names their rank): run `p` again, and every run after it, over the whole job.
  Status GateStayedClosed(size_t p, int64_t& launches_total, int64_t& workload_runs) {
    gate_closed_ = true;
    cap_.Note(fmt::format("ncu run {}: no process of the job executed itself under ncu as rank {} (the rank gate, "
                          "profile.ncu_rank_gate, opens in a Python process whose launcher sets one of {}): ncu runs "
                          "over the whole job instead",
                          p + 1, sel_.rank, fmt::join(RankVariables(), ", ")),
              out_);
    return RunPass(p, launches_total, workload_runs);
  }

  // The watchdog's limit inside one launch: at least twice the workload's own time under
  // application replay, which reruns the whole workload for each pass of one launch (ncu prints
  // "Application replay pass N" and then the workload's own output); in a job of several ranks
  // under kernel replay without communication kernels, profile.ncu_rank_stall_timeout_s when
  // that is shorter, since a stall there is retried (RetryAfterStall).
  double StallTimeout(bool app_replay) const {
    const auto& pc = req_.config.profile;
    if (pc.ncu_stall_timeout_s <= 0) return 0;
    if (app_replay) return std::max(pc.ncu_stall_timeout_s, 2 * sel_.app_s);
    if (sel_.ranks > 1 && !sel_.communication && pc.ncu_rank_stall_timeout_s > 0 && pc.ncu_stall_retries > 0) {
      return std::min(pc.ncu_stall_timeout_s, pc.ncu_rank_stall_timeout_s);
    }
    return pc.ncu_stall_timeout_s;
  }

  // In a job of several ranks, a stall inside a compute kernel's launch under kernel replay is
  // retried; one inside a communication kernel (it waits for peers that do not replay it), under
  // application replay or in a single process stops the deep pass as before.
  bool Retryable(const NcuOutput& out) const {
    if (req_.config.profile.ncu_stall_retries <= 0 || sel_.ranks < 2) return false;
    if ((sel_.replay.empty() ? req_.config.ncu.replay : sel_.replay) == "application") return false;
    std::string name = out.stuck_kernel;
    for (const auto& k : sel_.kernels) {
      if (k.mangled == out.stuck_kernel) name = k.name;
    }
    return !name.empty() && !analysis::CommunicationOf(name).has_value();
  }

  // After run `p` stopped inside a launch: the launches it did not reach as a run of their own,
  // while retries are left; what is done is noted either way.
  void PlanRetry(size_t p, int64_t profiled, int64_t& launches_total) {
    const auto max_retries = static_cast<size_t>(req_.config.profile.ncu_stall_retries);
    StallRetry retry = RetryAfterStall(sel_, plan_[p], profiled, stalls_);
    cap_.Note(DescribeRetry(sel_, retry, p + 1, retries_ + 1, max_retries), out_);
    if (!retry.pass || retries_ >= max_retries) return;
    ++retries_;
    launches_total += static_cast<int64_t>(retry.pass->profiled_rows.size());
    retry_of_[plan_.size()] = retry_of_.contains(p) ? retry_of_.at(p) : p;
    plan_.push_back(std::move(*retry.pass));
  }

  // Why ncu run `p` stopped early; nullopt when it did not.
  std::optional<Error> StopOf(size_t p, const ProcessOutcome& run, const NcuOutput& ncu_out, const ProcessSpec& spec) {
    if (ncu_out.no_kernels) return LogHint(NoKernelError(sel_, plan_[p], ncu_out), spec.log_path);
    if (run.interrupted) return cap_.InterruptedDuring(fmt::format("ncu run {}", p + 1));
    if (run.stalled) return LogHint(StallError(sel_, ncu_out, spec.stall_timeout_s), spec.log_path);
    if (run.timed_out) {
      return LogHint(
          Error{"ncu", fmt::format("stopped at its time limit ({} s)", req_.config.profile.ncu_timeout_s),
                "raise profile.ncu_timeout_s, or profile fewer launches (selection.launches, selection.top)"},
          spec.log_path);
    }
    // Through the rank gate the job's launcher reports ncu's --kill of the profiled rank as a failure.
    if (!run.ok() && Gated() && plan_[p].kill && ncu_out.profiled > 0 && ncu_out.report && ncu_out.errors.empty()) {
      return std::nullopt;
    }
    if (!run.ok()) {
      const std::string why =
          ncu_out.app_exit_code
              ? fmt::format("the workload exited with {} under ncu", *ncu_out.app_exit_code)
              : "ncu failed (" + run.Describe() + ")" + (ncu_out.errors.empty() ? "" : ": " + ncu_out.errors.front());
      return LogHint(Error{"ncu", why, "the launches profiled before it are in the run"}, spec.log_path);
    }
    return std::nullopt;
  }

  // The files pass `p` is imported from: its report, read natively, or (ncu.import=export) the
  // pages the installed ncu exports of it, kept in the run directory.
  Result<std::vector<std::string>> ReportFiles(size_t p, const std::string& base) {
    const std::string report = base + ".ncu-rep";
    if (req_.config.ncu.import != "export") return std::vector<std::string>{report};
    std::vector<std::string> files;
    for (const std::string page : {"raw", "details"}) {
      ProcessSpec ex;
      ex.argv = NcuExportArgv(tools_.ncu, report, page);
      ex.stdout_path = fmt::format("{}_{}.csv", base, page);
      ex.log_path = (cap_.dir.logs() / fmt::format("ncu_pass{}_{}_export.log", p + 1, page)).string();
      const size_t ex_step = cap_.Step(fmt::format("ncu export pass {} {}", p + 1, page), ex.argv, ex.log_path);
      auto exported = runner_.Run(ex);
      if (!exported.ok()) return exported.error();
      cap_.Record(ex_step, *exported);
      if (exported->interrupted) return cap_.InterruptedDuring("the export of ncu's " + page + " page");
      if (!exported->ok()) {
        return LogHint(Error{report, "ncu could not export its " + page + " page", "the report is kept"}, ex.log_path);
      }
      files.push_back(ex.stdout_path);
    }
    return files;
  }

  // The pass's report into the run, each launch linked to the kernel the plan named, in one
  // transaction (ImportNcuPasses); the launches that were not where the plan expected them, noted.
  Status ImportReport(size_t p, const std::string& base, size_t step) {
    auto files = ReportFiles(p, base);
    if (!files.ok()) return files.error();
    import::ImportOptions opts;
    opts.into_run = cap_.run_id;
    const bool by_matching = sel_.name_base == "function";
    auto imported = ImportNcuPasses(
        store_, {}, {{static_cast<int>(p + 1), *files, plan_[p].profiled_rows, by_matching}}, discovery_, opts);
    if (!imported.ok()) {
      Error e = imported.error();
      if (req_.config.ncu.import != "export" && import::ncu::IsUnreadVersion(e)) {
        e.fix = fmt::format(
            "profile with ncu.import=export (the installed ncu exports the report's pages), or add the kept "
            "report to this run: kscope import --via-ncu --run {} {}",
            cap_.run_id, base + ".ncu-rep");
      }
      return e;
    }
    const ImportedNcuPass& in = imported->passes.front();
    cap_.At(step)["launches_read"] = in.launches;
    launches_read_ += in.launches;
    cap_.At(step)["linked"] = in.links.planned + (by_matching ? in.links.matched : 0);
    if (by_matching) {
      cap_.Note(fmt::format("ncu run {}: the discovery run has no mangled kernel names (a PyTorch profiler trace), so "
                            "ncu filtered on function names; {} of its {} launches were linked to a kernel of the "
                            "same name and shape in that run",
                            p + 1, in.links.matched, in.launches),
                out_);
    } else if (in.links.mismatched > 0) {
      cap_.Note(fmt::format("ncu run {}: {} of {} profiled launches were not the discovery run's launch at the planned "
                            "place (the workload launched differently under ncu, e.g. compilation or autotuning that "
                            "ran only in the first run); {} of them were linked to a kernel of the same name and "
                            "shape in the same NVTX range, {} kept unlinked",
                            p + 1, in.links.mismatched, in.links.planned + in.links.mismatched, in.links.matched,
                            in.links.mismatched - in.links.matched),
                out_);
    }
    return Status::Ok();
  }

  store::Store& store_;
  ProcessRunner& runner_;
  const Toolchain& tools_;
  std::ostream& out_;
  const ProfileRequest& req_;
  const Preflight& pre_;
  Capture& cap_;
  const Selection& sel_;
  int64_t discovery_;
  std::vector<NcuPass> plan_;          // the selection's passes, then any retries
  std::map<size_t, size_t> retry_of_;  // retry pass -> the pass it retries
  std::map<size_t, int> stalls_;       // kernel -> ncu runs stopped inside one of its launches
  size_t retries_ = 0;
  bool gate_closed_ = false;  // the rank gate did not open: ncu runs over the whole job
  Progress progress_;
  int64_t done_before_ = 0;
  int64_t launches_read_ = 0;  // from the reports: what ncu's output counted, unless it printed none
};

}  // namespace

Result<Selection> ProfileSession::Plan(const ProfileRequest& req, const Preflight& pre, Capture& cap,
                                       int64_t discovery) {
  const auto& cfg = req.config;
  SelectionOptions choose = cfg.selection;  // the workload's time measured by the nsys pass, unless set
  if (choose.workload_s <= 0 && cap.manifest.contains("workload_s")) {
    choose.workload_s = cap.manifest["workload_s"].get<double>();
  }
  Result<Selection> sel = pre.early ? Result<Selection>(*pre.early)
                                    : SelectKernels(store_, discovery, choose, EstimatedPasses(cfg.ncu),
                                                    cfg.stages.warmup, cfg.profile.ncu_rank);
  if (!sel.ok()) return sel.error();
  if (!pre.metric_note.empty()) sel->notes.push_back(pre.metric_note);
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
  cap.manifest["ncu_settings"]["metrics"] = pre.metrics;
  cap.result.selection = *sel;
  cap.manifest["selection"] = SelectionJson(*sel);
  for (const auto& note : sel->notes) cap.Note(note, out_);
  out_ << "[2/3] " << FormatSelection(*sel);
  KSCOPE_RETURN_IF_ERROR(WriteManifest(cap.dir, cap.manifest));
  return sel;
}

Status ProfileSession::DeepPass(const ProfileRequest& req, const Preflight& pre, Capture& cap, const Selection& sel,
                                int64_t discovery) {
  NcuRuns runs(store_, runner_, tools_, out_, tty_, req, pre, cap, sel, discovery);
  return runs.RunAll(workload_runs_);
}

}  // namespace kscope::capture
