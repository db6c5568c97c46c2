// The nsys exports of tests/data/nsys/ and what `nsys stats` printed for each of their reports
// (tests/data/nsys/README.md): the files unpacked once per test process, and each report's
// expected CSV or the SKIPPED line nsys printed instead.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "recorded_runner.h"
#include "test_support.h"

namespace kscope::testing {

// Every export with nsys's outputs; the last four were recorded for issue 26 (no NVTX, CUDA
// tracing only, kernels without memory operations, NVTX without CUDA).
inline const std::vector<std::string>& NsysExports() {
  static const std::vector<std::string> kExports{"llama",     "tiny_cuda",    "no_nvtx",
                                                 "cuda_only", "kernels_only", "nvtx_only"};
  return kExports;
}

// An export as a file: the .sqlite itself, or its .sqlite.zst unpacked into a temporary folder.
inline std::string NsysExportFile(const std::string& name) {
  static std::map<std::string, std::string> unpacked;
  if (std::filesystem::exists(NsysData(name + ".sqlite"))) return NsysData(name + ".sqlite");
  if (auto it = unpacked.find(name); it != unpacked.end()) return it->second;
  const auto dir = std::filesystem::temp_directory_path() / ("kscope_nsys_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / (name + ".sqlite")).string();
  std::ofstream(path, std::ios::binary) << Unzstd(NsysData(name + ".sqlite.zst"));
  unpacked[name] = path;
  return path;
}

// What nsys printed for one report of one export: the CSV, or (skipped) its SKIPPED line.
struct NsysExpected {
  bool skipped = false;
  std::string text;
};

inline NsysExpected NsysExpectedOutput(const std::string& name, const std::string& report) {
  const std::string base = NsysData("expected/" + name + "/" + report);
  if (std::filesystem::exists(base + ".skipped")) return {true, ReadFile(base + ".skipped")};
  if (std::filesystem::exists(base + ".csv.zst")) return {false, Unzstd(base + ".csv.zst")};
  return {false, ReadFile(base + ".csv")};
}

// nsys's SKIPPED line names the file as nsys was given it ("no_nvtx.sqlite"); kscope names
// the file it reads. The line with `file` in the place of nsys's name.
inline std::string SkippedLineFor(const std::string& nsys_line, const std::string& name, const std::string& file) {
  const std::string nsys_file = name + ".sqlite";
  const std::string prefix = "SKIPPED: " + nsys_file + " ";
  if (nsys_line.rfind(prefix, 0) != 0) return "unexpected nsys line: " + nsys_line;
  return "SKIPPED: " + file + nsys_line.substr(prefix.size() - 1);
}

}  // namespace kscope::testing
