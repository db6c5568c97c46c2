// kscope profile: from a workload to deep metrics of its hot kernels, in one run of the
// store. Discovery (nsys profile, SQLite export, import), selection of the top kernels and
// their launches, the deep pass (as few ncu runs as the launch order allows), its reports
// read natively (with ncu.import=export: the pages ncu exports of them) and the link of each
// profiled launch to its kernel in the timeline; a run directory runs/<run-id>/{nsys,ncu,logs}/
// with manifest.json. Every program runs through a ProcessRunner, so tests replay recorded
// nsys/ncu outputs (the export, the report) through this same code.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "capture/options.h"
#include "capture/preflight.h"
#include "capture/selection.h"
#include "store/store.h"
#include "tools/process.h"
#include "util/status.h"

namespace kscope::capture {

struct ProfileRequest {
  std::vector<std::string> workload;  // the program and its arguments
  CaptureOptions config;
  std::string config_yaml;   // the effective configuration, recorded in the run directory (config::ToYaml)
  store::Manifest manifest;  // what the user says (label, model, tags...)
  std::map<std::string, std::string> sweep_point;  // the sweep values of this run, if any
  int64_t discovery_run = 0;                       // select from this imported run instead of running nsys
  bool dry_run = false;                            // print the commands, run nothing
  std::string job;                                 // kscope profile --job: the job id for the manifest
  // The process's environment, where the manifest's job, rank and world size come from.
  std::map<std::string, std::string> env;
  // Wrapper mode (profile.rank): the ncu runs the plan may take (more are dropped, with a
  // note; 0: as many as it needs), and the environment of each run of the workload (0: nsys,
  // then one per ncu run), which each rank sets alike (tools/rank.h).
  int64_t max_ncu_runs = 0;
  std::function<std::map<std::string, std::string>(int64_t run)> run_env;
};

struct ProfileResult {
  int64_t run_id = 0;
  std::string run_dir;
  bool complete = false;  // false: stopped early; what was gathered is in the run
  std::optional<Selection> selection;
  double seconds = 0;
  std::optional<Error> error;  // why it stopped early (the run exists and holds what was gathered)
};

struct Preflight;  // profile_run.h
struct Capture;

// Run is a sequence of named steps: the checks that need no run, the run's start (store row,
// directory, manifest), discovery (nsys, export, import), the plan (selection), the deep pass
// (per ncu run: ncu, its report's import with the plan's links), the run's end.
class ProfileSession {
 public:
  // `out` gets progress and results (kscope's stderr); `tty` redraws progress on one line.
  ProfileSession(store::Store& store, ProcessRunner& runner, Toolchain tools, std::ostream& out, bool tty)
      : store_(store), runner_(runner), tools_(std::move(tools)), out_(out), tty_(tty) {}

  // A run that starts is returned even when it stops early (result.error says why); an
  // error before any run exists (bad tools, no GPU, bad selection) is returned as an Error.
  Result<ProfileResult> Run(const ProfileRequest& request);
  // How many times the last Run started the workload (under nsys or ncu), whatever its outcome.
  [[nodiscard]] int64_t workload_runs() const { return workload_runs_; }

 private:
  Status DryRun(const ProfileRequest& request);
  Result<Preflight> CheckBeforeRun(const ProfileRequest& request);
  Result<Capture> StartRun(const ProfileRequest& request, const Preflight& pre);
  Result<int64_t> Discover(const ProfileRequest& request, Capture& cap);  // the discovery run
  Result<Selection> Plan(const ProfileRequest& request, const Preflight& pre, Capture& cap, int64_t discovery);
  Status DeepPass(const ProfileRequest& request, const Preflight& pre, Capture& cap, const Selection& sel,
                  int64_t discovery);
  Result<ProfileResult> Finish(Capture& cap, const Status& outcome);

  store::Store& store_;
  ProcessRunner& runner_;
  Toolchain tools_;
  std::ostream& out_;
  bool tty_;
  // What cannot change between the runs of one session (the points of a sweep): the tools'
  // versions (by whether nsys is needed) and the torch version of the workload's interpreter
  // (a Python start that takes seconds). The GPU is asked each run: its clocks may change.
  std::map<bool, ToolVersions> versions_;
  std::map<std::string, std::optional<std::string>> torch_;
  int64_t workload_runs_ = 0;
};

}  // namespace kscope::capture
