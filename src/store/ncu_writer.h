// Writes profiled launches (ncu results), their metrics and rule findings into one run.
// Launches of the same report seen through its raw and its details page merge into one.
// Metrics are written in batches: Finish() writes the last one.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

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
  // The same for a metric named by its string id (MetricId), for importers that look each
  // name up once.
  Result<int64_t> MetricId(std::string_view metric) { return store_->InternString(metric); }
  Status Metric(int64_t launch_id, int64_t metric_id, std::optional<double> value, std::string_view text,
                std::string_view unit, bool precise);
  Status Rule(int64_t launch_id, const NcuRuleRow& rule);
  // Writes the metrics still held; an importer calls it once its file is read.
  Status Finish();
  // Whether the run had no profiled launches when the writer opened: every launch is then
  // this file's alone, with no metrics from an earlier file merged in.
  [[nodiscard]] bool empty_at_open() const { return empty_at_open_; }

 private:
  using Identity = std::tuple<int64_t, std::optional<int64_t>, int64_t, std::array<int64_t, 3>, std::array<int64_t, 3>>;
  NcuWriter(Store& store, int64_t run_id, int64_t source_id) : store_(&store), run_id_(run_id), source_id_(source_id) {}

  // A metric row waiting for its batch. Rows are written in the order they came, each one
  // as its own INSERT would (a later row of the same metric replaces an earlier one as the
  // upsert says), but kRowsPerInsert rows per statement: SQLite's cost per statement run
  // (bind, step, reset) is then paid once per batch instead of once per row.
  struct PendingMetric {
    int64_t launch_id = 0, metric_id = 0;
    std::optional<double> value;
    std::string text, unit;
    bool precise = false;
  };
  static constexpr size_t kRowsPerInsert = 64;
  Status Write(sql::Stmt& insert, size_t first, size_t count);

  Store* store_;
  int64_t run_id_, source_id_;
  int64_t next_id_ = 0;
  bool empty_at_open_ = true;
  std::map<Identity, int64_t> launches_;
  std::vector<PendingMetric> pending_;
  sql::Stmt insert_launch_, insert_metric_, insert_metrics_, insert_rule_;
};

}  // namespace kscope::store
