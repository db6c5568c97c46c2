#include "capture/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kscope::capture {

std::string Progress::Clock(double seconds) {
  const auto s = static_cast<int64_t>(std::lround(std::max(0.0, seconds)));
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

void Progress::Line(const std::string& text, bool final) {
  if (tty_) {
    out_ << "\r\033[K" << text;
    open_line_ = !final;
    if (final) out_ << "\n";
  } else {
    out_ << text << "\n";
  }
  out_.flush();
}

void Progress::Start(const std::string& what) {
  t0_ = std::chrono::steady_clock::now();
  Line(label_ + ": " + what, !tty_);
}

void Progress::Kernel(int64_t done, int64_t total, int passes, const std::string& where) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  const int64_t step = std::max<int64_t>(1, total / 10);
  if (!tty_ && done != total && done - last_printed_ < step) return;
  last_printed_ = done;
  std::string text = fmt::format("{}: kernel {} of {}", label_, done, total);
  if (passes > 0) text += fmt::format(" ({} passes)", passes);
  if (!where.empty()) text += ", " + where;
  text += ", " + Clock(elapsed) + " elapsed";
  if (done > 0 && done < total) {
    text += ", ~" + Clock(elapsed / static_cast<double>(done) * static_cast<double>(total - done)) + " left";
  }
  Line(text, false);
}

void Progress::Done(const std::string& what) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  Line(fmt::format("{}: {} ({} elapsed)", label_, what, Clock(elapsed)), true);
}

}  // namespace kscope::capture
