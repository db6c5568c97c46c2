# Experiment 2: keep a rank other than KSCOPE_EXP_KEEP_RANK away from ncu.
#   KSCOPE_EXP_GATE=tmp:  that rank gets a TMPDIR of its own, so that ncu's per-device lock files
#                         (TMPDIR/nvidia/nsight_compute/lock.<UUID>) are not shared with the
#                         profiled rank;
#   KSCOPE_EXP_GATE=exec: that rank executes itself again without ncu's preloaded injection
#                         libraries and process-tracking variables (not injected at all).
import os
import sys

_keep = os.environ.get("KSCOPE_EXP_KEEP_RANK")
_rank = os.environ.get("RANK")
_gate = os.environ.get("KSCOPE_EXP_GATE", "")
if _keep is not None and _rank is not None and _rank != _keep:
    if _gate == "tmp":
        _d = os.path.join(os.environ.get("KSCOPE_EXP_TMP", "/tmp"), f"rank{_rank}")
        os.makedirs(_d, exist_ok=True)
        for _k in ("TMPDIR", "TMP", "TEMP", "TEMPDIR"):
            os.environ[_k] = _d
    elif _gate == "exec" and "KSCOPE_EXP_REEXEC" not in os.environ:
        _env = {k: v for k, v in os.environ.items()
                if not (k.startswith("NVIDIA-PROCESS-TRACKING") or k.startswith("NV_NSIGHT")
                        or k.startswith("NVIDIA_PROCESS_INJECTION") or k in ("NV_CUDA_START_SUSPENDED",
                                                                              "NV_TPS_LAUNCH_TOKEN",
                                                                              "NV_COMPUTE_PROFILER_PERFWORKS_DIR"))}
        _pre = [p for p in _env.get("LD_PRELOAD", "").replace(" ", ":").split(":") if p and "nsight" not in p]
        _env["LD_PRELOAD"] = ":".join(_pre)
        _env["KSCOPE_EXP_REEXEC"] = os.environ.get("LD_PRELOAD", "(none)")
        os.execve(sys.executable, sys.orig_argv, _env)
    if _gate == "exec" and os.environ.get("KSCOPE_EXP_ENV_DUMP"):
        with open(os.path.join(os.environ["KSCOPE_EXP_ENV_DUMP"], f"maps_rank{_rank}.txt"), "w") as f:
            f.write("LD_PRELOAD before: " + os.environ.get("KSCOPE_EXP_REEXEC", "") + "\n")
            f.write("LD_PRELOAD now: " + os.environ.get("LD_PRELOAD", "") + "\n")
            f.write("".join(l for l in open("/proc/self/maps") if "nsight" in l))
