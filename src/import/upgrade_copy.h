// The copy of a store kept beside it through its upgrade (import/store_upgrade.h), made so that
// an interrupted upgrade leaves no partial copy behind: it is written under a name of its own,
// STORE.schemaN.bak.partial, and takes its final name, STORE.schemaN.bak, once the upgrade has
// committed. SIGINT, SIGTERM or SIGHUP before then remove it; after kill -9, the next upgrade of
// the store removes it (the upgrade did not commit), or, when the upgrade had committed, the next
// command that may write the folder gives it its final name.
#pragma once

#include <string>

#include "util/sqlite.h"
#include "util/status.h"

namespace kscope::import {

class UpgradeCopy {
 public:
  // Under the store's write lock, the store of schema `version`: a partial copy an earlier
  // upgrade left is removed, and the store copied through `reader`.
  static Result<UpgradeCopy> Make(sql::Db& reader, const std::string& store, int version);
  UpgradeCopy(UpgradeCopy&& other) noexcept;
  UpgradeCopy& operator=(UpgradeCopy&&) = delete;
  UpgradeCopy(const UpgradeCopy&) = delete;
  UpgradeCopy& operator=(const UpgradeCopy&) = delete;
  // Removes the copy unless Keep() gave it its final name.
  ~UpgradeCopy();

  // Once the upgrade committed: the copy under its final name (never over another file), where
  // it is kept. Where the rename fails, it stays where it is, and that path is returned.
  std::string Keep();

 private:
  UpgradeCopy(std::string store, int version);
  std::string store_;
  int version_ = 0;
  std::string partial_;  // empty once kept or moved from
};

// A copy that an upgrade killed after its commit left under its partial name beside `store`
// (now of a newer schema): given its final name. Nothing where this process may not write.
void KeepCommittedCopies(const std::string& store);

}  // namespace kscope::import
