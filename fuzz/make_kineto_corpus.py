# Seeds for kineto_trace_fuzzer: slices of the real decoder_train trace (tests/data/kineto),
# its header and a few events of every category kscope reads (a CUDA call and the kernel it
# launched, copies, a set, CPU ops with shapes, record_function ranges, metadata), as plain
# JSON and gzip; the same slice with its header keys after its events ("displayTimeUnit": "ns"
# last, as Kineto of April 2024 wrote it) and in the shape PyTorch 1.8 wrote
# (tests/data/kineto/make_old_formats.py). Deterministic: gzip with mtime 0, numbers as the
# trace writes them. Usage: python3 fuzz/make_kineto_corpus.py
import gzip
import json
import os
import sys
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "data", "kineto"))
import make_old_formats  # noqa: E402  (the older shapes' rewrites, and dump() keeping the digits)

src = os.path.join(HERE, "..", "tests", "data", "kineto", "decoder_train.json.gz")
out = os.path.join(HERE, "corpus", "kineto_trace_fuzzer")
os.makedirs(out, exist_ok=True)
with gzip.open(src, "rt", encoding="utf-8") as f:
    trace = json.load(f, parse_float=Decimal)
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


def write(name, text):
    path = os.path.join(out, name)
    if name.endswith(".gz"):
        make_old_formats.write_gzip(path, text)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    print(name, len(text), "bytes,", os.path.getsize(path), "in the file")


text = make_old_formats.dump(dict(head, traceEvents=picked))
write("decoder_train_slice.json", text)
write("decoder_train_slice.json.gz", text)
# Every header key after the events, the time unit last.
late = dict(traceEvents=picked, **{k: v for k, v in head.items() if k != "displayTimeUnit"})
write("decoder_train_slice.unit_last.json", make_old_formats.dump(dict(late, displayTimeUnit="ns")))
# PyTorch 1.8's categories, arguments, whole microseconds and string thread ids.
old = make_old_formats.shape_of(dict(head, traceEvents=picked), "pt1.8")
write("decoder_train_slice.pt1.8.json.gz", make_old_formats.dump(old))

# The hostile case of shared correlation ids: the trace's metadata, then one cudaLaunchKernel
# and the kernel it launched, each 8,000 times (24 KiB gzipped; quadratic before kscope linked
# each group of operations to one call).
meta = [e for e in events if e.get("ph") == "M"]
call = next(e for e in events if e.get("cat") == "cuda_runtime" and e.get("name") == "cudaLaunchKernel")
kernel = next(e for e in events if e.get("cat") == "kernel" and e["args"].get("correlation") == call["args"]["correlation"])
write("shared_correlation.json.gz", make_old_formats.dump(dict(head, traceEvents=meta + [call] * 8000 + [kernel] * 8000)))
