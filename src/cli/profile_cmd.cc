// kscope profile [KEY=VALUE...] [options] -- COMMAND ARGS...: discovery with nsys, the deep
// pass with ncu on the hot kernels, both in one run of the store (capture/profile.h).
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "capture/profile.h"
#include "capture/rank.h"
#include "capture/sweep.h"
#include "capture/tools.h"
#include "cli/commands.h"
#include "config/config.h"
#include "import/store_upgrade.h"

namespace kscope::cli {

namespace {

struct ProfileArgs {
  std::vector<std::string> overrides;  // KEY=VALUE words before `--`
  std::vector<std::string> sweeps;
  ManifestArgs manifest;
  int64_t discovery = 0;
  bool dry_run = false;
};

// Not the profiled rank: become the workload, unprofiled (no shell: execvp of its argv).
int ExecWorkload(const std::vector<std::string>& workload) {
  std::vector<char*> args;
  for (const auto& a : workload) args.push_back(const_cast<char*>(a.c_str()));  // NOLINT: POSIX takes char*
  args.push_back(nullptr);
  execvp(args[0], args.data());
  return Fail(Error{workload[0], std::string("cannot start: ") + std::strerror(errno), "check the command"});
}

int Run(const ProfileArgs& a, const GlobalOptions& global) {
  std::vector<std::string> overrides = global.overrides;
  overrides.insert(overrides.end(), a.overrides.begin(), a.overrides.end());
  auto cfg = config::LoadConfig(global.config, overrides);
  if (!cfg.ok()) return Fail(cfg.error());
  for (const auto& s : a.sweeps) {
    if (auto st = capture::AddSweepArg(*cfg, s); !st.ok()) return Fail(st.error());
  }
  if (global.command.empty()) {
    return Fail(Error{"", "no workload to profile", "write: kscope profile [KEY=VALUE...] -- COMMAND ARGS..."});
  }
  if (cfg->profile.rank >= 0) {
    auto rank = capture::RankFromEnvironment(capture::CurrentEnvironment());
    if (!rank) {
      return Fail(Error{"profile.rank",
                        "no rank variable (OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, RANK...) is set",
                        "start kscope under mpirun, srun or torchrun, one kscope per rank"});
    }
    if (rank->rank != cfg->profile.rank) return ExecWorkload(global.command);
    std::cerr << fmt::format("kscope profile: rank {} ({}) is profiled\n", rank->rank, rank->source);
  }
  auto points = capture::ExpandSweep(*cfg, global.command);
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
    req.sweep_point = point.values;
    req.discovery_run = a.discovery;
    req.dry_run = a.dry_run;
    req.manifest = *manifest;
    if (points->size() > 1) {
      std::string what;
      for (const auto& [k, v] : point.values) what += fmt::format("{}{}={}", what.empty() ? "" : ", ", k, v);
      std::cerr << fmt::format("== sweep point {} of {}: {}\n", i + 1, points->size(), what);
    }
    auto result = session.Run(req);
    if (!result.ok()) return Fail(result.error());
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
  AddManifestOptions(cmd, args->manifest);
  cmd->footer(
      "The workload follows `--`. Configuration: --config FILE and KEY=VALUE words (docs/config.md); "
      "what a run records: docs/profile.md.");
  cmd->callback([args, &global, &exit_code] { exit_code = Run(*args, global); });
}

}  // namespace kscope::cli
