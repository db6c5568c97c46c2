# Experiment 3: run one rank of a job under ncu and leave the others out of ncu entirely.
# The launcher runs without ncu; the rank whose RANK is KSCOPE_NCU_GATE_RANK executes itself
# again as ncu's child (the same PID for the launcher, which waits on it).
import os
import sys

_args = os.environ.get("KSCOPE_NCU_GATE_ARGS")
if _args and os.environ.get("RANK") == os.environ.get("KSCOPE_NCU_GATE_RANK", "0"):
    del os.environ["KSCOPE_NCU_GATE_ARGS"]
    _ncu = os.environ["KSCOPE_NCU"]
    _a = [a for a in open(_args).read().split("\n") if a]
    os.execv(_ncu, [_ncu] + _a + ["-o", os.environ["KSCOPE_NCU_GATE_OUT"], "-f", sys.executable] + sys.orig_argv[1:])
