#include "util/interrupt_note.h"

#include <pthread.h>
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

void OnSignal(int sig) {
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

HoldInterrupts::HoldInterrupts() : before_() {
  const sigset_t set = Held();
  pthread_sigmask(SIG_BLOCK, &set, &before_);
}

HoldInterrupts::~HoldInterrupts() { pthread_sigmask(SIG_SETMASK, &before_, nullptr); }

}  // namespace kscope
