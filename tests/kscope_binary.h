// The built kscope binary run as a user runs it: an argv list (no shell), its stdout and
// stderr into one file.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <string>
#include <vector>

extern char** environ;

namespace kscope::testing {

// Starts kscope with `args` (without the program name), output to `log`; -1 if it cannot.
inline pid_t StartKscope(std::vector<std::string> args, const std::string& log) {
  args.insert(args.begin(), KSCOPE_BINARY);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

// Its exit status, or 128 + the signal that ended it.
inline int WaitExit(pid_t pid) {
  int status = 0;
  if (pid <= 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

inline int RunKscope(const std::vector<std::string>& args, const std::string& log) {
  return WaitExit(StartKscope(args, log));
}

// Runs kscope with `args`, its stdout into `out` and its stderr into `err`; its exit status.
inline int RunKscopeSplit(std::vector<std::string> args, const std::string& out, const std::string& err) {
  args.insert(args.begin(), KSCOPE_BINARY);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return WaitExit(rc == 0 ? pid : -1);
}

}  // namespace kscope::testing
