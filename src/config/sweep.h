// Sweeps: one profile per point of a matrix of values (config key `sweep`, or --sweep
// KEY=V1,V2). A key is a configuration key (`ncu.mode`) or a name the command uses as
// {name} (`-- python3 bench.py --batch {batch}`); each point is one run and one report.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "config/config.h"
#include "util/status.h"

namespace kscope::config {

struct SweepPoint {
  std::map<std::string, std::string> values;  // key -> value of this point
  std::vector<std::string> workload;          // the command with {name}s replaced
  Config config;                              // the configuration with this point's keys set
};

// Every point of the product, keys in name order, the last key varying fastest. No sweep:
// one point, the command and configuration as they are. Only a {name} that a sweep key gives
// is replaced; every other byte of the command reaches the workload as written (Hydra's
// `out=${run.mode}` stays so). A sweep key that is neither a configuration key nor used in
// the command is an error.
Result<std::vector<SweepPoint>> ExpandSweep(const Config& base, const std::vector<std::string>& workload);

// "batch=1,2,4" -> config.sweep["batch"] = {1, 2, 4}
Status AddSweepArg(Config& config, const std::string& arg);

}  // namespace kscope::config
