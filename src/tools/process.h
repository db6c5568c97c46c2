// Runs programs from argv lists (never through a shell), each in its own process group so a
// time limit or an interruption stops the whole tree it started. A ProcessRunner interface
// lets tests replay recorded profiler outputs through the same code.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace kscope::capture {

struct ProcessSpec {
  std::vector<std::string> argv;                  // argv[0] is looked up on PATH when it has no '/'
  std::map<std::string, std::string> env;         // set on top of kscope's own environment
  std::string log_path;                           // stdout and stderr, interleaved, appended here
  std::string stdout_path;                        // if set: stdout goes here instead (stderr still to the log),
                                                  // whole, once the program succeeded; else it is left as it was
  double timeout_s = 0;                           // 0: no limit
  int stop_signal = 15;                           // sent to the process group to stop it (SIGTERM) ...
  double kill_grace_s = 10;                       // ... then SIGKILL if it still runs this much later
  std::function<void(std::string_view)> on_line;  // each output line as it arrives (progress)
  // A watchdog on progress: with stall_timeout_s > 0 the program is stopped (as at its time
  // limit; the outcome says `stalled`) once `busy` has said, for that long with no output in
  // between, that it is inside a unit of work that prints as it goes (ncu profiling one launch).
  // `busy` gets the output line not yet ended.
  double stall_timeout_s = 0;
  std::function<bool(std::string_view)> busy;
  bool inherit_output = false;  // stdout and stderr are kscope's own (log_path, stdout_path and on_line unused)
};

struct ProcessOutcome {
  int exit_code = -1;        // the exit status, or -1 when a signal ended it
  int signal = 0;            // the signal that ended it, or 0
  bool timed_out = false;    // stopped by kscope at the time limit
  bool interrupted = false;  // stopped by kscope because kscope was interrupted (Ctrl-C, kill)
  bool stalled = false;      // stopped by kscope: no progress for stall_timeout_s (timed_out is set too)
  double seconds = 0;        // wall time
  [[nodiscard]] bool ok() const { return exit_code == 0 && !timed_out && !interrupted; }
  [[nodiscard]] std::string Describe() const;  // "exit 3", "killed by signal 11 (Segmentation fault)", ...
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // Fails only when the program cannot be started; its own failure is in the outcome.
  virtual Result<ProcessOutcome> Run(const ProcessSpec& spec) = 0;
};

// The real thing: posix_spawn, a new process group, output read through a pipe.
class SystemRunner : public ProcessRunner {
 public:
  Result<ProcessOutcome> Run(const ProcessSpec& spec) override;
};

// Interruption: InstallInterruptHandlers makes SIGINT, SIGTERM and SIGHUP count an
// interruption instead of killing kscope. A program running when one arrives is stopped (its
// whole process group); one started after it runs, so kscope can still export and import
// what was gathered; another Ctrl-C stops that too. RequestInterrupt does the same from code.
void InstallInterruptHandlers();
bool Interrupted();  // at least one interruption so far
int InterruptCount();
void RequestInterrupt();
void ClearInterrupt();

// Runs argv with stdout to `stdout_path` and stderr to `stderr_path`; the simple form.
Result<ProcessOutcome> RunProcess(const std::vector<std::string>& argv, const std::string& stdout_path,
                                  const std::string& stderr_path);

}  // namespace kscope::capture
