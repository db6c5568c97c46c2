// Runs a program from an argv list (never through a shell), its output sent to files.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace kscope::capture {

struct ProcessOutcome {
  int exit_code = -1;  // the program's exit status, or -1 when a signal ended it
  int signal = 0;      // the signal that ended it, or 0
};

// Runs argv[0] (looked up on PATH when it has no '/') with argv, stdout written to
// `stdout_path` and stderr to `stderr_path` (each created or truncated), and waits for it.
Result<ProcessOutcome> RunProcess(const std::vector<std::string>& argv, const std::string& stdout_path,
                                  const std::string& stderr_path);

}  // namespace kscope::capture
