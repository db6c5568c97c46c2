#include "cli/config.h"

#include <yaml-cpp/yaml.h>

namespace kscope::cli {

Result<Config> LoadConfig(const std::string& path) {
  Config c;
  if (path.empty()) return c;
  try {
    const YAML::Node root = YAML::LoadFile(path);
    const YAML::Node classify = root["classify"];
    if (!classify) return c;
    auto read = [&](const char* key, double& into) {
      if (classify[key]) into = classify[key].as<double>();
    };
    read("busy_pct", c.classify.busy_pct);
    read("launch_us", c.classify.launch_us);
    read("launch_waves", c.classify.launch_waves);
    read("low_occupancy_pct", c.classify.low_occupancy_pct);
  } catch (const YAML::Exception& e) {
    return Error{path, "bad configuration: " + e.msg + " (line " + std::to_string(e.mark.line + 1) + ")",
                 "see docs/config.md for the keys and their types"};
  }
  return c;
}

}  // namespace kscope::cli
