#include "capture/ncu_tool.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "capture/commands.h"
#include "capture/process.h"

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
