// Finding Nsight Systems (nsys) and Nsight Compute (ncu), and reading their versions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kscope::capture {

// Where each tool is looked for, in order: $KSCOPE_NSYS / $KSCOPE_NCU, PATH, $CUDA_HOME/bin,
// the newest /opt/nvidia/nsight-systems/*/bin (nsys) or /opt/nvidia/nsight-compute/* (ncu;
// its host/target-linux-x64 also holds an nsys), /usr/local/cuda/bin. Each entry is a
// candidate path, existing or not, so `kscope doctor` can say where it looked.
std::vector<std::string> NsysCandidates();
std::vector<std::string> NcuCandidates();
std::optional<std::string> FindNsys();
std::optional<std::string> FindNcu();
// The first executable `name` in a folder of PATH.
std::optional<std::string> FindOnPath(const std::string& name);

// "NVIDIA Nsight Systems version 2025.3.1.0" / "Version 2025.3.1.0 (build 36398880) ..."
// -> "2025.3.1.0"; nullopt when the text holds no version.
std::optional<std::string> ParseToolVersion(std::string_view text);

// Compares dotted versions numerically ("2025.10" > "2025.9"); missing parts count as 0.
int CompareVersions(std::string_view a, std::string_view b);

// The oldest versions kscope drives: nsys's SQLite export schema 3.x and the options kscope
// passes (--cuda-graph-trace, --kernel-name-base, --nvtx-include with '/') are in these.
inline constexpr std::string_view kMinNsysVersion = "2023.1";
inline constexpr std::string_view kMinNcuVersion = "2023.1";

}  // namespace kscope::capture
