// Wrapper mode for multi-rank jobs: every rank runs `kscope profile profile.rank=N -- ...`;
// rank N is profiled, the others run the workload as it is.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace kscope::capture {

struct RankInfo {
  int64_t rank = 0;
  std::string source;  // the variable it came from, e.g. "OMPI_COMM_WORLD_RANK"
};

// The process's rank from the variables MPI launchers and torchrun set (Open MPI, MPICH /
// Intel MPI (PMI), PMIx, MVAPICH2, Slurm, torchrun), first found wins.
std::optional<RankInfo> RankFromEnvironment(const std::map<std::string, std::string>& env);
std::map<std::string, std::string> CurrentEnvironment();

}  // namespace kscope::capture
