// Writes profiled launches (ncu results), their metrics and rule findings into one run.
// Launches of the same report seen through its raw and its details page merge into one.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "store/store.h"
#include "util/status.h"

namespace kscope::store {

struct NcuLaunchKey {
  int64_t ncu_id = 0;
  std::optional<int64_t> pid;
  std::string process, host, name;
  std::optional<int64_t> context, stream, device;
  std::string cc;
  std::array<int64_t, 3> grid{}, block{};
  std::string nvtx;
};

struct NcuRuleRow {
  std::string section, rule, type, description, speedup_type;
  std::optional<double> speedup;
};

class NcuWriter {
 public:
  static Result<NcuWriter> Open(Store& store, int64_t run_id, int64_t source_id);

  // The launch's id in the run, adding it when new.
  Result<int64_t> Launch(const NcuLaunchKey& key);
  // A metric value in base units. A precise value (raw page) replaces a rounded one
  // (details page); a rounded one never replaces a precise one.
  Status Metric(int64_t launch_id, std::string_view metric, std::optional<double> value, std::string_view text,
                std::string_view unit, bool precise);
  Status Rule(int64_t launch_id, const NcuRuleRow& rule);

 private:
  using Identity = std::tuple<int64_t, std::optional<int64_t>, int64_t, std::array<int64_t, 3>, std::array<int64_t, 3>>;
  NcuWriter(Store& store, int64_t run_id, int64_t source_id) : store_(&store), run_id_(run_id), source_id_(source_id) {}

  Store* store_;
  int64_t run_id_, source_id_;
  int64_t next_id_ = 0;
  std::map<Identity, int64_t> launches_;
  sql::Stmt insert_launch_, insert_metric_, insert_rule_;
};

}  // namespace kscope::store
