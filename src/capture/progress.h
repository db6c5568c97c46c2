// Progress on screen while profilers run: kernel k of N, replay passes, elapsed time and an
// estimate of what remains. On a terminal one line is redrawn; in a log, a line every 10%.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace kscope::capture {

class Progress {
 public:
  Progress(std::ostream& out, bool tty, std::string label) : out_(out), tty_(tty), label_(std::move(label)) {}
  void Start(const std::string& what);
  // `done` of `total` launches profiled, the last one in `passes` replay passes.
  void Kernel(int64_t done, int64_t total, int passes, const std::string& where);
  void Done(const std::string& what);

  // "0:42", "1:05:09"
  static std::string Clock(double seconds);

 private:
  void Line(const std::string& text, bool final);
  std::ostream& out_;
  bool tty_;
  std::string label_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  int64_t last_printed_ = 0;
  bool open_line_ = false;
};

}  // namespace kscope::capture
