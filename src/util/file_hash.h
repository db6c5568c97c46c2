// A file's content as a short fingerprint, to tell that two files hold the same bytes.
#pragma once

#include <string>

#include "util/status.h"

namespace kscope {

// "fnv1a64:" and 16 hex digits: FNV-1a (64 bits) of every byte of the file.
Result<std::string> FileContentHash(const std::string& path);

}  // namespace kscope
