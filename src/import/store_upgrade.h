// Opening a store for the kscope command: a store written by an earlier kscope is upgraded in
// place first (store/migrate.h), and what only its runs' source files can give is filled again
// on request (kscope import --rederive).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/migrate.h"
#include "store/store.h"
#include "util/status.h"

namespace kscope::import {

// store::Store::Open, after upgrading a store of an older schema: in one transaction, with a copy
// of the store as it was kept beside it (a note on stderr says where), and each run's launch
// figures derived again from its metric rows before the commit.
Result<store::Store> OpenStore(const std::string& path, sql::OpenMode mode);

struct UpgradeDone {
  store::SchemaUpgrade schema;
  std::string backup;  // where the store as it was is kept
};

// Upgrades the store at `path` when it is older than this kscope; nullopt when it was not. `note`:
// say on stderr where the store as it was is kept (not for a private copy that goes away).
Result<std::optional<UpgradeDone>> UpgradeStore(const std::string& path, bool note = true);

// What kscope import --rederive did for one run's gap (run_gap).
struct RederiveOutcome {
  int64_t run_id = 0;
  std::string what;
  bool filled = false;
  std::string why_not;  // when not filled: the source file that is gone or changed
};

// Fills each run's gaps from its source files where they still exist unchanged (all runs with
// gaps when `runs` is empty), in one transaction.
Result<std::vector<RederiveOutcome>> Rederive(store::Store& store, const std::vector<int64_t>& runs);

}  // namespace kscope::import
