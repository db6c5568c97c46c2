#include "tools/ncu_tool.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "tools/process.h"

namespace kscope::capture {

namespace fs = std::filesystem;

namespace {

std::string LastLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace

std::vector<std::string> NcuExportArgv(const std::string& ncu, const std::string& report, const std::string& page) {
  return {ncu, "--import", report, "--page", page, "--csv"};
}

Status NcuBinary::ExportPage(const std::string& report, std::string_view page, const std::string& out_path) {
  const std::string err_path = out_path + ".stderr";
  auto run = RunProcess(NcuExportArgv(path_, report, std::string(page)), out_path, err_path);
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
