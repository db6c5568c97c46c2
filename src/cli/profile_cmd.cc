// kscope profile [KEY=VALUE...] [options] -- COMMAND ARGS...: discovery with nsys, the deep
// pass with ncu on the hot kernels, both in one run of the store (capture/profile.h).
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <optional>

#include "capture/profile.h"
#include "cli/commands.h"
#include "config/config.h"
#include "config/sweep.h"
#include "import/store_upgrade.h"
#include "tools/rank.h"
#include "tools/tools.h"

namespace kscope::cli {

namespace {

struct ProfileArgs {
  std::vector<std::string> overrides;  // KEY=VALUE words before `--`
  std::vector<std::string> sweeps;
  ManifestArgs manifest;
  int64_t discovery = 0;
  bool dry_run = false;
  std::string job;  // --job: the job id the manifest records
};

// Wrapper mode: the workload run unprofiled for passes [from, to), its output kscope's own, so
// that this rank meets the others in each pass. A failed pass does not end the others (the
// peers would wait for this rank); the exit status is the last failure's.
int RunUnprofiled(const std::vector<std::string>& workload, int64_t from, int64_t to, int64_t passes,
                  const std::map<std::string, std::string>& env, int64_t rank) {
  capture::SystemRunner runner;
  int exit_code = 0;
  for (int64_t p = from; p < to; ++p) {
    std::cerr << fmt::format("kscope profile: rank {}, pass {} of {}: the workload, unprofiled\n", rank, p + 1, passes);
    capture::ProcessSpec spec;
    spec.argv = workload;
    spec.env = capture::PassEnvironment(env, p);
    spec.inherit_output = true;
    auto run = runner.Run(spec);
    if (!run.ok()) return Fail(run.error());
    if (run->interrupted) return 130;
    if (!run->ok()) {
      std::cerr << fmt::format("kscope profile: rank {}, pass {}: the workload {}\n", rank, p + 1, run->Describe());
      exit_code = run->exit_code > 0 ? run->exit_code : 1;
    }
  }
  return exit_code;
}

int Run(const ProfileArgs& a, const GlobalOptions& global) {
  // `kscope profile python3 app.py`: the workload's words taken for overrides, the `--` missing.
  if (global.command.empty()) {
    for (size_t i = 0; i < a.overrides.size(); ++i) {
      if (a.overrides[i].find('=') != std::string::npos) continue;
      std::string command = "kscope profile";
      for (size_t j = 0; j < a.overrides.size(); ++j) command += (j == i ? " -- " : " ") + a.overrides[j];
      return Fail(Error{"", fmt::format("'{}' is not KEY=VALUE: the workload must follow `--`", a.overrides[i]),
                        "write: " + command});
    }
  }
  std::vector<std::string> overrides = global.overrides;
  overrides.insert(overrides.end(), a.overrides.begin(), a.overrides.end());
  auto cfg = config::LoadConfig(global.config, overrides);
  if (!cfg.ok()) return Fail(cfg.error());
  for (const auto& s : a.sweeps) {
    if (auto st = config::AddSweepArg(*cfg, s); !st.ok()) return Fail(st.error());
  }
  if (global.command.empty()) {
    return Fail(Error{"", "no workload to profile", "write: kscope profile [KEY=VALUE...] -- COMMAND ARGS..."});
  }
  // Wrapper mode: every rank runs the workload once per pass; only rank N under nsys and ncu.
  const bool wrapper = cfg->profile.rank >= 0;
  const auto env = capture::CurrentEnvironment();
  int64_t passes = 0;
  std::optional<capture::RankInfo> rank;
  if (wrapper) {
    rank = capture::RankFromEnvironment(env);
    if (!rank) {
      return Fail(Error{"profile.rank",
                        "no rank variable (OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, RANK...) is set",
                        "start kscope under mpirun, srun or torchrun, one kscope per rank"});
    }
    // Checked on every rank alike, before any rank runs anything.
    if (cfg->ncu.replay == "application" || cfg->selection.communication == "on") {
      return Fail(Error{"profile.rank",
                        "ncu's application replay (ncu.replay=application, or selection.communication=on) reruns the "
                        "profiled rank's workload once per replay pass, which the other ranks do not",
                        "keep ncu.replay=kernel in wrapper mode, or profile the job from outside its launcher: "
                        "kscope profile -- torchrun ... (docs/profile.md)"});
    }
    if (!a.sweeps.empty() || !cfg->sweep.empty()) {
      return Fail(Error{"profile.rank", "a sweep in wrapper mode would need every rank to run every point",
                        "start the job once per sweep point"});
    }
    passes = capture::WrapperPasses(cfg->profile.rank_ncu_runs, a.discovery != 0);
    // The launcher stops a job by signalling its processes (kscope here): the workload kscope
    // runs in its own process group must stop with it.
    capture::InstallInterruptHandlers();
    if (rank->rank != cfg->profile.rank) {
      if (a.dry_run) {
        std::cerr << fmt::format(
            "kscope profile: rank {} ({}) is not profiled; a run would start the workload {} "
            "times, once per pass (dry run: nothing runs)\n{}",
            rank->rank, rank->source, passes, capture::DescribePasses(passes, cfg->profile.rank, a.discovery != 0));
        return 0;
      }
      return RunUnprofiled(global.command, 0, passes, passes, env, rank->rank);
    }
    std::cerr << fmt::format("kscope profile: rank {} ({}) is profiled; every rank runs the workload {} times\n{}",
                             rank->rank, rank->source, passes,
                             capture::DescribePasses(passes, cfg->profile.rank, a.discovery != 0));
  }
  auto points = config::ExpandSweep(*cfg, global.command);
  if (!points.ok()) return Fail(points.error());
  auto manifest = ToManifest(a.manifest);
  if (!manifest.ok()) return Fail(manifest.error());

  capture::Toolchain tools;
  tools.nsys = capture::FindNsys().value_or("nsys");
  tools.ncu = capture::FindNcu().value_or("ncu");
  // A dry run without a discovery run reads nothing: an empty in-memory store serves it.
  auto store = a.dry_run && a.discovery == 0
                   ? store::Store::Open(":memory:", sql::OpenMode::kCreate)
                   : import::OpenStore(global.DbPath(), a.dry_run ? sql::OpenMode::kReadOnly : sql::OpenMode::kCreate);
  if (!store.ok()) return Fail(store.error());
  capture::SystemRunner runner;
  capture::InstallInterruptHandlers();
  capture::ProfileSession session(*store, runner, tools, std::cerr, isatty(STDERR_FILENO) != 0);
  int exit_code = 0;
  for (size_t i = 0; i < points->size(); ++i) {
    const auto& point = (*points)[i];
    capture::ProfileRequest req;
    req.workload = point.workload;
    req.config = point.config;
    req.config_yaml = config::ToYaml(point.config);
    req.sweep_point = point.values;
    req.discovery_run = a.discovery;
    req.dry_run = a.dry_run;
    req.manifest = *manifest;
    req.job = a.job;
    req.env = env;
    if (wrapper) {
      req.max_ncu_runs = passes - (a.discovery != 0 ? 0 : 1);
      req.run_env = [&env](int64_t run) { return capture::PassEnvironment(env, run); };
    }
    if (points->size() > 1) {
      std::string what;
      for (const auto& [k, v] : point.values) what += fmt::format("{}{}={}", what.empty() ? "" : ", ", k, v);
      std::cerr << fmt::format("== sweep point {} of {}: {}\n", i + 1, points->size(), what);
    }
    auto result = session.Run(req);
    const int failed = result.ok() ? 0 : Fail(result.error());
    // The profiled rank meets the others in the passes its profile did not use (a shorter plan,
    // or a stop): the workload, unprofiled.
    if (wrapper && !a.dry_run && session.workload_runs() < passes && !capture::Interrupted()) {
      if (RunUnprofiled(global.command, session.workload_runs(), passes, passes, env, rank->rank) == 130) return 130;
    }
    if (!result.ok()) return failed;
    if (a.dry_run) continue;
    if (result->error) {
      exit_code = Fail(*result->error);
      std::cerr << fmt::format("run {} is incomplete ({}); what was gathered: kscope kernels {}\n", result->run_id,
                               result->run_dir, result->run_id);
      if (capture::Interrupted()) return 130;
      continue;
    }
    std::cerr << fmt::format("run {} complete in {:.1f} s ({}); next: kscope report {}\n", result->run_id,
                             result->seconds, result->run_dir, result->run_id);
    std::cout << result->run_id << "\n";
  }
  return exit_code;
}

}  // namespace

void RegisterProfile(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "Profile a workload: nsys on the whole run, then ncu on its hot kernels (kscope profile -- CMD ARGS)");
  cmd->add_option("overrides", args->overrides,
                  "configuration overrides KEY=VALUE, e.g. ncu.mode=deep selection.top=30");
  cmd->add_option("--sweep", args->sweeps, "sweep KEY=V1,V2,...: one profile per point (repeatable: a matrix)");
  cmd->add_option("--discovery", args->discovery, "select from this imported run instead of running nsys");
  cmd->add_flag("--dry-run", args->dry_run, "print the nsys and ncu command lines, run nothing");
  cmd->add_option("--job", args->job,
                  "the job id this run belongs to, for the manifest (else SLURM_JOB_ID or TORCHELASTIC_RUN_ID); "
                  "kscope import DIR... makes one run of the directories of one job");
  AddManifestOptions(cmd, args->manifest);
  cmd->footer(
      "The workload follows `--`. Configuration: --config FILE and KEY=VALUE words (docs/config.md); "
      "what a run records: docs/profile.md.");
  cmd->callback([args, &global, &exit_code] { exit_code = Run(*args, global); });
}

}  // namespace kscope::cli
