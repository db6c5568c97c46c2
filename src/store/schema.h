// The store's schema: declared once (schema.cc), versioned, checked on open.
#pragma once

#include <string>
#include <string_view>

namespace kscope::store {

// Bump when the schema changes, with a step in store/migrate.cc that brings a store of the
// version before to it (and a fixture store of that version: tests/data/store_versions).
inline constexpr int kSchemaVersion = 10;  // 2: ncu_launch, ncu_metric, ncu_rule; 3: run.status, run.capture;
                                           // 4: thread_name; 5: run.nsys_export_version, run.nsys_tool_version;
                                           // 6: source_file.content_hash; the views v_runs,
                                           //    v_kernels, v_ncu_launches, v_ncu_metrics;
                                           // 7: ncu_launch_figures, v_ncu_launch_figures; content_hash
                                           //    XXH3 (xxh3-64:) instead of FNV-1a; ncu_launch_figures.shape
                                           // 8: run_gap; 9: run_rank; 10: collective_message; stores of
                                           //    every earlier version are upgraded

// The DDL that creates an empty store. Each column carries its meaning as a comment, and
// docs/schema.md is written from the same text. The views apart: an upgrade makes them again.
std::string_view SchemaTablesDdl();
std::string_view SchemaViewsDdl();
std::string SchemaDdl();

}  // namespace kscope::store
