// Upgrading a store written by an earlier kscope: its tables brought to today's schema in place,
// inside one transaction, with what the store alone cannot give recorded per run (run_gap).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/sqlite.h"
#include "util/status.h"

namespace kscope::store {

// The schema_version a store records: 0 when the file is empty (a store being made), an error
// when it is no kscope store.
Result<int> StoredSchemaVersion(sql::Db& db);

// What an upgrade did, for the note it prints and for the derivation that follows it.
struct SchemaUpgrade {
  int from = 0;
  // Runs with profiled launches whose figures (ncu_launch_figures, with shapes) must be derived
  // again from their metric rows: the caller's derivation step, before the transaction commits.
  std::vector<int64_t> runs_to_derive;
  int64_t runs_with_gaps = 0;  // runs that lack what only their source files hold (run_gap)
};

// Inside a write transaction on `db` whose connection has foreign keys off: every table whose
// columns differ from today's is made again with today's definition and its rows copied by
// column name (renamed columns mapped), missing tables and indexes are created, the views made
// again, each run's gaps recorded, and schema_version set. The foreign keys are checked before
// it returns. `from` is the version the store records (1 .. kSchemaVersion).
Result<SchemaUpgrade> MigrateSchema(sql::Db& db, int from);

// A consistent copy of the open database at `dest` (SQLite's online backup).
Status CopyDatabase(sql::Db& db, const std::string& dest);

}  // namespace kscope::store
