// Checks an SQLite file's header before SQLite opens it, so a truncated copy gets a clear
// message instead of "database disk image is malformed" halfway through an import.
#pragma once

#include <string>

#include "util/status.h"

namespace kscope {

Status CheckSqliteFile(const std::string& path);

}  // namespace kscope
