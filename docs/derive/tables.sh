#!/usr/bin/env bash
# The derived tables of store $1 as text, row by row in a fixed order, string ids replaced by
# their text (the ids depend on the order the nsys importer's threads intern names), for a
# diff of two stores.
python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.text_factory = bytes
strings = dict(db.execute("SELECT id, value FROM string"))
for t in ["ncu_launch", "ncu_launch_figures", "kernel_summary", "api_summary", "memop_summary", "nvtx_summary",
          "nvtx_kernel_summary", "nvtx_projection_summary", "run_rank", "source_file", "run", "event_stream",
          "thread_name"]:
    cols = [r[1].decode() if isinstance(r[1], bytes) else r[1] for r in db.execute(f"PRAGMA table_info({t})")]
    if not cols: continue
    print(f"== {t} ({', '.join(cols)})")
    ids = [i for i, c in enumerate(cols) if c.endswith("name_id") or c == "metric_id"]
    rows = []
    for row in db.execute(f"SELECT * FROM {t}"):
        row = list(row)
        for i in ids: row[i] = strings.get(row[i], row[i])
        rows.append(repr(row))
    for r in sorted(rows): print(r)
PY
