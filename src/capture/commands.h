// The exact nsys and ncu command lines kscope runs, as argv lists (never a shell string).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "capture/options.h"
#include "capture/selection.h"
#include "tools/ncu_tool.h"

namespace kscope::capture {

// nsys profile of the workload; the report is `out_base`.nsys-rep. `visible_only`: the workload
// sees some GPUs only (CUDA_VISIBLE_DEVICES), so nsys samples the GPU metrics of those alone:
// sampling another GPU takes its profiling counters from whoever else profiles it (ncu there
// fails with "a driver resource was unavailable").
std::vector<std::string> NsysProfileArgv(const std::string& nsys, const NsysOptions& c, const std::string& out_base,
                                         const std::vector<std::string>& workload, bool visible_only = false);
// Whether the workload, run with kscope's environment and `env` over it, sees some GPUs only.
bool SeesSomeGpusOnly(const std::map<std::string, std::string>& env);
// Environment the nsys run needs: with a capture range, nsys must match unregistered NVTX
// strings (PyTorch's torch.cuda.nvtx.range_push), which it does only when told so.
std::map<std::string, std::string> NsysProfileEnv(const NsysOptions& c);
std::vector<std::string> NsysExportArgv(const std::string& nsys, const std::string& report,
                                        const std::string& out_sqlite);

// The ncu section set asked for (ncu.set; ncu.mode full is the set full), or "".
std::string NcuSet(const NcuOptions& c);
// The sections of an ncu mode (quick, deep, roofline) plus the configured extra ones; with a
// set, only the extra ones.
std::vector<std::string> NcuSections(const NcuOptions& c);
// About how many replay passes ncu takes per launch for the mode's sections and the metrics
// (ncu 2025.3 on an H100: quick 11, with the FLOP counters 17); for the selection's budget.
int64_t EstimatedPasses(const NcuOptions& c);
// The metrics asked for on top of the sections: the FLOP counters (ncu.flops) and ncu.metrics,
// before the check against what the installed ncu offers (tools/ncu_catalog.h).
std::vector<std::string> NcuMetrics(const NcuOptions& c);
// The GPU an ncu run is told to profile (--devices): the selection's (Selection::device, none
// when it is -1), or none: the ncu that the rank gate starts inside the one rank it profiles
// sees that rank alone, which profiles whichever GPU it uses.
enum class NcuDevice { kSelections, kAny };
// One deep pass: its kernels' union filter and launch window, NVTX-gated when the selection
// is, the sections of the mode and `metrics`, on `device`; the report is `out_base`.ncu-rep.
std::vector<std::string> NcuProfileArgv(const std::string& ncu, const NcuOptions& c, const Selection& sel,
                                        const NcuPass& pass, const std::vector<std::string>& metrics,
                                        const std::string& out_base, const std::vector<std::string>& workload,
                                        NcuDevice device = NcuDevice::kSelections);
// The same filter for one selected kernel alone (printed for the user to reuse).
std::vector<std::string> NcuKernelArgv(const std::string& ncu, const NcuOptions& c, const Selection& sel,
                                       const SelectedKernel& k, const std::vector<std::string>& metrics,
                                       const std::vector<std::string>& workload);

// argv as a line a POSIX shell would read back as the same argv (for display and logs only).
std::string ShellQuote(const std::vector<std::string>& argv);

}  // namespace kscope::capture
