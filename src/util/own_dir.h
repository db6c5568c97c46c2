// Folders kscope picks itself (a report's default folder, the runs folder, its caches): made
// with the user's umask when missing, and refused when the path is a symbolic link or a
// folder of another user. In a shared directory (a team's scratch, /tmp) another user could
// otherwise plant the folder or a link by that name beforehand, then read what kscope writes
// there or replace it.
#pragma once

#include <filesystem>
#include <string_view>

#include "util/status.h"

namespace kscope {

// Makes `dir` (and its missing parents) or checks the one there: a folder owned by the
// user kscope runs as, reached without a symbolic link as its last part. The error names the
// path, what is wrong, and `fix` (how to choose another folder).
Status MakeOwnDir(const std::filesystem::path& dir, std::string_view fix);

}  // namespace kscope
