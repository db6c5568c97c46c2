// Wrapper mode for multi-rank jobs: every rank runs `kscope profile profile.rank=N -- ...`;
// rank N is profiled, the others run the workload as it is.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kscope::capture {

struct RankInfo {
  int64_t rank = 0;
  std::string source;  // the variable it came from, e.g. "OMPI_COMM_WORLD_RANK"
};

// The variables MPI launchers and torchrun set for a process's rank (Open MPI, MPICH / Intel
// MPI (PMI), PMIx, MVAPICH2, Slurm, torchrun), in the order they are looked at.
const std::vector<std::string>& RankVariables();

// The process's rank from those variables, first found wins.
std::optional<RankInfo> RankFromEnvironment(const std::map<std::string, std::string>& env);
std::map<std::string, std::string> CurrentEnvironment();

// The job a process belongs to, which the run directories its ranks write on several nodes
// share: `given` (kscope profile --job), else SLURM_JOB_ID, else TORCHELASTIC_RUN_ID (torchrun's
// --rdzv-id; its default, "none", names no job). `kscope import DIR...` groups by it.
struct JobInfo {
  std::string id;
  std::string source;  // "--job", "SLURM_JOB_ID" or "TORCHELASTIC_RUN_ID"
};
std::optional<JobInfo> JobFromEnvironment(const std::map<std::string, std::string>& env, const std::string& given);

// The job's number of ranks from the launcher's variables (WORLD_SIZE, OMPI_COMM_WORLD_SIZE,
// PMI_SIZE, SLURM_NTASKS), if set.
std::optional<int64_t> WorldSizeFromEnvironment(const std::map<std::string, std::string>& env);

// The manifest's "job" object: {id, from, rank, rank_from, world_size} as far as they are known
// (the rank: the process's own, from its launcher); null when none is.
nlohmann::json JobJson(const std::map<std::string, std::string>& env, const std::string& given);

// The wrapper mode's passes. Every rank runs the workload once per pass, so the job's own
// rendezvous holds in each: pass 1 with the profiled rank under nsys (none with --discovery),
// then one pass per ncu run of the profiled rank (profile.rank_ncu_runs). The count comes from
// the configuration alone, which every rank reads alike; the profiled rank fits its plan into it.
int64_t WrapperPasses(int64_t rank_ncu_runs, bool discovery_given);

// What one pass (counted from 0) sets in the workload's environment, on every rank alike:
// KSCOPE_PASS; and from the second pass on, a rendezvous of its own. torchrun's workers meet in
// the agent's store (TORCHELASTIC_USE_AGENT_STORE=True), which outlives a pass and keeps the
// keys the last pass wrote (the NCCL unique id among them): there rank 0's workload hosts a
// fresh store instead, on MASTER_PORT + pass, as a job's own rank 0 does without torchrun.
std::map<std::string, std::string> PassEnvironment(const std::map<std::string, std::string>& env, int64_t pass);

// The passes as lines, for the dry run and the log: "pass 1 of 2: rank 0 under nsys, ...".
std::string DescribePasses(int64_t passes, int64_t profiled_rank, bool discovery_given);

}  // namespace kscope::capture
