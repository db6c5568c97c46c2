// A file's content as a short fingerprint, to tell that two files hold the same bytes.
#pragma once

#include <string>

#include "util/status.h"

namespace kscope {

// "xxh3-64:" and 16 hex digits: XXH3 (64 bits) of every byte of the file (xxHash, from
// Debian's libxxhash-dev; about 10 GB/s, where the byte-wise FNV-1a of schema 6 ran at well
// under 1 GB/s and was half of a large .ncu-rep's import).
Result<std::string> FileContentHash(const std::string& path);

}  // namespace kscope
