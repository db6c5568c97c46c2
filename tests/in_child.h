// Runs a piece of a test in a forked child: with a file size limit (a full disk, as
// RLIMIT_FSIZE makes larger files fail with EFBIG) or as the user nobody (root, whom folder
// permissions do not stop, drops to uid 65534), and hands back the text it returned.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>
#include <string>

namespace kscope::testing {

// `fsize_limit`: bytes, 0 for none.
inline std::string InChild(const std::function<std::string()>& body, rlim_t fsize_limit, bool as_nobody) {
  int p[2];
  if (pipe(p) != 0) return "(no pipe)";
  const pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    bool ready = true;
    if (fsize_limit > 0) {
      const rlimit limit{fsize_limit, fsize_limit};
      std::signal(SIGXFSZ, SIG_IGN);
      ready = setrlimit(RLIMIT_FSIZE, &limit) == 0;
    }
    if (as_nobody && geteuid() == 0) ready = ready && setgid(65534) == 0 && setuid(65534) == 0;
    const std::string text = ready ? body() : "(the child could not set itself up)";
    const ssize_t n = write(p[1], text.data(), text.size());
    _exit(n == static_cast<ssize_t>(text.size()) ? 0 : 1);
  }
  close(p[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(p[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(p[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return text;
}

}  // namespace kscope::testing
