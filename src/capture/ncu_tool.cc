#include "capture/ncu_tool.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "capture/process.h"

namespace kscope::capture {

namespace fs = std::filesystem;

namespace {

bool Executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

std::string LastLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace

std::optional<std::string> FindNcu() {
  if (const char* env = std::getenv("KSCOPE_NCU"); env != nullptr && *env != '\0') return std::string(env);
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (!dir.empty() && Executable(fs::path(dir) / "ncu")) return (fs::path(dir) / "ncu").string();
    }
  }
  if (const char* cuda = std::getenv("CUDA_HOME"); cuda != nullptr && Executable(fs::path(cuda) / "bin" / "ncu")) {
    return (fs::path(cuda) / "bin" / "ncu").string();
  }
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/opt/nvidia/nsight-compute", ec)) {
    if (Executable(e.path() / "ncu")) found.push_back(e.path() / "ncu");
  }
  if (!found.empty()) return std::max_element(found.begin(), found.end())->string();
  if (Executable("/usr/local/cuda/bin/ncu")) return std::string("/usr/local/cuda/bin/ncu");
  return std::nullopt;
}

Status NcuBinary::ExportPage(const std::string& report, std::string_view page, const std::string& out_path) {
  const std::string err_path = out_path + ".stderr";
  auto run = RunProcess({path_, "--import", report, "--page", std::string(page), "--csv"}, out_path, err_path);
  if (!run.ok()) return run.error();
  if (run->exit_code != 0) {
    return Error{report,
                 "ncu could not export its " + std::string(page) + " page (" + path_ + " exit " +
                     std::to_string(run->exit_code) + "): " + LastLine(err_path),
                 "check that this ncu can open the report (a newer ncu may be needed)"};
  }
  return Status::Ok();
}

}  // namespace kscope::capture
