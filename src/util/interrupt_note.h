// What an interrupted kscope says when its work was already kept: SIGINT, SIGTERM or SIGHUP
// still end the process as they would (the exit status tells the signal, and an import not yet
// committed rolls back), but once a note is set, it is written to stderr first, e.g. that the
// run just committed is complete.
#pragma once

#include <csignal>
#include <string>

namespace kscope {

// Installs the handler (once); until a note is set, a signal ends the process unchanged.
void InstallInterruptNote();
// The line written when a signal comes from now on ("" for none); set with the signals held.
void SetInterruptNote(const std::string& line);

// Paths removed, a folder with all it holds, when a signal ends the process (after
// InstallInterruptNote): scratch folders a kill would otherwise leave behind (util/temp_dir.h).
// At most 256 at a time; paths longer than 1 KiB are not kept.
void RemoveOnInterrupt(const std::string& path);
void ForgetOnInterrupt(const std::string& path);

// Holds SIGINT, SIGTERM and SIGHUP in this scope (this thread): one that comes meanwhile is
// delivered at its end, so that a commit and its note are seen together or not at all.
class HoldInterrupts {
 public:
  HoldInterrupts();
  ~HoldInterrupts();
  HoldInterrupts(const HoldInterrupts&) = delete;
  HoldInterrupts& operator=(const HoldInterrupts&) = delete;

 private:
  sigset_t before_;
};

}  // namespace kscope
