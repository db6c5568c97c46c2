// Nsight Compute behind an interface: the real ncu binary, or (in tests, with no GPU and no
// ncu installed) recorded pages of real reports fed through the same code.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/tools.h"
#include "util/status.h"

namespace kscope::capture {

// ncu's command that writes page `page` of `report` as CSV on stdout.
std::vector<std::string> NcuExportArgv(const std::string& ncu, const std::string& report, const std::string& page);

class NcuTool {
 public:
  virtual ~NcuTool() = default;
  // Writes page `page` ("raw" or "details") of `report` as CSV to `out_path`.
  virtual Status ExportPage(const std::string& report, std::string_view page, const std::string& out_path) = 0;
};

class NcuBinary : public NcuTool {
 public:
  explicit NcuBinary(std::string path) : path_(std::move(path)) {}
  Status ExportPage(const std::string& report, std::string_view page, const std::string& out_path) override;

 private:
  std::string path_;
};

}  // namespace kscope::capture
