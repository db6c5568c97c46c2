#include "util/interrupt_note.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <csignal>

namespace kscope {

namespace {

constexpr std::array kSignals = {SIGINT, SIGTERM, SIGHUP};
// Two buffers: the handler reads the one `current` points to, SetInterruptNote fills the
// other and then swaps (signals are held meanwhile, so the handler never sees it half-written).
std::array<std::array<char, 512>, 2> g_notes{};
std::array<size_t, 2> g_lengths{};
std::atomic<int> g_current{-1};

// The paths to remove on a signal: fixed slots, so the handler needs no allocation.
constexpr size_t kMaxPaths = 256;
std::array<std::array<char, 1024>, kMaxPaths> g_paths{};
std::array<std::atomic<bool>, kMaxPaths> g_path_used{};

bool IsDotOrDotDot(const char* name) {
  return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

// Removes `name` (under the folder `at`) with all it holds, with system calls only: a signal
// handler may not allocate. Links are removed, never followed; at most 8 folders deep.
void RemoveTreeAt(int at, const char* name, int depth) {
  if (::unlinkat(at, name, 0) == 0 || depth > 8) return;
  const int fd = ::openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  alignas(struct dirent64) std::array<char, 4096> buf;
  // Entries removed while the folder is read can hide others: read it again until it is empty.
  for (int round = 0; round < 64; ++round) {
    bool any = false;
    (void)::lseek(fd, 0, SEEK_SET);
    for (long n; (n = ::syscall(SYS_getdents64, fd, buf.data(), buf.size())) > 0;) {
      for (long off = 0; off < n;) {
        const auto* entry = reinterpret_cast<const struct dirent64*>(buf.data() + off);  // NOLINT: the kernel's record
        off += entry->d_reclen;
        if (IsDotOrDotDot(entry->d_name)) continue;
        any = true;
        RemoveTreeAt(fd, entry->d_name, depth + 1);
      }
    }
    if (!any) break;
  }
  ::close(fd);
  (void)::unlinkat(at, name, AT_REMOVEDIR);
}

void RemoveRegisteredPaths() {
  for (size_t i = kMaxPaths; i-- > 0;) {
    if (g_path_used[i].load()) RemoveTreeAt(AT_FDCWD, g_paths[i].data(), 0);
  }
}

void OnSignal(int sig) {
  RemoveRegisteredPaths();
  const int i = g_current.load();
  if (i >= 0) {
    const char* p = g_notes[static_cast<size_t>(i)].data();
    size_t left = g_lengths[static_cast<size_t>(i)];
    while (left > 0) {
      const ssize_t n = ::write(STDERR_FILENO, p, left);
      if (n <= 0) break;
      p += n;
      left -= static_cast<size_t>(n);
    }
  }
  (void)std::signal(sig, SIG_DFL);
  (void)std::raise(sig);
}

sigset_t Held() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kSignals) sigaddset(&set, s);
  return set;
}

}  // namespace

void InstallInterruptNote() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  for (int s : kSignals) sigaction(s, &sa, nullptr);
}

void SetInterruptNote(const std::string& line) {
  const int next = g_current.load() == 0 ? 1 : 0;
  auto& buf = g_notes[static_cast<size_t>(next)];
  const size_t n = std::min(line.size(), buf.size());
  std::copy_n(line.begin(), n, buf.begin());
  g_lengths[static_cast<size_t>(next)] = n;
  g_current.store(line.empty() ? -1 : next);
}

void RemoveOnInterrupt(const std::string& path) {
  if (path.empty() || path.size() >= g_paths[0].size()) return;
  const HoldInterrupts hold;
  for (size_t i = 0; i < kMaxPaths; ++i) {
    if (g_path_used[i].load()) continue;
    std::copy(path.begin(), path.end(), g_paths[i].begin());
    g_paths[i][path.size()] = '\0';
    g_path_used[i].store(true);
    return;
  }
}

void ForgetOnInterrupt(const std::string& path) {
  const HoldInterrupts hold;
  for (size_t i = 0; i < kMaxPaths; ++i) {
    if (g_path_used[i].load() && path == g_paths[i].data()) g_path_used[i].store(false);
  }
}

HoldInterrupts::HoldInterrupts() : before_() {
  const sigset_t set = Held();
  pthread_sigmask(SIG_BLOCK, &set, &before_);
}

HoldInterrupts::~HoldInterrupts() { pthread_sigmask(SIG_SETMASK, &before_, nullptr); }

}  // namespace kscope
