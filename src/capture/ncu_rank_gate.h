// The rank gate: in a job of several ranks under one kscope (kscope profile -- torchrun ...,
// mpirun, srun), ncu is injected into the rank it profiles and into no other process.
//
// ncu started over the whole job injects every process of the tree (its process tracking puts
// itself back into a process that executes itself again without it). With every rank injected,
// an ncu run of a 2-GPU job stopped for good inside a compute kernel of the profiled rank in 5
// of 5 runs, that rank's GPU at 100% and the other rank blocked on the host; with the profiled
// rank alone under ncu the same runs completed 4 of 4 (docs/gpu/issue21_hang/README.md).
//
// The launcher runs without ncu. A module kscope writes into the run directory and puts first on
// the job's PYTHONPATH (sitecustomize.py, which Python imports as it starts) makes the Python
// process whose rank variable is the profiled rank execute itself again as ncu's workload; every
// other process, the launcher among them, goes on unchanged. A job whose ranks are not Python
// processes, or set no rank variable, leaves the gate closed: ncu then never connects, and the
// deep pass runs ncu over the whole job instead (NcuRuns).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "capture/selection.h"
#include "util/status.h"

namespace kscope::capture {

// Whether the passes of `sel` go through the rank gate: several ranks, kernel replay without
// ncu's communicator (which needs every rank under ncu), and profile.ncu_rank_gate on.
bool UsesRankGate(const Selection& sel, std::string_view replay, std::string_view option);

// The gate's module, sitecustomize.py.
std::string_view RankGateModule();

// Writes the gate for one ncu run into `dir` (sitecustomize.py, and `name`.ncu-argv: ncu's
// arguments up to its workload, NUL-separated) and returns what the launcher's environment gets:
// the gate first on PYTHONPATH (before `pythonpath`, the job's own), the rank to gate and where
// its rank comes from. `kscope_env`: kscope's own environment, whose rank variables the job's
// processes inherit rather than get from their launcher, so the gate does not read them.
Result<std::map<std::string, std::string>> WriteRankGate(const std::filesystem::path& dir, const std::string& name,
                                                         const std::vector<std::string>& ncu_argv, int64_t rank,
                                                         const std::map<std::string, std::string>& kscope_env,
                                                         const std::string& pythonpath);

}  // namespace kscope::capture
