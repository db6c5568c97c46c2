// The kscope binary run in a child process as the user nobody when the test runs as root (so
// that file permissions hold for it), for the robustness tests of stores it may not write.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "test_support.h"

namespace kscope::testing {

// Whether others (the user nobody) may run `path`: it and every folder above it let them.
inline bool OthersMayRun(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  for (fs::path p = path; !p.empty() && p != p.root_path(); p = p.parent_path()) {
    if ((fs::status(p).permissions() & fs::perms::others_exec) == fs::perms::none) return false;
  }
  return true;
}

// Runs `args` (args[0] the program) with no HOME, its stdout and stderr into `log` (removed
// after), as the user nobody when `as_nobody` and the test runs as root. Returns the exit
// status (128 + the signal for a killed one) and the output.
inline std::pair<int, std::string> RunKscopeAs(std::vector<std::string> args, const std::string& log, bool as_nobody) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(126);
    if (as_nobody && geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(126);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    setenv("HOME", "/nonexistent", 1);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::string out = ReadFile(log);
  std::filesystem::remove(log);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

}  // namespace kscope::testing
