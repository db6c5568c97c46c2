# Seeds for kineto_trace_fuzzer: slices of the real decoder_train trace (tests/data/kineto),
# its header and a few events of every category kscope reads (a CUDA call and the kernel it
# launched, copies, a set, CPU ops with shapes, record_function ranges, metadata), as plain
# JSON and gzip. Usage: python3 fuzz/make_kineto_corpus.py
import gzip
import json
import os

src = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "kineto", "decoder_train.json.gz")
out = os.path.join(os.path.dirname(__file__), "corpus", "kineto_trace_fuzzer")
os.makedirs(out, exist_ok=True)
trace = json.load(gzip.open(src))
events = trace["traceEvents"]
by_corr = {}
for e in events:
    corr = e.get("args", {}).get("correlation")
    if corr is not None:
        by_corr.setdefault(corr, []).append(e)
picked, seen = [], {}
for e in events:
    key = (e.get("ph"), e.get("cat"))
    if seen.get(key, 0) >= 3:
        continue
    seen[key] = seen.get(key, 0) + 1
    group = by_corr.get(e.get("args", {}).get("correlation"), [e])
    picked.extend(g for g in group if g not in picked)
head = {k: v for k, v in trace.items() if k != "traceEvents"}
text = json.dumps(dict(head, traceEvents=picked), indent=1)
with open(os.path.join(out, "decoder_train_slice.json"), "w") as f:
    f.write(text)
with gzip.open(os.path.join(out, "decoder_train_slice.json.gz"), "wt") as f:
    f.write(text)
print(len(picked), "events,", len(text), "bytes")

# The hostile case of shared correlation ids: the trace's metadata, then one cudaLaunchKernel
# and the kernel it launched, each 8,000 times (24 KiB gzipped; quadratic before kscope linked
# each group of operations to one call).
meta = [e for e in events if e.get("ph") == "M"]
call = next(e for e in events if e.get("cat") == "cuda_runtime" and e.get("name") == "cudaLaunchKernel")
kernel = next(e for e in events if e.get("cat") == "kernel" and e["args"].get("correlation") == call["args"]["correlation"])
shared = json.dumps(dict(head, traceEvents=meta + [call] * 8000 + [kernel] * 8000))
with gzip.open(os.path.join(out, "shared_correlation.json.gz"), "wt") as f:
    f.write(shared)
