// Nsight Compute behind an interface: the real ncu binary, or (in tests, with no GPU and no
// ncu installed) recorded pages of real reports fed through the same code.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "util/status.h"

namespace kscope::capture {

class NcuTool {
 public:
  virtual ~NcuTool() = default;
  // Writes page `page` ("raw" or "details") of `report` as CSV to `out_path`.
  virtual Status ExportPage(const std::string& report, std::string_view page, const std::string& out_path) = 0;
};

// The ncu binary: $KSCOPE_NCU, else `ncu` on PATH, else $CUDA_HOME/bin/ncu, else the
// newest /opt/nvidia/nsight-compute/*/ncu, else /usr/local/cuda/bin/ncu.
std::optional<std::string> FindNcu();

class NcuBinary : public NcuTool {
 public:
  explicit NcuBinary(std::string path) : path_(std::move(path)) {}
  Status ExportPage(const std::string& report, std::string_view page, const std::string& out_path) override;

 private:
  std::string path_;
};

}  // namespace kscope::capture
