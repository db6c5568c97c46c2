// A file's content as a short fingerprint, to tell that two files hold the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/status.h"

namespace kscope {

// "xxh3-64:" and 16 hex digits: XXH3 (64 bits) of every byte of the file (xxHash, from
// Debian's libxxhash-dev; about 10 GB/s, where the byte-wise FNV-1a of schema 6 ran at well
// under 1 GB/s and was half of a large .ncu-rep's import).
Result<std::string> FileContentHash(const std::string& path);

// XXH3 (64 bits) of a string in memory: a fast hash for tables keyed by long strings.
uint64_t TextHash(std::string_view text);

// "fnv1a64:" and 16 hex digits: the byte-wise FNV-1a that stores of schema 6 and early schema 7
// kept, to recognise their files again (kscope import --rederive).
Result<std::string> LegacyFnv1aHash(const std::string& path);

}  // namespace kscope
