// The atlas's thresholds (configuration keys atlas.*, docs/config.md): when a launch
// configuration is an outlier of its family, and when a family shows a systemic signal. The
// signals also use the classification's thresholds (classify.*) where the question is the same.
#pragma once

#include <cstdint>

namespace kscope::analysis::atlas {

struct AtlasThresholds {
  double outlier_fraction = 0.5;       // a configuration below this fraction of its family's median is an outlier
  int64_t outlier_min_launches = 4;    // ... in a family with at least this many launches that have the figure
  double signal_share_pct = 50;        // a family shows a signal when this share of its launches with the metrics do
  double low_tensor_pct = 20;          // matmul-like launches whose tensor pipe is active less than this: low use
  double register_occupancy_pct = 50;  // register-limited launches whose theoretical occupancy is below this
  double many_launches = 1000;         // launch-bound: at least this many launches of the family per run ...
};

}  // namespace kscope::analysis::atlas
