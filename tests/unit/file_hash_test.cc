// The content fingerprint of a file: XXH3 (64 bits) of its bytes, read in 1 MiB blocks, equal
// to xxHash's one-shot function over the whole content and to the published value for no bytes.
#define XXH_INLINE_ALL
#include "util/file_hash.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kscope {
namespace {

std::string Write(const std::string& name, const std::string& bytes) {
  const auto path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(FileHash, EmptyFileIsXxh3OfNoBytes) {
  auto hash = FileContentHash(Write("kscope_hash_empty", ""));
  ASSERT_TRUE(hash.ok());
  EXPECT_EQ(*hash, "xxh3-64:2d06800538d394c2");  // XXH3_64bits of zero bytes, seed 0
}

TEST(FileHash, BlocksGiveTheOneShotValue) {
  std::string bytes;
  for (int i = 0; i < (3 << 20) + 12345; ++i) bytes.push_back(static_cast<char>((i * 131) ^ (i >> 7)));
  auto hash = FileContentHash(Write("kscope_hash_blocks", bytes));
  ASSERT_TRUE(hash.ok());
  char expected[17];
  std::snprintf(expected, sizeof expected, "%016llx",
                static_cast<unsigned long long>(XXH3_64bits(bytes.data(), bytes.size())));
  EXPECT_EQ(*hash, std::string("xxh3-64:") + expected);
  bytes[bytes.size() / 2] ^= 1;  // one bit changed
  EXPECT_NE(*FileContentHash(Write("kscope_hash_blocks", bytes)), *hash);
}

TEST(FileHash, AMissingFileIsAnError) {
  auto hash = FileContentHash("/nonexistent/kscope_hash");
  ASSERT_FALSE(hash.ok());
  EXPECT_EQ(hash.error().what, "cannot be read");
}

}  // namespace
}  // namespace kscope
