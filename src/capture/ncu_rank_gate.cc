#include "capture/ncu_rank_gate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include "tools/rank.h"
#include "util/atomic_file.h"

namespace kscope::capture {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kModule =
    R"py(# Written by kscope profile (profile.ncu_rank_gate). In a job of several ranks, the rank that
# ncu profiles executes itself again under ncu as it starts, so that ncu is injected into that
# rank alone; every other process goes on unchanged. Then the next sitecustomize on the path, if
# any, runs as it would have.
import os
import sys


def _kscope_rank():
    inherited = set(os.environ.get("KSCOPE_NCU_GATE_INHERITED", "").split(","))
    for name in os.environ.get("KSCOPE_NCU_GATE_VARIABLES", "").split(","):
        if name and name not in inherited and name in os.environ:
            return os.environ[name]
    return None


def _kscope_gate():
    args = os.environ.get("KSCOPE_NCU_GATE_ARGS")
    if not args or str(os.getppid()) == os.environ.get("KSCOPE_NCU_GATE_PARENT"):
        return
    if _kscope_rank() != os.environ.get("KSCOPE_NCU_GATE_RANK"):
        return
    for name in [n for n in os.environ if n.startswith("KSCOPE_NCU_GATE_")]:
        del os.environ[name]
    with open(args, "rb") as f:
        ncu = [os.fsdecode(a) for a in f.read().split(b"\0") if a]
    argv = list(getattr(sys, "orig_argv", []))
    if not argv:
        with open("/proc/self/cmdline", "rb") as f:
            argv = [os.fsdecode(a) for a in f.read().split(b"\0")[:-1]]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execvp(ncu[0], ncu + [sys.executable or argv[0]] + argv[1:])


def _kscope_next_sitecustomize():
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)


_kscope_gate()
_kscope_next_sitecustomize()
)py";

}  // namespace

bool UsesRankGate(const Selection& sel, std::string_view replay, std::string_view option) {
  return option == "on" && sel.ranks > 1 && replay == "kernel" && sel.communicator_peers == 0;
}

std::string_view RankGateModule() { return kModule; }

Result<std::map<std::string, std::string>> WriteRankGate(const fs::path& dir, const std::string& name,
                                                         const std::vector<std::string>& ncu_argv, int64_t rank,
                                                         const std::map<std::string, std::string>& kscope_env,
                                                         const std::string& pythonpath) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{dir.string(), "cannot be created: " + ec.message(), "check the run directory's permissions"};
  KSCOPE_RETURN_IF_ERROR(WriteFileAtomically(dir / "sitecustomize.py", kModule));
  std::string args;
  for (const auto& a : ncu_argv) args += a + '\0';
  const fs::path args_path = dir / (name + ".ncu-argv");
  KSCOPE_RETURN_IF_ERROR(WriteFileAtomically(args_path, args));
  std::vector<std::string> inherited;
  for (const auto& v : RankVariables()) {
    if (kscope_env.contains(v)) inherited.push_back(v);
  }
  const std::string gate_dir = fs::absolute(dir).string();
  return std::map<std::string, std::string>{
      {"PYTHONPATH", pythonpath.empty() ? gate_dir : gate_dir + ":" + pythonpath},
      {"KSCOPE_NCU_GATE_ARGS", fs::absolute(args_path).string()},
      {"KSCOPE_NCU_GATE_RANK", std::to_string(rank)},
      {"KSCOPE_NCU_GATE_VARIABLES", fmt::format("{}", fmt::join(RankVariables(), ","))},
      {"KSCOPE_NCU_GATE_INHERITED", fmt::format("{}", fmt::join(inherited, ","))},
      {"KSCOPE_NCU_GATE_PARENT", std::to_string(getpid())},
  };
}

}  // namespace kscope::capture
