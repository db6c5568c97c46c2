#include "capture/ncu_communicator.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace kscope::capture {

namespace fs = std::filesystem;

bool HelpHasShmemCommunicator(std::string_view help) {
  return help.find("--communicator-shmem-num-peers") != std::string_view::npos;
}

namespace {

// `ncu --help` as text, or "" when it cannot be run (then nothing changes).
std::string NcuHelp(ProcessRunner& runner, const std::string& ncu, const std::string& logs_dir) {
  ProcessSpec spec;
  spec.argv = {ncu, "--help"};
  spec.stdout_path = (fs::path(logs_dir) / "ncu-help.txt").string();
  spec.log_path = (fs::path(logs_dir) / "ncu_help.log").string();
  spec.timeout_s = 60;
  auto run = runner.Run(spec);
  if (!run.ok() || !run->ok()) return "";
  std::ifstream in(spec.stdout_path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

void ChooseCommunicationReplay(ProcessRunner& runner, const std::string& ncu, const std::string& logs_dir,
                               Selection& sel) {
  if (sel.replay != "application" || !sel.communication || sel.ranks < 2) return;
  if (!HelpHasShmemCommunicator(NcuHelp(runner, ncu, logs_dir))) {
    sel.notes.emplace_back(
        "this ncu has no multi-process communicator (--communicator shmem, ncu --help): the communication kernels "
        "go through application replay");
    return;
  }
  sel.replay = "kernel";
  sel.communicator_peers = sel.ranks;
  sel.notes.push_back(fmt::format(
      "communication kernels selected: ncu keeps the {} ranks in step while it replays them (--communicator shmem "
      "--communicator-shmem-num-peers {}, kernel replay) instead of rerunning the whole job per pass",
      sel.ranks, sel.ranks));
}

}  // namespace kscope::capture
