#include "tools/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <utility>

#include "util/atomic_file.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX's process environment

namespace kscope::capture {

namespace {

std::atomic<int> g_interrupts{0};

extern "C" void OnInterruptSignal(int /*sig*/) { g_interrupts.fetch_add(1); }

// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

Result<int> OpenForWrite(const std::string& path, bool append) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
  if (fd < 0) return Error{path, std::string("cannot write: ") + std::strerror(errno), "check the directory"};
  return fd;
}

// Splits output into lines for the progress callback; a carriage return also ends a line
// (nsys redraws its progress bar with '\r').
class LineSplitter {
 public:
  explicit LineSplitter(const std::function<void(std::string_view)>& cb) : cb_(cb) {}
  void Feed(std::string_view data) {
    for (char c : data) {
      if (c == '\n' || c == '\r') {
        if (!line_.empty() && cb_) cb_(line_);
        line_.clear();
      } else {
        line_.push_back(c);
      }
    }
  }
  [[nodiscard]] std::string_view Partial() const { return line_; }
  void Flush() {
    if (cb_ && !line_.empty()) cb_(line_);
    line_.clear();
  }

 private:
  const std::function<void(std::string_view)>& cb_;
  std::string line_;
};

std::vector<std::string> Environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    const auto eq = kv.find('=');
    if (eq != std::string_view::npos && extra.count(std::string(kv.substr(0, eq))) != 0) continue;
    env.emplace_back(kv);
  }
  for (const auto& [k, v] : extra) env.push_back(std::string(k).append("=").append(v));
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string ProcessOutcome::Describe() const {
  if (stalled) return "stopped: no progress";
  if (timed_out) return "stopped at its time limit";
  if (interrupted) return "stopped because kscope was interrupted";
  if (signal != 0) return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit " + std::to_string(exit_code);
}

void InstallInterruptHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnInterruptSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &sa, nullptr);
}
bool Interrupted() { return g_interrupts.load() > 0; }
int InterruptCount() { return g_interrupts.load(); }
void RequestInterrupt() { g_interrupts.fetch_add(1); }
void ClearInterrupt() { g_interrupts.store(0); }

Result<ProcessOutcome> SystemRunner::Run(const ProcessSpec& spec) {
  using Clock = std::chrono::steady_clock;
  if (spec.argv.empty()) return Error{"", "no program to run", ""};
  const std::string& prog = spec.argv[0];
  auto log = OpenForWrite(spec.log_path.empty() || spec.inherit_output ? "/dev/null" : spec.log_path, true);
  if (!log.ok()) return log.error();
  Fd log_fd(*log);
  // stdout goes to a temporary file that takes its name only when the program succeeds.
  std::optional<AtomicFile> stdout_file;
  if (!spec.stdout_path.empty() && !spec.inherit_output) {
    auto out = AtomicFile::Create(spec.stdout_path);
    if (!out.ok()) return out.error();
    stdout_file.emplace(std::move(*out));
  }
  const int stdout_fd = stdout_file ? stdout_file->fd() : -1;
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return Error{prog, std::string("cannot make a pipe: ") + std::strerror(errno), ""};
  Fd read_end(p[0]);
  Fd write_end(p[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (!spec.inherit_output) {
    posix_spawn_file_actions_adddup2(&actions, stdout_fd >= 0 ? stdout_fd : write_end.fd, 1);
    posix_spawn_file_actions_adddup2(&actions, write_end.fd, 2);
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&defaults, s);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setpgroup(&attr, 0);  // its own process group: we stop the whole tree
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<std::string> argv_copy = spec.argv;
  std::vector<std::string> env = Environment(spec.env);
  auto args = CStrings(argv_copy);
  auto envp = CStrings(env);
  pid_t pid = 0;
  const auto t0 = Clock::now();
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return Error{prog, std::string("cannot start: ") + std::strerror(rc),
                 "check that it is installed and on PATH, or give its full path"};
  }
  close(write_end.fd);
  write_end.fd = -1;

  ProcessOutcome out;
  const int interrupts_before = InterruptCount();  // only an interruption while it runs stops it
  LineSplitter lines(spec.on_line);
  std::optional<Clock::time_point> kill_at;  // when SIGKILL follows the SIGTERM sent
  Clock::time_point last_output = t0;        // for the progress watchdog
  bool stalled_now = false;
  bool exited = false, eof = spec.inherit_output;
  int status = 0;
  std::optional<Clock::time_point> drain_until;  // after the child exits, read what is left
  auto stop = [&](bool timeout) {
    if (kill_at) return;
    (timeout ? out.timed_out : out.interrupted) = true;
    out.stalled = timeout && stalled_now;
    kill(-pid, spec.stop_signal);
    kill_at =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.kill_grace_s));
  };
  char buf[65536];
  while (!(exited && (eof || Clock::now() > *drain_until))) {
    if (!exited) {
      const pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        exited = true;
        drain_until = Clock::now() + std::chrono::seconds(2);
      }
    }
    if (!exited) {
      if (spec.timeout_s > 0 && std::chrono::duration<double>(Clock::now() - t0).count() > spec.timeout_s) stop(true);
      if (spec.stall_timeout_s > 0 && spec.busy && !kill_at &&
          std::chrono::duration<double>(Clock::now() - last_output).count() > spec.stall_timeout_s &&
          spec.busy(lines.Partial())) {
        stalled_now = true;
        stop(true);
      }
      if (InterruptCount() > interrupts_before) stop(false);
      if (kill_at && Clock::now() > *kill_at) kill(-pid, SIGKILL);
    }
    if (eof) {
      if (!exited) usleep(20000);
      continue;
    }
    pollfd pfd{read_end.fd, POLLIN, 0};
    const int pr = poll(&pfd, 1, 50);
    if (pr < 0 && errno != EINTR) break;
    if (pr <= 0) continue;
    const ssize_t n = read(read_end.fd, buf, sizeof buf);
    if (n <= 0) {
      if (n == 0 || errno != EINTR) eof = true;
      continue;
    }
    last_output = Clock::now();
    const std::string_view chunk(buf, static_cast<size_t>(n));
    if (write(log_fd.fd, chunk.data(), chunk.size()) < 0) {
      // the log is best effort; the run goes on
    }
    lines.Feed(chunk);
  }
  lines.Flush();
  if (kill_at) kill(-pid, SIGKILL);  // nothing of the tree outlives a stop
  out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  if (stdout_file && out.ok()) KSCOPE_RETURN_IF_ERROR(stdout_file->Commit());
  return out;
}

Result<ProcessOutcome> RunProcess(const std::vector<std::string>& argv, const std::string& stdout_path,
                                  const std::string& stderr_path) {
  static_cast<void>(std::remove(stderr_path.c_str()));  // a fresh log; absent is fine
  ProcessSpec spec;
  spec.argv = argv;
  spec.stdout_path = stdout_path;
  spec.log_path = stderr_path;
  return SystemRunner().Run(spec);
}

}  // namespace kscope::capture
