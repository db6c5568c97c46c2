// The ranks of a run: each process that launched GPU kernels is one (a job under torchrun,
// mpirun or srun that one nsys recorded has one process per rank), with its GPU. Derived once
// at import, from the kernel stream, into run_rank; the capture's selection (profile.ncu_rank)
// and the report's per-rank figures count ranks the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"
#include "util/status.h"

namespace kscope::analysis {

// A rank the environment nsys recorded names (the launched process's RANK,
// OMPI_COMM_WORLD_RANK, SLURM_PROCID, ...: what a launcher set for the one rank it profiled).
struct EnvRank {
  int64_t rank = 0;
  std::string variable;
};

struct RunRank {
  int64_t rank = 0;
  int64_t global_pid = 0;  // nsys's global process id
  int64_t pid = 0;         // the process ID
  int64_t device = -1;     // the GPU most of its kernels ran on
  int64_t kernels = 0;     // its kernel launches
  std::string rank_from;   // "process order", or the environment variable it came from
};

inline constexpr const char* kProcessOrder = "process order";

// nsys's global process id holds the host, then the process ID (24 bits), then 24 bits.
inline int64_t PidOf(int64_t global_pid) { return (global_pid >> 24) & 0xFFFFFF; }

// The processes of the kernels' `global_pid`s (`device`: each kernel's GPU), in process order:
// rank i is the i-th, unless the run has one process and `env` names its rank.
std::vector<RunRank> FindRanks(const std::vector<int64_t>& global_pid, const std::vector<int64_t>& device,
                               const std::optional<EnvRank>& env = std::nullopt);

// Replaces the run's run_rank rows with FindRanks of its kernel stream. Inside the caller's
// transaction (the import's derivation step, or a store upgrade).
Status MaterializeRanks(store::Store& store, int64_t run_id, const std::optional<EnvRank>& env);

// The run's ranks, by rank; empty for a run without nsys kernels.
Result<std::vector<RunRank>> ReadRanks(store::Store& store, int64_t run_id);

}  // namespace kscope::analysis
