# Keeps an nsys export small enough for tests/data: the OS runtime tables (which kscope does not
# read) dropped, and of nsys's GPU metrics only the rows kscope imports (GR, SM and tensor
# activity, DRAM bandwidth) and the GPC clock, inside the run's CUDA activity (100 ms either
# side), as nsys wrote them; then xz.
import lzma, shutil, sqlite3, sys

src, dst = sys.argv[1], sys.argv[2]
db = sqlite3.connect(src)
kept = ("GR Active", "SMs Active", "SM Issue", "Tensor Active", "DRAM Read Bandwidth", "DRAM Write Bandwidth",
        "GPC Clock Frequency")
ids = [r[0] for r in db.execute("SELECT DISTINCT metricId, metricName FROM TARGET_INFO_GPU_METRICS")
       if any(r[1].startswith(k) for k in kept)]
lo, hi = db.execute("SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()
before = db.execute("SELECT count(*) FROM GPU_METRICS").fetchone()[0]
db.execute(f"DELETE FROM GPU_METRICS WHERE metricId NOT IN ({','.join(map(str, ids))}) "
           "OR timestamp < ? OR timestamp > ?", (lo - 100_000_000, hi + 100_000_000))
after = db.execute("SELECT count(*) FROM GPU_METRICS").fetchone()[0]
for t in ("OSRT_API", "OSRT_CALLCHAINS", "SCHED_EVENTS"):
    db.execute(f"DROP TABLE IF EXISTS {t}")
db.commit()
db.execute("VACUUM")
db.close()
with open(src, "rb") as f, lzma.open(dst, "wb", preset=9) as g:
    shutil.copyfileobj(f, g)
print(f"GPU_METRICS rows {before} -> {after}; metric ids kept {sorted(ids)}; CUDA span {lo}..{hi}")
