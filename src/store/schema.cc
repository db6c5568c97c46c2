#include "store/schema.h"

namespace kscope::store {

std::string_view SchemaTablesDdl() {
  return R"sql(
-- Key/value facts about the store itself. 'schema_version' is kSchemaVersion (an older store is
-- upgraded when opened: store/migrate.cc).
CREATE TABLE kscope_meta (
  key   TEXT PRIMARY KEY,  -- e.g. 'schema_version', 'created_by'
  value TEXT NOT NULL
);

-- One profiled run: everything imported together (an nsys export, later its ncu reports),
-- with the manifest of what shaped the numbers.
CREATE TABLE run (
  id           INTEGER PRIMARY KEY,  -- run id, shown as RUN on the command line
  imported_at  TEXT NOT NULL,        -- UTC time of the import, ISO 8601
  label        TEXT,                 -- free-form name given with --label
  model        TEXT,                 -- manifest: model name (e.g. 'llama-4L')
  dtype        TEXT,                 -- manifest: compute dtype (e.g. 'bf16')
  batch        INTEGER,              -- manifest: batch size
  tokens       INTEGER,              -- manifest: tokens processed (prompt + generated)
  gpu          TEXT,                 -- GPU name, from the export's TARGET_INFO_GPU
  driver       TEXT,                 -- NVIDIA driver version, from TARGET_INFO_SYSTEM_ENV
  cuda_version TEXT,                 -- CUDA driver API version (e.g. '13.0')
  nsys_export_version TEXT,          -- the Nsight Systems version the export says wrote it (its
                                     -- EXPORT_PRODUCT_VERSION), e.g. '2025.3.2.0'
  nsys_tool_version TEXT,            -- kscope profile: what `nsys --version` printed for the nsys it
                                     -- ran, e.g. '2025.3.1.0'; the two can differ for one nsys
  ncu_version  TEXT,                 -- Nsight Compute version (ncu imports)
  command      TEXT,                 -- the profiled command line, arguments joined by spaces
  tags         TEXT NOT NULL DEFAULT '{}',  -- JSON object of free-form key/value tags
  status       TEXT NOT NULL DEFAULT 'complete',  -- 'complete'; 'running' or 'incomplete' while
                                                   -- kscope profile has not finished it
  capture      TEXT  -- kscope profile: the run directory's manifest.json (config, commands, selection)
);

-- The files a run was imported from.
CREATE TABLE source_file (
  id             INTEGER PRIMARY KEY,
  run_id         INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  path           TEXT NOT NULL,     -- absolute path at import time
  format         TEXT NOT NULL,     -- importer that read it, e.g. 'nsys-sqlite'
  format_version TEXT,              -- the file's own schema version (nsys: EXPORT_SCHEMA_VERSION)
  bytes          INTEGER NOT NULL,  -- file size
  rows_read      INTEGER NOT NULL,  -- rows the importer kept
  rows_skipped   INTEGER NOT NULL,  -- rows it could not use (see import_problem)
  content_hash   TEXT               -- XXH3 of its bytes ('xxh3-64:' and 16 hex digits): the same content is
                                    -- not imported again without --force
);
CREATE INDEX source_file_run ON source_file(run_id);
CREATE INDEX source_file_content ON source_file(content_hash);

-- Every distinct string (kernel names, API names, NVTX texts, domains), shared by all runs
-- so that one kernel name has one id across the whole store.
CREATE TABLE string (
  id    INTEGER PRIMARY KEY,
  value TEXT NOT NULL UNIQUE
);

-- Per-run event streams (kernel, api_call, memop, nvtx_range), stored column by column in
-- chunks of up to 65,536 rows. docs/schema.md lists each stream's columns; every column is
-- a 64-bit integer (strings are ids into 'string'; NULL is -2^63), encoded as
-- 'dzv-zstd': deltas between consecutive values, zigzag, LEB128 varints, zstd.
CREATE TABLE event_chunk (
  id       INTEGER PRIMARY KEY,
  run_id   INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  stream   TEXT NOT NULL,     -- 'kernel', 'api_call', 'memop' or 'nvtx_range'
  col      TEXT NOT NULL,     -- column name within the stream
  chunk    INTEGER NOT NULL,  -- order of the chunk in its column: its rows follow those of every
                             -- chunk with a smaller number (numbers may skip)
  rows     INTEGER NOT NULL,  -- values in this chunk
  encoding TEXT NOT NULL,     -- 'dzv-zstd'
  data     BLOB NOT NULL
);
CREATE UNIQUE INDEX event_chunk_key ON event_chunk(run_id, stream, col, chunk);

-- Row counts per stream and run, so readers need not decode to count.
CREATE TABLE event_stream (
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  stream TEXT NOT NULL,
  rows   INTEGER NOT NULL,
  PRIMARY KEY (run_id, stream)
) WITHOUT ROWID;

-- The names of a run's threads (nsys's ThreadNames): who launched GPU work, e.g. PyTorch's
-- autograd thread 'pt_autograd_0' beside the main thread 'python3'.
CREATE TABLE thread_name (
  run_id     INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  global_tid INTEGER NOT NULL,  -- nsys global thread id (process and thread bits)
  name_id    INTEGER NOT NULL REFERENCES string(id),
  PRIMARY KEY (run_id, global_tid)
) WITHOUT ROWID;

-- Rows of a good file that could not be used: counted and kept, never fatal.
CREATE TABLE import_problem (
  id             INTEGER PRIMARY KEY,
  run_id         INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  source_file_id INTEGER NOT NULL REFERENCES source_file(id) ON DELETE CASCADE,
  location       TEXT NOT NULL,  -- table and row in the source, e.g. 'CUPTI_ACTIVITY_KIND_KERNEL rowid 17'
  what           TEXT NOT NULL,  -- what is wrong with it
  raw            TEXT            -- the offending values, as text
);
CREATE INDEX import_problem_run ON import_problem(run_id);

-- What a run lacks because it was imported by an earlier kscope and the store's upgrade could not
-- derive it from the store alone (store/migrate.cc): one row per run and missing part, removed
-- when `kscope import --rederive` fills it from the run's source files.
CREATE TABLE run_gap (
  run_id   INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  what     TEXT NOT NULL,     -- 'thread_names' (thread_name rows), 'content_hash' (source_file.content_hash)
  since    INTEGER NOT NULL,  -- the schema version of the store the run was upgraded from
  PRIMARY KEY (run_id, what)
) WITHOUT ROWID;

-- The ranks of a run: each process that launched GPU kernels (a job under torchrun, mpirun or srun
-- that one nsys recorded holds one per rank), with its GPU. Derived at import from the kernel
-- stream (analysis/timeline/ranks.cc); a run of one process has one row.
CREATE TABLE run_rank (
  run_id     INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  rank       INTEGER NOT NULL,  -- the position in process order (global_pid order, from 0); for a run of
                                -- one process, the rank its recorded environment names (RANK, ...), if any
  global_pid INTEGER NOT NULL,  -- nsys global process id (the kernel stream's global_pid)
  pid        INTEGER NOT NULL,  -- process ID
  device     INTEGER NOT NULL,  -- the GPU (CUDA device id) most of its kernels ran on
  kernels    INTEGER NOT NULL,  -- its kernel launches
  rank_from  TEXT NOT NULL,     -- 'process order', or the environment variable the rank came from
  PRIMARY KEY (run_id, rank)
) WITHOUT ROWID;

-- The message size of each communication kernel whose capture gives it: a PyTorch profiler
-- trace's NCCL kernels carry their collective's element counts and type ("In msg nelems", "Out msg
-- nelems", "dtype"); nsys exports carry none (docs/kineto.md). Written by the importer; the ranks
-- view sums it per rank and collective kind (analysis/timeline/rank_figures.h).
CREATE TABLE collective_message (
  run_id     INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  kernel_row INTEGER NOT NULL,  -- the kernel's row in the run's kernel stream, from 0
  in_bytes   INTEGER NOT NULL,  -- its input message: "In msg nelems" x the size of "dtype"
  out_bytes  INTEGER NOT NULL,  -- its output message: "Out msg nelems" x the size of "dtype"
  PRIMARY KEY (run_id, kernel_row)
) WITHOUT ROWID;

-- Derived at import from the event streams (analysis/timeline/nsys_summaries.cc). Values are exact
-- (not rounded); reports round them the way nsys does. Durations in ns, sizes in bytes.
-- The duration statistics of a group: n, total, mean, median, min, max, sample stddev.

-- Per kernel name (demangled): nsys's cuda_gpu_kern_sum.
CREATE TABLE kernel_summary (
  run_id  INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  name_id INTEGER NOT NULL REFERENCES string(id),  -- demangled kernel name
  n INTEGER NOT NULL, total INTEGER NOT NULL, mean REAL NOT NULL, median REAL NOT NULL,
  min INTEGER NOT NULL, max INTEGER NOT NULL, stddev REAL NOT NULL,
  PRIMARY KEY (run_id, name_id)
) WITHOUT ROWID;

-- Per CUDA API function (runtime and driver): nsys's cuda_api_sum.
CREATE TABLE api_summary (
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  name_id INTEGER NOT NULL REFERENCES string(id),  -- function name as traced
  name   TEXT NOT NULL,  -- as nsys shows it: a trailing '_vNNNN' version suffix removed
  n INTEGER NOT NULL, total INTEGER NOT NULL, mean REAL NOT NULL, median REAL NOT NULL,
  min INTEGER NOT NULL, max INTEGER NOT NULL, stddev REAL NOT NULL,
  PRIMARY KEY (run_id, name_id)
) WITHOUT ROWID;

-- Per memory operation kind: nsys's cuda_gpu_mem_time_sum (time) and _mem_size_sum (bytes).
CREATE TABLE memop_summary (
  run_id    INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  operation TEXT NOT NULL,  -- '[CUDA memcpy Host-to-Device]', '[CUDA memset]', ...
  n INTEGER NOT NULL, total INTEGER NOT NULL, mean REAL NOT NULL, median REAL NOT NULL,
  min INTEGER NOT NULL, max INTEGER NOT NULL, stddev REAL NOT NULL,
  bytes_total INTEGER NOT NULL, bytes_mean REAL NOT NULL, bytes_median REAL NOT NULL,
  bytes_min INTEGER NOT NULL, bytes_max INTEGER NOT NULL, bytes_stddev REAL NOT NULL,
  PRIMARY KEY (run_id, operation)
) WITHOUT ROWID;

-- Per NVTX range name and style: nsys's nvtx_sum (range durations on the CPU).
CREATE TABLE nvtx_summary (
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  range  TEXT NOT NULL,  -- 'domain:name'; the default domain is empty, so ':decode'
  style  TEXT NOT NULL,  -- 'PushPop' or 'StartEnd'
  n INTEGER NOT NULL, total INTEGER NOT NULL, mean REAL NOT NULL, median REAL NOT NULL,
  min INTEGER NOT NULL, max INTEGER NOT NULL, stddev REAL NOT NULL,
  PRIMARY KEY (run_id, range, style)
) WITHOUT ROWID;

-- Per (NVTX range, thread, kernel name): kernels whose launch call lies inside the range
-- on the same thread, as nsys's nvtx_kern_sum. Kernels outside every range form the row
-- whose range, style, pid and tid are NULL (pid/tid stay set when the launch is known).
CREATE TABLE nvtx_kernel_summary (
  run_id          INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  range           TEXT,     -- 'domain:name', NULL for kernels outside every range
  style           TEXT,
  pid             INTEGER,  -- process of the launching thread
  tid             INTEGER,  -- launching thread
  range_instances INTEGER NOT NULL,  -- distinct range instances holding these launches
  kernel_name_id  INTEGER NOT NULL REFERENCES string(id),
  n INTEGER NOT NULL, total INTEGER NOT NULL, mean REAL NOT NULL, median REAL NOT NULL,
  min INTEGER NOT NULL, max INTEGER NOT NULL, stddev REAL NOT NULL
);
CREATE INDEX nvtx_kernel_summary_run ON nvtx_kernel_summary(run_id);

-- Per NVTX range name and style, projected onto the GPU: nsys's nvtx_gpu_proj_sum. A range
-- instance's projection runs from the first start to the last end of the GPU operations
-- (kernels, copies, sets) launched inside it on its thread.
CREATE TABLE nvtx_projection_summary (
  run_id      INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  range       TEXT NOT NULL,
  style       TEXT NOT NULL,
  n INTEGER NOT NULL,                 -- range instances with at least one GPU operation
  total INTEGER NOT NULL, mean REAL NOT NULL, median REAL NOT NULL,  -- projected durations
  min INTEGER NOT NULL, max INTEGER NOT NULL, stddev REAL NOT NULL,
  range_total INTEGER NOT NULL,       -- sum of the CPU-side range durations
  gpu_ops     INTEGER NOT NULL,       -- GPU operations (distinct correlation ids) in all instances
  level_mean  REAL,                   -- mean nesting level (0 = outermost)
  children_mean REAL NOT NULL,        -- mean number of child ranges that have GPU operations
  PRIMARY KEY (run_id, range, style)
) WITHOUT ROWID;

-- One kernel launch profiled by Nsight Compute (one ncu result). Launches from the raw and
-- the details page of one report merge into one row (same ncu id, process, name and shape).
CREATE TABLE ncu_launch (
  run_id       INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  id           INTEGER NOT NULL,  -- launch number within the run (0, 1, ...), shown as ID
  source_id    INTEGER NOT NULL REFERENCES source_file(id),  -- first file that had it
  ncu_id       INTEGER NOT NULL,  -- ncu's own result ID within its report
  pid          INTEGER,           -- process ID
  process      TEXT,              -- process name
  host         TEXT,              -- host name
  name_id      INTEGER NOT NULL REFERENCES string(id),  -- kernel name as ncu printed it
  context      INTEGER,
  stream       INTEGER,
  device       INTEGER,
  cc           TEXT,              -- compute capability, e.g. '9.0'
  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,     -- grid size in blocks
  block_x INTEGER, block_y INTEGER, block_z INTEGER,  -- block size in threads
  nvtx         TEXT,              -- ncu's NVTX columns (push/pop and start/end), ' | '-joined
  kernel_index INTEGER,           -- the same launch in an nsys kernel stream (row number),
                                  -- NULL when no nsys data or no match
  kernel_run   INTEGER,           -- the run whose kernel stream kernel_index indexes: this run,
                                  -- or the discovery run that kscope profile --discovery reused
  kernel_link  TEXT,              -- how: 'planned' (kscope profile knew which launch ncu would
                                  -- profile) or 'matched' (same kernel, shape and NVTX range,
                                  -- in launch order)
  PRIMARY KEY (run_id, id)
) WITHOUT ROWID;

-- Every metric of every profiled launch, in base units (byte, ns, hz, byte/s, %, cycle,
-- ...: ncu's own base units, with decimal prefixes undone: 1 Kbyte = 1000 bytes).
CREATE TABLE ncu_metric (
  run_id    INTEGER NOT NULL,
  launch_id INTEGER NOT NULL,  -- ncu_launch.id
  metric_id INTEGER NOT NULL REFERENCES string(id),  -- ncu metric name, e.g. 'gpu__time_duration.sum'
  value     REAL,              -- numeric value in `unit`; NULL when the value is text
  text      TEXT,              -- the value as printed when it is not a number ('PolicySpread', 'n/a')
  unit      TEXT NOT NULL,     -- base unit; '' for counts without a unit
  precise   INTEGER NOT NULL,  -- 1: from the raw page (6 decimals), 0: from the details page (rounded)
  PRIMARY KEY (run_id, launch_id, metric_id),
  FOREIGN KEY (run_id, launch_id) REFERENCES ncu_launch(run_id, id) ON DELETE CASCADE
) WITHOUT ROWID;

-- ncu's rule findings for a launch (details page): the guided-analysis advice.
CREATE TABLE ncu_rule (
  run_id       INTEGER NOT NULL,
  launch_id    INTEGER NOT NULL,
  section      TEXT NOT NULL,  -- section identifier, e.g. 'SpeedOfLight'
  rule         TEXT NOT NULL,  -- rule name, e.g. 'SOLBottleneck'
  type         TEXT NOT NULL,  -- 'OPT' (an optimization), 'INF' (information), 'WRN', 'ERR'
  description  TEXT NOT NULL,
  speedup_type TEXT,           -- 'local' or 'global', when ncu estimates a speedup
  speedup      REAL,           -- estimated speedup in percent
  FOREIGN KEY (run_id, launch_id) REFERENCES ncu_launch(run_id, id) ON DELETE CASCADE
);
CREATE INDEX ncu_rule_launch ON ncu_rule(run_id, launch_id);
-- Per profiled launch, the figures derived from its metrics when its ncu results were imported
-- (analysis/kernels/launch_figures.cc, the evidence and roofline code of `kscope kernels`), so
-- that the many-run views (kscope atlas) read one row per launch, not its metric rows. NULL:
-- the launch lacks the metrics. The bottleneck class is decided from these figures when read,
-- under the configured thresholds (classify.*).
CREATE TABLE ncu_launch_figures (
  run_id      INTEGER NOT NULL,
  launch_id   INTEGER NOT NULL,  -- ncu_launch.id
  duration_ns REAL,              -- gpu__time_duration.sum
  sm_pct      REAL,              -- SM throughput, % of peak (sm__throughput.avg.pct_of_peak_sustained_elapsed)
  memory_pct  REAL,              -- memory throughput, % of peak: gpu__compute_memory_throughput (SpeedOfLight),
                                 -- else the busiest of DRAM, L1 and L2 throughput
  dram_pct    REAL,              -- DRAM throughput, % of peak (gpu__dram_throughput, else dram__throughput)
  l1_hit_pct  REAL,              -- l1tex__t_sector_hit_rate.pct
  l2_hit_pct  REAL,              -- lts__t_sector_hit_rate.pct
  achieved_occupancy_pct    REAL,  -- sm__warps_active.avg.pct_of_peak_sustained_active
  theoretical_occupancy_pct REAL,  -- sm__maximum_warps_per_active_cycle_pct
  occupancy_limiter TEXT,        -- the resource allowing the fewest blocks per SM (launch__occupancy_limit_*):
                                 -- 'registers', 'shared memory', 'warps', 'blocks per SM' or 'barriers'
  top_stall   TEXT,              -- the largest stall reason, e.g. 'long_scoreboard'
  waves       REAL,              -- launch__waves_per_multiprocessor
  registers   REAL,              -- launch__registers_per_thread
  shared_bytes REAL,             -- launch__shared_mem_per_block, bytes (with the 1 KiB the driver reserves)
  tensor_pipe_pct REAL,          -- sm__pipe_tensor_cycles_active, % of peak (active, else elapsed)
  roof_precision TEXT,           -- where the launch sits on the roofline: the precision nearest its peak
                                 -- ('FP32', 'Tensor BF16', ...); NULL: no FP work or no roofline metrics
  roof_pct    REAL,              -- its achieved FLOP/s, % of the roof at its arithmetic intensity
  roof_memory_bound INTEGER,     -- 1: below the ridge (the memory side of the roofline), 0: the compute side
  shape       TEXT,              -- the input shapes of the PyTorch op that launched it, 'aten::mm [[2048, 1024],
                                 -- [1024, 3584]]': the innermost op range with sizes (nsys
                                 -- --pytorch=autograd-shapes-nvtx) around the launching call of its nsys
                                 -- kernel (ncu_launch.kernel_index); NULL when unknown
  PRIMARY KEY (run_id, launch_id),
  FOREIGN KEY (run_id, launch_id) REFERENCES ncu_launch(run_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
)sql";
}

std::string_view SchemaViewsDdl() {
  return R"sql(
-- Views for `kscope query`, pandas and the sqlite3 shell (docs/query.md): stable names and
-- columns over the tables above, in portable SQL (joins and CASE only, no SQLite-only
-- functions) so that a server database could take them over. Times in ns.

-- One row per run, with its manifest; tags stay the JSON object text of run.tags.
CREATE VIEW v_runs AS
SELECT r.id AS run_id, r.imported_at, r.label, r.model, r.dtype, r.batch, r.tokens, r.gpu, r.driver,
       r.cuda_version, r.nsys_export_version, r.nsys_tool_version, r.ncu_version, r.command, r.status,
       r.tags
FROM run r;

-- One row per run and kernel name (demangled): the launches nsys traced and their GPU time,
-- as kscope stats --report cuda_gpu_kern_sum shows them.
CREATE VIEW v_kernels AS
SELECT k.run_id, s.value AS kernel_name, k.n AS launches, k.total AS total_ns, k.mean AS avg_ns,
       k.median AS median_ns, k.min AS min_ns, k.max AS max_ns, k.stddev AS stddev_ns
FROM kernel_summary k JOIN string s ON s.id = k.name_id;

-- One row per kernel launch that Nsight Compute profiled, with its launch shape.
CREATE VIEW v_ncu_launches AS
SELECT l.run_id, l.id AS launch_id, s.value AS kernel_name, l.process, l.device, l.cc,
       l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z, l.nvtx
FROM ncu_launch l JOIN string s ON s.id = l.name_id;

-- One row per profiled launch and metric: the value in its base unit (NULL when the metric
-- is text, then in value_text).
CREATE VIEW v_ncu_metrics AS
SELECT m.run_id, m.launch_id, k.value AS kernel_name, n.value AS metric_name, m.value, m.text AS value_text,
       m.unit
FROM ncu_metric m
JOIN ncu_launch l ON l.run_id = m.run_id AND l.id = m.launch_id
JOIN string k ON k.id = l.name_id
JOIN string n ON n.id = m.metric_id;

-- One row per profiled launch: the figures derived from its metrics at import (ncu_launch_figures),
-- with its kernel name and launch shape: what kscope atlas aggregates.
CREATE VIEW v_ncu_launch_figures AS
SELECT f.run_id, f.launch_id, s.value AS kernel_name, l.grid_x, l.grid_y, l.grid_z, l.block_x, l.block_y, l.block_z,
       f.duration_ns, f.sm_pct, f.memory_pct, f.dram_pct, f.l1_hit_pct, f.l2_hit_pct, f.achieved_occupancy_pct,
       f.theoretical_occupancy_pct, f.occupancy_limiter, f.top_stall, f.waves, f.registers, f.shared_bytes,
       f.tensor_pipe_pct, f.roof_precision, f.roof_pct, f.roof_memory_bound, f.shape
FROM ncu_launch_figures f
JOIN ncu_launch l ON l.run_id = f.run_id AND l.id = f.launch_id
JOIN string s ON s.id = l.name_id;
)sql";
}

std::string SchemaDdl() { return std::string(SchemaTablesDdl()) + std::string(SchemaViewsDdl()); }

}  // namespace kscope::store
