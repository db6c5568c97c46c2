#include "tools/tool_output.h"

#include <charconv>

namespace kscope::capture {

namespace {
std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}
}  // namespace

namespace {
constexpr std::string_view kProfiling = "==PROF== Profiling \"";
// The kernel a Profiling line names ("" when the line has none).
std::string ProfiledName(std::string_view line) {
  const auto at = line.find(kProfiling);
  if (at == std::string_view::npos) return "";
  const auto begin = at + kProfiling.size();
  const auto close = line.find('"', begin);
  return std::string(line.substr(begin, close == std::string_view::npos ? std::string_view::npos : close - begin));
}
bool EndsWithPasses(std::string_view line) { return line.ends_with(" passes") || line.ends_with(" pass"); }
}  // namespace

bool NcuOutput::Busy(std::string_view partial) {
  if (partial.find(kProfiling) != std::string_view::npos && !EndsWithPasses(Trim(partial))) {
    stuck_kernel = ProfiledName(partial);
    return true;
  }
  if (in_launch_) stuck_kernel = last_kernel;
  return in_launch_;
}

bool NcuOutput::Feed(std::string_view raw) {
  const std::string_view line = Trim(raw);
  // A launch's progress line cut by the workload's own output (several processes share the
  // pipe): the launch is under way until a line ends with its passes.
  if (line.find(kProfiling) != std::string_view::npos && !line.starts_with(kProfiling)) {
    last_kernel = ProfiledName(line);
    in_launch_ = !EndsWithPasses(line);
    if (!in_launch_) ++profiled;
    return !in_launch_;
  }
  if (in_launch_ && !line.starts_with("==PROF== ") && EndsWithPasses(line)) {
    in_launch_ = false;
    ++profiled;
    return true;
  }
  constexpr std::string_view kProf = "==PROF== ", kWarn = "==WARNING== ", kErr = "==ERROR== ";
  if (in_available_) {
    // "1. _ZN2at6native13reduce_kernel..." until a line that is not a numbered entry
    const auto dot = line.find(". ");
    int index = 0;
    if (dot != std::string_view::npos &&
        std::from_chars(line.data(), line.data() + dot, index).ptr == line.data() + dot) {
      available_kernels.emplace_back(line.substr(dot + 2));
      return false;
    }
    in_available_ = false;
  }
  if (line.starts_with(kProf)) {
    const std::string_view rest = line.substr(kProf.size());
    if (rest.starts_with("Profiling \"")) {
      // Profiling "NAME": 0%....50%....100% - 11 passes   or   Profiling "NAME" - 3: ... - 20 passes
      const auto close = rest.find('"', 11);
      if (close != std::string_view::npos) last_kernel = std::string(rest.substr(11, close - 11));
      const auto dash = rest.rfind(" - ");
      const auto passes = rest.rfind(" passes");
      if (dash != std::string_view::npos && passes != std::string_view::npos && passes > dash) {
        int p = 0;
        std::from_chars(rest.data() + dash + 3, rest.data() + passes, p);
        last_passes = p;
      }
      in_launch_ = !EndsWithPasses(line);
      if (in_launch_) return false;  // cut short by other output: its passes follow on a later line
      ++profiled;
      return true;
    }
    if (rest.starts_with("Report: ")) report = std::string(rest.substr(8));
    if (rest.starts_with("Connected to process")) ++connected;
    return false;
  }
  if (line.starts_with(kWarn)) {
    const std::string_view rest = line.substr(kWarn.size());
    if (rest.starts_with("No kernels were profiled")) no_kernels = true;
    if (rest.find("NVTX include expressions match only push/pop") != std::string_view::npos) {
      nvtx_push_pop_hint = true;
    }
    if (rest.starts_with("Backing up device memory")) memory_backup = true;
    return false;
  }
  if (line == "Available Kernels:") {
    in_available_ = true;
    return false;
  }
  if (line.starts_with(kErr)) {
    const std::string_view rest = line.substr(kErr.size());
    constexpr std::string_view kApp = "The application returned an error code (";
    if (rest.starts_with(kApp)) {
      int code = 0;
      std::from_chars(rest.data() + kApp.size(), rest.data() + rest.size(), code);
      app_exit_code = code;
    }
    errors.emplace_back(rest);
  }
  return false;
}

void NsysOutput::Feed(std::string_view raw) {
  const std::string_view line = Trim(raw);
  if (line.empty()) return;
  if (in_generated_) {
    if (line == "No reports were generated") {
      no_reports = true;
    } else if (line.starts_with("/") || line.find(".nsys-rep") != std::string_view::npos ||
               line.find(".qdstrm") != std::string_view::npos) {
      generated.emplace_back(line);
      return;
    }
    in_generated_ = false;
  }
  if (line == "Generated:") {
    in_generated_ = true;
    return;
  }
  if (line.starts_with("Importer error status") || line.starts_with("Unable to retrieve the importer version")) {
    importer_failed = true;
    errors.emplace_back(line);
    return;
  }
  if (line.find("rror") != std::string_view::npos && line.find('[') != 0) errors.emplace_back(line);
}

}  // namespace kscope::capture
