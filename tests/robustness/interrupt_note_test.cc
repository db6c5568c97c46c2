// An interrupt that comes just as an import commits (here: raised from inside the commit's
// callback, where a Ctrl-C would be held) still ends kscope by its signal, but first says
// that the run is complete; the run is in the store.
#include "util/interrupt_note.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <string>

#include "import/import_files.h"
#include "store/store.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

TEST(InterruptNote, AfterTheCommitSaysTheRunIsComplete) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const fs::path db =
      fs::temp_directory_path() / "kscope_interrupt_note_test.db";  // the same in the death test's process
  fs::remove(db);
  auto import_then_interrupt = [&] {
    InstallInterruptNote();
    auto s = store::Store::Open(db.string(), sql::OpenMode::kCreate);
    if (!s.ok()) std::_Exit(3);
    import::ImportOptions options;
    options.on_commit = [](const std::vector<import::FileOutcome>&) { std::raise(SIGINT); };
    (void)import::ImportFiles(*s, {testing::NsysData("tiny_cuda.sqlite")}, options);
    std::_Exit(4);  // not reached: the held SIGINT comes once the commit is done
  };
  EXPECT_EXIT(import_then_interrupt(), ::testing::KilledBySignal(SIGINT),
              "^kscope: interrupted after the import was committed: run 1 is complete\n$");
  auto s = store::Store::Open(db.string(), sql::OpenMode::kReadOnly);
  ASSERT_TRUE(s.ok()) << s.error().Line();
  EXPECT_EQ(*s->StreamRows(1, "kernel"), 9);
  fs::remove(db);
  fs::remove(db.string() + "-wal");
  fs::remove(db.string() + "-shm");
}

}  // namespace
}  // namespace kscope
