// Scratch that a killed kscope left behind. Every temporary folder (TempDir) and every
// temporary file beside an output (AtomicFile) carries the process id of the kscope that made
// it ("kscope-import-<pid>-Xy3kQz", ".report.html.kscope-<pid>-Xy3kQz"). A SIGKILL, an
// out-of-memory kill or a power cut leaves it there; the next kscope that makes scratch of the
// same kind in the same folder removes it: the user's own entries whose process is gone and
// that are older than the process removing them.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace kscope {

// "<pid>-": what follows a scratch prefix in the names this process makes.
std::string ScratchTag();

// Removes `folder`'s stale entries named `prefix` + "<pid>-" + anything; returns how many.
int RemoveStaleScratch(const std::filesystem::path& folder, std::string_view prefix);

}  // namespace kscope
