#!/usr/bin/env bash
# Writes kernel_names.tsv next to this script: every distinct kernel name in the devset, as
# each tool spells it; and zoo_kernel_names.tsv: the same for the zoo dataset
# (tests/data/zoo/*/discovery.sqlite.zst and *_raw.csv.zst). Re-run after either changes:
# tests/data/names/extract.sh [DEVSET] (default: ../shared/devset from the repository root).
# Needs python3 and zstd.
#   nsys  WORKLOAD  demangled name  mangled name   one line per distinct kernel of an export
#   ncu   WORKLOAD  name                           "Kernel Name" of the raw CSV pages
#   torch WORKLOAD  name                           "cat": "kernel" events of the PyTorch trace
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
devset=${1:-$here/../../../../shared/devset}
python3 - "$devset" "$here/kernel_names.tsv" <<'PY'
import csv, json, sqlite3, sys
devset, out_path = sys.argv[1], sys.argv[2]
rows, notes = set(), []

for workload in ("llama", "tiny_cuda"):
    db = sqlite3.connect(f"file:{devset}/{workload}.sqlite?mode=ro", uri=True)
    pairs = db.execute(
        "SELECT DISTINCT d.value, m.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
        "JOIN StringIds d ON d.id = k.demangledName JOIN StringIds m ON m.id = k.mangledName").fetchall()
    rows.update(("nsys", workload, d, m) for d, m in pairs)
    notes.append(f"{workload}.sqlite: {len(pairs)} kernels")

for csv_name, workload in (("llama_decode_quick_raw.csv", "llama"), ("llama_deep_raw.csv", "llama"),
                           ("tiny_cuda_basic_raw.csv", "tiny_cuda"), ("tiny_cuda_gemm_full_raw.csv", "tiny_cuda")):
    with open(f"{devset}/{csv_name}", newline="") as f:
        lines = [line for line in f if not line.startswith("==")]  # ==PROF== log lines
    names = {r["Kernel Name"] for r in csv.DictReader(lines) if r["Kernel Name"]}  # the units row has none
    rows.update(("ncu", workload, n) for n in names)
    notes.append(f"{csv_name}: {len(names)} kernels")

with open(f"{devset}/llama_torch.trace.json") as f:
    trace = json.load(f)
names = {e["name"] for e in trace["traceEvents"] if e.get("cat") == "kernel"}
rows.update(("torch", "llama", n) for n in names)
notes.append(f"llama_torch.trace.json: {len(names)} kernels")

for row in rows:
    assert all("\t" not in v and "\n" not in v for v in row), row
with open(out_path, "w") as out:
    out.write("# Every distinct kernel name in the devset, written by extract.sh: " + "; ".join(notes) + ".\n")
    for row in sorted(rows):
        out.write("\t".join(row) + "\n")
PY

python3 - "$here/../zoo" "$here/zoo_kernel_names.tsv" <<'PY'
import csv, io, os, sqlite3, subprocess, sys, tempfile
zoo, out_path = sys.argv[1], sys.argv[2]
rows, notes = set(), []

def unzstd(path):
    return subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout

for workload in sorted(os.listdir(zoo)):
    folder = os.path.join(zoo, workload)
    if not os.path.isdir(folder):
        continue
    with tempfile.NamedTemporaryFile(suffix=".sqlite") as tmp:
        tmp.write(unzstd(os.path.join(folder, "discovery.sqlite.zst")))
        tmp.flush()
        db = sqlite3.connect(f"file:{tmp.name}?mode=ro", uri=True)
        pairs = db.execute(
            "SELECT DISTINCT d.value, m.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
            "JOIN StringIds d ON d.id = k.demangledName JOIN StringIds m ON m.id = k.mangledName").fetchall()
        db.close()
    rows.update(("nsys", workload, d, m) for d, m in pairs)
    notes.append(f"{workload}: {len(pairs)} nsys")
    for csv_name in sorted(f for f in os.listdir(folder) if f.endswith("_raw.csv.zst")):
        text = unzstd(os.path.join(folder, csv_name)).decode()
        lines = [line for line in io.StringIO(text) if not line.startswith("==")]  # ==PROF== log lines
        names = {r["Kernel Name"] for r in csv.DictReader(lines) if r["Kernel Name"]}  # the units row has none
        rows.update(("ncu", workload, n) for n in names)
        notes.append(f"{workload}/{csv_name[:-4]}: {len(names)} ncu")

for row in rows:
    assert all("\t" not in v and "\n" not in v for v in row), row
with open(out_path, "w") as out:
    out.write("# Every distinct kernel name in the zoo dataset, written by extract.sh: " + "; ".join(notes) + ".\n")
    for row in sorted(rows):
        out.write("\t".join(row) + "\n")
PY
