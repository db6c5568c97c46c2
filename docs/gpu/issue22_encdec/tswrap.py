# Runs a zoo model with wall-clock marks: when Python starts, when each NVTX stage of the
# model opens, and when Python exits (to see what an ncu run's time is made of).
import atexit, os, runpy, sys, time

print(f"TS python_start {time.time():.3f}", flush=True)
atexit.register(lambda: print(f"TS python_end {time.time():.3f}", flush=True))
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
import zoo_common as z  # noqa: E402

_stage = z.stage


def stage(name, *a, **k):
    print(f"TS stage {name} {time.time():.3f}", flush=True)
    return _stage(name, *a, **k)


z.stage = stage
runpy.run_path(script, run_name="__main__")
