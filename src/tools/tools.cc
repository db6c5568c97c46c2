#include "tools/tools.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>

namespace kscope::capture {

namespace fs = std::filesystem;

namespace {

bool Executable(const std::string& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

// Subfolders of `dir`, newest version first ("2025.3.1" before "2024.6.2").
std::vector<fs::path> VersionDirs(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory(ec)) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) {
    return CompareVersions(a.filename().string(), b.filename().string()) > 0;
  });
  return out;
}

// `tool` in each folder of PATH, in order.
std::vector<std::string> OnPath(const std::string& tool) {
  std::vector<std::string> c;
  const std::string path = Env("PATH");
  for (size_t pos = 0; pos <= path.size();) {
    const size_t colon = std::min(path.find(':', pos), path.size());
    if (colon > pos) c.push_back((fs::path(path.substr(pos, colon - pos)) / tool).string());
    pos = colon + 1;
  }
  return c;
}

std::vector<std::string> Candidates(const std::string& tool, const char* env_var,
                                    const std::vector<std::string>& opt_subpaths) {
  std::vector<std::string> c;
  if (const std::string e = Env(env_var); !e.empty()) c.push_back(e);
  const auto path = OnPath(tool);
  c.insert(c.end(), path.begin(), path.end());
  if (const std::string cuda = Env("CUDA_HOME"); !cuda.empty()) c.push_back((fs::path(cuda) / "bin" / tool).string());
  for (const std::string& sub : opt_subpaths) {
    // sub is "<root>|<path inside a version folder>"
    const auto bar = sub.find('|');
    for (const auto& d : VersionDirs(sub.substr(0, bar))) c.push_back((d / sub.substr(bar + 1)).string());
  }
  c.push_back("/usr/local/cuda/bin/" + tool);
  return c;
}

std::optional<std::string> First(const std::vector<std::string>& candidates) {
  for (const auto& p : candidates) {
    if (Executable(p)) return p;
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> NsysCandidates() {
  return Candidates("nsys", "KSCOPE_NSYS",
                    {"/opt/nvidia/nsight-systems|bin/nsys", "/opt/nvidia/nsight-compute|host/target-linux-x64/nsys"});
}
std::vector<std::string> NcuCandidates() { return Candidates("ncu", "KSCOPE_NCU", {"/opt/nvidia/nsight-compute|ncu"}); }
std::optional<std::string> FindNsys() { return First(NsysCandidates()); }
std::optional<std::string> FindNcu() { return First(NcuCandidates()); }
std::optional<std::string> FindOnPath(const std::string& name) { return First(OnPath(name)); }

std::optional<std::string> ParseToolVersion(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const bool word_start = i == 0 || text[i - 1] == ' ';
    if (!word_start || !std::isdigit(static_cast<unsigned char>(text[i]))) continue;
    size_t j = i;
    int dots = 0;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) {
      dots += text[j] == '.' ? 1 : 0;
      ++j;
    }
    // a year-based version: 4-digit year and at least one dot
    if (dots >= 1 && j - i >= 6 && text.substr(i, 4).find('.') == std::string_view::npos) {
      std::string_view v = text.substr(i, j - i);
      while (!v.empty() && v.back() == '.') v.remove_suffix(1);
      return std::string(v);
    }
    i = j;
  }
  return std::nullopt;
}

int CompareVersions(std::string_view a, std::string_view b) {
  auto next = [](std::string_view& s) -> long {
    long v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc()) v = 0;
    const size_t used = static_cast<size_t>(p - s.data());
    s.remove_prefix(std::min(s.size(), used));
    if (!s.empty() && s.front() == '.')
      s.remove_prefix(1);
    else if (!s.empty() && used == 0)
      s = {};  // not a number: stop comparing here
    return v;
  };
  while (!a.empty() || !b.empty()) {
    const long x = next(a), y = next(b);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

}  // namespace kscope::capture
