// kscope doctor: can this machine profile? (capture/doctor.h)
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "capture/doctor.h"
#include "cli/commands.h"
#include "tools/tools.h"
#include "util/temp_dir.h"

namespace kscope::cli {

void RegisterDoctor(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("doctor", "Check that this machine can profile: nsys, ncu, GPU, counters");
  cmd->callback([&exit_code] {
    capture::DoctorInputs in;
    in.nsys = capture::FindNsys();
    in.ncu = capture::FindNcu();
    in.nsys_looked = capture::NsysCandidates();
    in.ncu_looked = capture::NcuCandidates();
    in.root = geteuid() == 0;
    auto work = TempDir::Make("kscope-doctor-");
    if (!work.ok()) {
      exit_code = Fail(work.error());
      return;
    }
    in.work_dir = (std::filesystem::path(work->path()) / "work").string();
    capture::SystemRunner runner;
    const auto checks = capture::RunDoctor(runner, in);
    std::cout << capture::FormatChecks(checks);
    exit_code = 0;
    for (const auto& c : checks) {
      if (c.level == capture::CheckLevel::kFail) exit_code = 1;
    }
  });
}

}  // namespace kscope::cli
