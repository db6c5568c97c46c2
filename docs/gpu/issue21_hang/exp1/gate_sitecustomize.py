# Experiment: keep ncu's injection only in the rank named by KSCOPE_EXP_KEEP_RANK.
import os
_keep = os.environ.get("KSCOPE_EXP_KEEP_RANK")
_rank = os.environ.get("RANK")
_dump = os.environ.get("KSCOPE_EXP_ENV_DUMP")
if _dump and _rank is not None:
    with open(f"{_dump}/env_rank{_rank}_pid{os.getpid()}.txt", "w") as f:
        for k in sorted(os.environ):
            if any(s in k for s in ("NV", "CUDA", "INJECT", "PRELOAD", "NSIGHT", "TMP")):
                f.write(f"{k}={os.environ[k]}\n")
if _keep is not None and _rank is not None and _rank != _keep:
    for k in ("CUDA_INJECTION64_PATH",):
        os.environ.pop(k, None)
