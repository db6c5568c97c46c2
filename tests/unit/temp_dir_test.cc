// Private scratch folders: a new name each time, mode 0700, removed with their contents, and a
// one-line error when $TMPDIR is unusable.
#include "util/temp_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace kscope {
namespace {

namespace fs = std::filesystem;

class TmpdirOverride {
 public:
  explicit TmpdirOverride(const std::string& value) {
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    ::setenv("TMPDIR", value.c_str(), 1);
  }
  ~TmpdirOverride() {
    if (old_) {
      ::setenv("TMPDIR", old_->c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
  }
  TmpdirOverride(const TmpdirOverride&) = delete;
  TmpdirOverride& operator=(const TmpdirOverride&) = delete;

 private:
  std::optional<std::string> old_;
};

TEST(TempDir, EachIsNewPrivateAndRemovedWithItsContents) {
  std::string first_path;
  {
    auto a = TempDir::Make("kscope-test-");
    auto b = TempDir::Make("kscope-test-");
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NE(a->path(), b->path());
    EXPECT_EQ(fs::path(a->path()).filename().string().rfind("kscope-test-", 0), 0U);
    struct stat st {};
    ASSERT_EQ(::stat(a->path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700U);
    fs::create_directories(fs::path(a->path()) / "sub");
    std::ofstream(fs::path(a->path()) / "sub" / "f") << "x";
    first_path = a->path();
  }
  EXPECT_FALSE(fs::exists(first_path));
}

TEST(TempDir, AMissingTmpdirIsOneLine) {
  const TmpdirOverride tmp("/nonexistent/kscope");
  auto d = TempDir::Make("kscope-test-");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().fix, "set TMPDIR to a writable folder");
  EXPECT_NE(d.error().Line().find("no folder for temporary files"), std::string::npos) << d.error().Line();
}

// A folder another user made under the name a predictable scheme would pick is never used.
TEST(TempDir, NeverUsesAFolderThatIsAlreadyThere) {
  const fs::path base = fs::temp_directory_path() / ("kscope_tmpdir_test_" + std::to_string(::getpid()));
  fs::create_directories(base);
  const TmpdirOverride tmp(base.string());
  for (int i = 0; i < 20; ++i) fs::create_directory(base / ("kscope-import-" + std::to_string(i)));
  auto d = TempDir::Make("kscope-import-");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(fs::is_empty(d->path()));
  EXPECT_EQ(fs::path(d->path()).parent_path(), base);
  fs::remove_all(base);
}

}  // namespace
}  // namespace kscope
