# A large Kineto trace for kscope's parse benchmark: a real trace recorded on an H100
# (tests/data/kineto/decoder_train.json.gz by default) with its events repeated K times. Copy
# c is shifted by c x the trace's span in time, and its correlation ids and External ids by
# c x (largest id + 1), so every GPU operation still links to its own launch; metadata events
# are written once. The header (deviceProperties, versions) is the original's. Written as
# torch.profiler writes (one event per line), streamed, so the copy never sits in memory.
#   python3 bench/make_scaled_trace.py OUT.json --megabytes 250 [--source TRACE.json.gz]
import argparse
import copy
import gzip
import json
import os

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--megabytes", type=float, default=250)
p.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", "tests", "data", "kineto",
                                                 "decoder_train.json.gz"))
a = p.parse_args()
trace = json.load(gzip.open(a.source))
events = trace.pop("traceEvents")
meta = [e for e in events if e.get("ph") == "M"]
body = [e for e in events if e.get("ph") != "M"]
times = [e["ts"] for e in body if isinstance(e.get("ts"), (int, float))]
ends = [e["ts"] + e.get("dur", 0) for e in body if isinstance(e.get("ts"), (int, float))]
span = round(max(ends) - min(times) + 1000.0, 3)
max_id = max([e.get("args", {}).get("correlation", 0) for e in body] +
             [e.get("args", {}).get("External id", 0) for e in body] + [e.get("id", 0) for e in body
                                                                       if isinstance(e.get("id"), int)])
lines = [json.dumps(e) for e in body]
per_copy = sum(len(s) + 2 for s in lines)
copies = max(1, int(a.megabytes * 1e6 / per_copy))


def shifted(e, c):
    e = copy.deepcopy(e)
    if isinstance(e.get("ts"), (int, float)):
        e["ts"] = round(e["ts"] + c * span, 3)
    args = e.get("args", {})
    for k in ("correlation", "External id"):
        if isinstance(args.get(k), int) and args[k] > 0:
            args[k] += c * (max_id + 1)
    if isinstance(e.get("id"), int):
        e["id"] += c * (max_id + 1)
    return e


with open(a.out, "w") as f:
    f.write("{\n")
    for k, v in trace.items():
        f.write(f"  {json.dumps(k)}: {json.dumps(v)},\n")
    f.write('  "traceEvents": [\n')
    first = True
    for e in meta:
        f.write(("" if first else ",\n") + "  " + json.dumps(e))
        first = False
    for c in range(copies):
        for e in body:
            f.write(",\n  " + json.dumps(shifted(e, c) if c else e))
    f.write("\n  ]\n}\n")
print(f"{copies} copies of {len(body)} events, {os.path.getsize(a.out) / 1e6:.1f} MB")
