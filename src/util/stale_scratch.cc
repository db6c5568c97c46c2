#include "util/stale_scratch.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <ctime>
#include <optional>

namespace kscope {

namespace fs = std::filesystem;

namespace {

// When this process started, as the file system's clock: entries modified later may be a
// running kscope's whose process id this one cannot see (another pid namespace).
const struct timespec kStarted = [] {
  struct timespec t {};
  clock_gettime(CLOCK_REALTIME, &t);
  return t;
}();

bool Before(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

// The process id a scratch name carries after `prefix`, when it does.
std::optional<pid_t> PidIn(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return std::nullopt;
  name.remove_prefix(prefix.size());
  pid_t pid = 0;
  const auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (err != std::errc() || pid <= 0 || end == name.data() + name.size() || *end != '-') return std::nullopt;
  return pid;
}

}  // namespace

std::string ScratchTag() { return std::to_string(::getpid()) + "-"; }

int RemoveStaleScratch(const fs::path& folder, std::string_view prefix) {
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const auto pid = PidIn(name, prefix);
    if (!pid || *pid == ::getpid()) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || st.st_uid != ::geteuid()) continue;
    if (S_ISLNK(st.st_mode) || !Before(st.st_mtim, kStarted)) continue;
    if (::kill(*pid, 0) == 0 || errno != ESRCH) continue;  // its process still runs (or is not ours to ask)
    std::error_code rm;
    fs::remove_all(it->path(), rm);
    if (!rm) ++removed;
  }
  return removed;
}

}  // namespace kscope
