# Writes the trace shapes older PyTorch wrote, from one recorded with PyTorch 2.11
# (decoder_infer.json.gz, record_trace.py), because no older PyTorch runs on the GPU machine.
# Each shape changes only what Kineto wrote differently then (libkineto/src/output_json.cpp
# and ActivityType.cpp at the commits named below; docs/kineto/formats.md); the
# events, names, correlation ids and times are the recorded ones. Deterministic: the same
# input gives the same bytes (gzip mtime 0).
#
#   python3 tests/data/kineto/make_old_formats.py            # writes decoder_infer.pt*.json.gz here
#
# The rewrites, per shape:
# - every shape before 2024 (pt1.8, pt1.10, pt1.11, pt1.13): "ts" and "dur" in whole
#   microseconds, the digits after the point dropped, as Kineto wrote them before dfd563dd
#   (2024-03-18: us() = nanoseconds / 1000); the header keys that came later left out
#   (displayTimeUnit, baseTimeNanoseconds; the metadata keys PyTorch adds today).
# - pt1.8 (Kineto before 6f9c0eef, 2021-06-08: PyTorch 1.8 and 1.9; the kineto branch_1.8.1):
#   categories Operator (CPU ops and record_function ranges alike), Runtime, Kernel, Memcpy,
#   Memset, User (GPU-side annotations); flows cat "async", name "launch"; "external id" on GPU
#   work and calls; "Input dims"; thread ids as strings, a GPU row's as "stream N"; no
#   deviceProperties (1e9a1a97, 2021-05-11, came in 1.9); no overhead rows (fd335826, 2022).
# - pt1.10 (6f9c0eef to bc4eaef5, 2021-11-18): cpu_op and user_annotation, but Runtime, Kernel,
#   Memcpy, Memset still capitalized; "gpu_user_Annotation"; flows cat "async_gpu";
#   "external id" on GPU work and calls.
# - pt1.11 (bc4eaef5 to 1679e50e, 2022-04-08; PyTorch 1.11 and 1.12): cuda_runtime, but Kernel,
#   Memcpy, Memset capitalized; flows cat "async_cpu_to_gpu", name "async_gpu"; "traceName"
#   after the events (8f331035, 2021-11-16), as in every later shape.
# - pt1.13 (1679e50e to dfd563dd; PyTorch 1.13 to 2.3): today's categories, whole microseconds.
# - pt2.4-ns (Kineto of April 2024, between c22a8255 and d153c067): times with three
#   decimals, as today, and "traceName" and "displayTimeUnit": "ns" after traceEvents (where
#   Kineto put them until 08fcb941, 2025-03-06; "ms" from d153c067, 2024-05-02, on).
# Kineto recorded no CUDA driver calls before 09942dbb (2023-04-18): in the shapes before
# pt1.13 the recorded cuDriver calls are written as runtime calls, so that every kernel keeps
# its launching call.
import gzip
import json
import os
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))

# Categories per shape: today's name -> the shape's (None: the shape has no such events).
CATEGORIES = {
    "pt1.8": {"cpu_op": "Operator", "user_annotation": "Operator", "cuda_runtime": "Runtime",
              "cuda_driver": "Runtime", "kernel": "Kernel", "gpu_memcpy": "Memcpy", "gpu_memset": "Memset",
              "gpu_user_annotation": "User", "overhead": None},
    "pt1.10": {"cuda_runtime": "Runtime", "cuda_driver": "Runtime", "kernel": "Kernel", "gpu_memcpy": "Memcpy",
               "gpu_memset": "Memset", "gpu_user_annotation": "gpu_user_Annotation", "overhead": None},
    "pt1.11": {"cuda_driver": "cuda_runtime", "kernel": "Kernel", "gpu_memcpy": "Memcpy", "gpu_memset": "Memset",
               "gpu_user_annotation": "gpu_user_Annotation"},
    "pt1.13": {},
    "pt2.4-ns": {},
}
FLOWS = {"pt1.8": ("async", "launch"), "pt1.10": ("async_gpu", "cudaLaunchKernel"),
         "pt1.11": ("async_cpu_to_gpu", "async_gpu"), "pt1.13": ("ac2g", "ac2g"), "pt2.4-ns": ("ac2g", "ac2g")}
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
CALL_CATS = ("cuda_runtime", "cuda_driver")


def dump(v):
    """JSON text with numbers as they were read (Decimal keeps every digit)."""
    if isinstance(v, dict):
        return "{" + ", ".join(json.dumps(k) + ": " + dump(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(dump(x) for x in v) + "]"
    if isinstance(v, Decimal):
        return str(v)
    return json.dumps(v)


def whole_micros(e):
    for key in ("ts", "dur"):
        if isinstance(e.get(key), Decimal):
            e[key] = int(e[key])  # toward zero, as Kineto's integer division


def rewrite_event(e, shape):
    cat = e.get("cat")
    if e.get("ph") in ("s", "f"):
        if cat == "fwdbwd":
            return None if shape in ("pt1.8", "pt1.10") else e  # Kineto 7fbf128f, 2021-08-31
        e["cat"], e["name"] = FLOWS[shape]
    elif cat in CATEGORIES[shape]:
        if CATEGORIES[shape][cat] is None:
            return None
        e["cat"] = CATEGORIES[shape][cat]
    args = e.get("args", {})
    if shape in ("pt1.8", "pt1.10") and (cat in GPU_CATS or cat in CALL_CATS) and "External id" in args:
        args["external id"] = args.pop("External id")
    if shape == "pt1.8":
        if "Input Dims" in args:
            args["Input dims"] = args.pop("Input Dims")
        if isinstance(e.get("tid"), int):
            e["tid"] = ("stream %d" % e["tid"]) if cat in GPU_CATS else str(e["tid"])
    if shape != "pt2.4-ns":
        whole_micros(e)
    return e


def shape_of(trace, shape):
    out = {"schemaVersion": trace["schemaVersion"]}
    if shape != "pt1.8":
        out["deviceProperties"] = trace["deviceProperties"]
    if shape in ("pt1.13", "pt2.4-ns"):
        for key in ("trace_id", "record_shapes", "cuda_driver_version", "cuda_runtime_version", "cupti_version"):
            out[key] = trace[key]
    events = []
    for e in trace["traceEvents"]:
        e = rewrite_event(dict(e, args=dict(e["args"])) if "args" in e else dict(e), shape)
        if e is not None:
            events.append(e)
    out["traceEvents"] = events
    if shape in ("pt1.11", "pt1.13", "pt2.4-ns"):
        out["traceName"] = trace["traceName"]  # after the events from 8f331035 (2021-11-16)
    if shape == "pt2.4-ns":
        out["displayTimeUnit"] = "ns"
    return out


def write_gzip(path, text):
    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as f:
            f.write(text.encode("utf-8"))


def main():
    with gzip.open(os.path.join(HERE, "decoder_infer.json.gz"), "rt", encoding="utf-8") as f:
        trace = json.load(f, parse_float=Decimal)
    for shape in CATEGORIES:
        text = dump(shape_of(trace, shape)) + "\n"
        path = os.path.join(HERE, "decoder_infer.%s.json.gz" % shape)
        write_gzip(path, text)
        print(path, len(text), "bytes,", os.path.getsize(path), "gzipped")


if __name__ == "__main__":
    main()
