// kscope's configuration: one YAML file (the users know Hydra), dotted overrides on the
// command line (`ncu.mode=deep selection.top=30`), and sweeps over a matrix of values.
// Every key is declared once in config_keys.cc with its type, default and meaning;
// docs/config.md is generated from that table (`kscope config --keys`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "capture/options.h"
#include "util/status.h"

namespace kscope::config {

// Each layer owns its options (capture/options.h, analysis/options.h); the configuration
// aggregates them. The names below are the ones the CLI and the key table use.
using ProfileConfig = capture::ProfileOptions;
using NsysConfig = capture::NsysOptions;
using SelectionConfig = capture::SelectionOptions;
using NcuConfig = capture::NcuOptions;
using ModelConfig = analysis::ModelOptions;
using StagesConfig = analysis::StagesOptions;

// classify, timeline, atlas, stages and model (analysis), then profile, nsys, selection, ncu
// (capture), then the sweep.
struct Config : capture::CaptureOptions {
  // sweep: key -> values; a key is a config key (dotted) or a name the command uses as {name}
  std::map<std::string, std::vector<std::string>> sweep;
};

// The defaults, then `path` (if not empty), then each override "a.b=value" (value in YAML:
// 30, deep, [a, b]). An unknown key or a value of the wrong type is an error naming it.
Result<Config> LoadConfig(const std::string& path, const std::vector<std::string>& overrides = {});

// One override more, on a loaded config ("ncu.mode=deep"); sweeps use it for each point.
Status ApplyOverride(Config& config, const std::string& assignment);

// The effective configuration as YAML (recorded in each run's directory).
std::string ToYaml(const Config& config);

// Markdown table of every key: name, type, default, meaning (docs/config.md).
std::string KeysMarkdown();

}  // namespace kscope::config
