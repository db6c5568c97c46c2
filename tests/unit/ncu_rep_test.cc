// The native .ncu-rep reader against ncu's own raw page: for every devset report, every
// metric of every launch prints exactly as `ncu --import R --page raw --csv` printed it
// (tests/data/ncu/*_raw.csv), the launch columns agree, and the import stores the same
// numbers as importing that page.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "analysis/kernels/launch_figures.h"
#include "analysis/kernels/ncu_launches.h"
#include "import/import_files.h"
#include "import/ncu/csv_records.h"
#include "import/ncu/rep_importer.h"
#include "import/ncu/rep_reader.h"
#include "import/ncu/rep_units.h"
#include "import/ncu/units.h"
#include "recorded_runner.h"
#include "store/store.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;
using import::ncu::RepLaunch;
using import::ncu::RepValue;

const std::string kNcu = std::string(KSCOPE_TEST_DATA_DIR) + "/ncu/";

// A report (and its raw page) by name: a devset one from tests/data/ncu/<name>.ncu-rep.zst,
// or "zoo/<model>" for tests/data/zoo/<model>/default_profile.ncu-rep.zst, unpacked once per
// process.
std::string Unpacked(const std::string& zst, const std::string& as) {
  static std::map<std::string, std::string> unpacked;
  if (auto it = unpacked.find(zst); it != unpacked.end()) return it->second;
  const auto dir = fs::temp_directory_path() / ("kscope_rep_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string file = as;
  std::replace(file.begin(), file.end(), '/', '_');
  const std::string path = (dir / file).string();
  std::ofstream(path, std::ios::binary) << testing::Unzstd(zst);
  return unpacked[zst] = path;
}
bool IsZoo(const std::string& name) { return name.rfind("zoo/", 0) == 0; }
std::string Report(const std::string& name) {
  if (IsZoo(name)) {
    return Unpacked(std::string(KSCOPE_TEST_DATA_DIR) + "/" + name + "/default_profile.ncu-rep.zst", name + ".ncu-rep");
  }
  return Unpacked(kNcu + name + ".ncu-rep.zst", name + ".ncu-rep");
}
std::string RawPage(const std::string& name) {
  if (IsZoo(name)) {
    return Unpacked(std::string(KSCOPE_TEST_DATA_DIR) + "/" + name + "/default_profile_raw.csv.zst", name + "_raw.csv");
  }
  return kNcu + name + "_raw.csv";
}

// A launch copied out of the reader's callback.
struct OwnedValue {
  RepValue v;
  std::string s;
  [[nodiscard]] RepValue Get() const {
    RepValue out = v;
    out.s = s;
    return out;
  }
};
struct OwnedLaunch {
  RepLaunch head;  // scalars only
  std::string process, host, mangled, function, demangled;
  std::map<std::string, OwnedValue, std::less<>> metrics;
  std::map<std::string, size_t, std::less<>> instances;
};

std::vector<OwnedLaunch> ReadAll(const std::string& path) {
  std::vector<OwnedLaunch> out;
  auto read = import::ncu::ReadRep(path, [&](const RepLaunch& l) {
    OwnedLaunch o;
    o.head.id = l.id;
    o.head.pid = l.pid;
    o.head.grid = l.grid;
    o.head.block = l.block;
    o.head.nvtx = l.nvtx;
    o.process = l.process;
    o.host = l.host;
    o.mangled = l.mangled;
    o.function = l.function;
    o.demangled = l.demangled;
    for (const auto& m : l.metrics) {
      o.metrics[std::string(m.name)] = OwnedValue{m.value, std::string(m.value.s)};
      if (!m.instances.empty()) o.instances[std::string(m.name)] = m.instances.size();
    }
    out.push_back(std::move(o));
    return Status::Ok();
  });
  EXPECT_TRUE(read.ok()) << read.error().Line();
  return out;
}

std::vector<std::vector<std::string>> ReadCsv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  auto read = import::ncu::ReadCsvRecords(path, [&](const import::ncu::CsvRecord& r) {
    rows.push_back(r.fields);
    return Status::Ok();
  });
  EXPECT_TRUE(read.ok()) << read.error().Line();
  return rows;
}

std::string Dim3(const std::array<int64_t, 3>& d) { return fmt::format("({}, {}, {})", d[0], d[1], d[2]); }

// Metrics whose unit ncu prints differently from one devset report to another (inst or
// byte; sector or byte): the unit table holds one of them.
bool UnitVaries(std::string_view metric) {
  return metric == "sass__inst_executed_register_spilling_mem_local" ||
         metric == "sass__inst_executed_register_spilling_mem_shared" ||
         metric == "derived__memory_l2_theoretical_sectors_global_excessive";
}

struct Expected {
  std::string name;
  size_t launches, metric_columns;
  size_t cells;    // cells of the raw page compared, identity columns and units row included
  size_t renamed;  // launches whose page name is shortened from the full demangled name
  size_t stored;   // metric values the page import stores, compared with the native import
  size_t ties;     // cells of an exact tie that ncu rounded down where printf rounds to even
};

class NcuRep : public ::testing::TestWithParam<Expected> {};

// Every cell of ncu's raw page, identity columns and metrics, from the report alone.
TEST_P(NcuRep, EveryMetricOfEveryLaunchPrintsAsNcuPrintsIt) {
  const Expected& e = GetParam();
  const auto launches = ReadAll(Report(e.name));
  const auto rows = ReadCsv(RawPage(e.name));
  ASSERT_EQ(launches.size(), e.launches);
  ASSERT_EQ(rows.size(), e.launches + 2);
  const auto& header = rows[0];
  const auto& units = rows[1];
  size_t metric_columns = 0, cells = 0, renamed = 0, ties = 0;
  std::vector<std::string> wrong;
  auto check = [&](const std::string& what, const std::string& got, const std::string& want) {
    ++cells;
    if (got != want && wrong.size() < 20) wrong.push_back(what + ": got \"" + got + "\", ncu \"" + want + "\"");
  };
  for (size_t col = 0; col < header.size(); ++col) {
    const std::string& h = header[col];
    for (size_t i = 0; i < launches.size(); ++i) {
      const OwnedLaunch& l = launches[i];
      const std::string& cell = rows[i + 2][col];
      auto metric = [&](const char* name) {
        auto it = l.metrics.find(name);
        return it == l.metrics.end() ? std::string("?") : FormatRawCell(it->second.Get(), {});
      };
      if (h == "ID") check(h, std::to_string(l.head.id), cell);
      if (h == "Process ID") check(h, std::to_string(l.head.pid), cell);
      if (h == "Process Name") check(h, l.process, cell);
      if (h == "Host Name") check(h, l.host, cell);
      if (h == "Context") check(h, metric("launch__context_id"), cell);
      if (h == "Stream") check(h, metric("launch__stream_id"), cell);
      if (h == "Device") check(h, metric("launch__device_id"), cell);
      if (h == "CC") {
        check(h,
              metric("device__attribute_compute_capability_major") + "." +
                  metric("device__attribute_compute_capability_minor"),
              cell);
      }
      if (h == "Block Size") check(h, Dim3(l.head.block), cell);
      if (h == "Grid Size") check(h, Dim3(l.head.grid), cell);
      if (h.find("Push/Pop_Range") != std::string::npos) check(h, l.head.nvtx, cell);
      if (h.find("Start/Stop_Range") != std::string::npos) check(h, "", cell);
      if (h == "Kernel Name") {
        // ncu's page shortens demangled names (template arguments, some namespaces); the
        // report keeps the full name. Count those and check the function name is in both.
        const std::string& full = l.demangled.empty() ? l.function : l.demangled;
        if (full != cell) ++renamed;
        check(h + " holds the function name", cell.find(l.function) != std::string::npos ? "yes" : "no", "yes");
      }
    }
    const bool identity = h == "ID" || h == "Process ID" || h == "Process Name" || h == "Host Name" ||
                          h == "Kernel Name" || h == "Context" || h == "Stream" || h == "Block Size" ||
                          h == "Grid Size" || h == "Device" || h == "CC" || h.find("_Range:") != std::string::npos;
    if (identity) continue;
    ++metric_columns;
    // The column's unit and prefix, from its largest magnitude over all launches.
    double max_abs = 0;
    bool numeric = false, all_zero = true;
    for (const auto& l : launches) {
      auto it = l.metrics.find(h);
      if (it == l.metrics.end() || !it->second.v.numeric() || std::isnan(it->second.v.number())) continue;
      numeric = true;
      max_abs = std::max(max_abs, std::fabs(it->second.v.number()));
      all_zero = all_zero && it->second.v.number() == 0;
    }
    const auto column = import::ncu::ChooseRawColumn(import::ncu::RepBaseUnit(h), max_abs, numeric && all_zero);
    if (numeric && !UnitVaries(h)) check(h + " unit", column.unit, units[col]);
    for (size_t i = 0; i < launches.size(); ++i) {
      auto it = launches[i].metrics.find(h);
      const auto inst = launches[i].instances.find(h);
      const size_t n = inst == launches[i].instances.end() ? 0 : inst->second;
      const std::string got =
          it == launches[i].metrics.end() ? "" : import::ncu::FormatRawMetric(it->second.Get(), n, column);
      // A value whose scaled form is an exact binary tie at the seventh decimal: ncu rounds
      // it either way (docs/ncu-rep.md). Such a cell may differ in its last digit; counted.
      if (got != rows[i + 2][col] && it != launches[i].metrics.end() && it->second.v.numeric()) {
        const double scaled = std::fabs(it->second.v.number() / column.scale) * 1e6;
        const auto near = import::ncu::ParseNumber(rows[i + 2][col]);
        if (scaled - std::floor(scaled) == 0.5 && near &&
            std::fabs(*near - it->second.v.number() / column.scale) <= 0.5e-6 + 1e-12) {
          ++ties;
          continue;
        }
      }
      check(fmt::format("{} of launch {}", h, i), got, rows[i + 2][col]);
    }
  }
  EXPECT_TRUE(wrong.empty()) << ::testing::PrintToString(wrong);
  EXPECT_EQ(metric_columns, e.metric_columns);
  EXPECT_EQ(cells, e.cells);
  EXPECT_EQ(renamed, e.renamed);
  EXPECT_EQ(ties, e.ties);
  // What the report holds beyond the page: only ncu's "breakdown:" and "group:" helpers.
  for (const auto& l : launches) {
    for (const auto& [name, v] : l.metrics) {
      if (name.find(':') != std::string::npos) continue;
      EXPECT_NE(std::find(header.begin(), header.end(), name), header.end()) << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Devset, NcuRep,
                         ::testing::Values(Expected{"tiny_cuda_basic", 9, 555, 5643, 1, 4977, 0},
                                           Expected{"tiny_cuda_gemm_full", 1, 2227, 4444, 1, 2214, 0},
                                           Expected{"llama_deep", 6, 1869, 13139, 1, 11202, 0},
                                           Expected{"llama_decode_quick", 80, 556, 46066, 66, 44320, 1},
                                           Expected{"zoo/gpt2_infer", 22, 732, 17066, 15, 16060, 3},
                                           Expected{"zoo/gpt2_compile_train", 14, 732, 11125, 1, 10220, 0}),
                         [](const auto& p) {
                           std::string n = p.param.name;
                           std::replace(n.begin(), n.end(), '/', '_');
                           return n;
                         });

// Instanced metrics: the occupancy-per-barrier-count curve of the first saxpy launch, every
// instance (barriers per block, % occupancy), and its value of the whole, their sum.
TEST(NcuRepInstances, OccupancyCurveOfTheFirstLaunch) {
  std::vector<std::pair<uint64_t, uint64_t>> curve;
  double whole = 0;
  size_t total = 0;
  auto read = import::ncu::ReadRep(Report("tiny_cuda_basic"), [&](const RepLaunch& l) {
    for (const auto& m : l.metrics) total += m.instances.size();
    if (l.id != 0) return Status::Ok();
    const auto* m = l.Find("derived__pct_occupancy_per_barrier_count");
    if (m == nullptr) return Status(Error{"", "no occupancy curve", ""});
    whole = m->value.number();
    for (const auto& i : m->instances) curve.emplace_back(i.key.u, i.value.u);
    return Status::Ok();
  });
  ASSERT_TRUE(read.ok()) << read.error().Line();
  std::vector<std::pair<uint64_t, uint64_t>> want;
  const std::vector<uint64_t> pct{100, 100, 100, 100, 100, 100, 100, 100, 100, 87, 75, 62, 62, 50, 50, 50, 50,
                                  37,  37,  37,  37,  37,  25,  25,  25,  25,  25, 25, 25, 25, 25, 25, 25};
  for (uint64_t b = 0; b <= 64; ++b) want.emplace_back(b, b < pct.size() ? pct[b] : 12);
  EXPECT_EQ(curve, want);
  EXPECT_EQ(whole, 2230.0);
  EXPECT_EQ(total, 16245U);  // instance values in the whole report
}

// The details page's rule findings, from the report alone: every message of every rule of
// every launch, its type, its text as the page renders ncu's markup, and the estimated
// speedup as the page prints it (four significant digits).
class NcuRepRules : public ::testing::TestWithParam<std::pair<std::string, size_t>> {};

TEST_P(NcuRepRules, EqualTheDetailsPage) {
  const auto& [name, count] = GetParam();
  using Row = std::vector<std::string>;
  std::vector<Row> mine, page;
  auto read = import::ncu::ReadRep(Report(name), [&](const RepLaunch& l) {
    for (const auto& r : l.rules) {
      mine.push_back({std::to_string(l.id), std::string(r.section), std::string(r.rule), r.type, r.text, r.speedup_type,
                      r.speedup ? fmt::format("{:.4g}", *r.speedup) : ""});
    }
    return Status::Ok();
  });
  ASSERT_TRUE(read.ok()) << read.error().Line();
  const auto rows = ReadCsv(kNcu + name + "_details.csv");
  const auto& h = rows[0];
  auto col = [&](const char* n) { return static_cast<size_t>(std::find(h.begin(), h.end(), n) - h.begin()); };
  const size_t id = col("ID"), section = col("Section Name"), rule = col("Rule Name"), type = col("Rule Type"),
               text = col("Rule Description"), speedup_type = col("Estimated Speedup Type"),
               speedup = col("Estimated Speedup");
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    if (r.size() <= speedup || r[rule].empty()) continue;
    page.push_back({r[id], r[section], r[rule], r[type], r[text], r[speedup_type], r[speedup]});
  }
  std::sort(mine.begin(), mine.end());
  std::sort(page.begin(), page.end());
  EXPECT_EQ(page.size(), count);
  EXPECT_EQ(mine, page);
}

INSTANTIATE_TEST_SUITE_P(Devset, NcuRepRules,
                         ::testing::Values(std::pair<std::string, size_t>{"tiny_cuda_basic", 18},
                                           std::pair<std::string, size_t>{"tiny_cuda_gemm_full", 8},
                                           std::pair<std::string, size_t>{"llama_deep", 73}),
                         [](const auto& p) { return p.param.first; });

// What the report says about the run: the GPU, ncu's version and CUDA's, in the manifest.
TEST(NcuRepManifest, GpuAndVersionsFromTheSession) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  auto out = import::ImportFiles(*s, {Report("llama_deep")}, {});
  ASSERT_TRUE(out.ok()) << out.error().Line();
  auto run = s->GetRun(out->front().run_id);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->manifest.gpu, "NVIDIA H200");
  EXPECT_EQ(run->manifest.ncu_version, "2025.3.1.0");
  EXPECT_EQ(run->manifest.cuda_version, "13.0");
}

// Added to the nsys run of the same workload, the report's launches link to the same nsys
// kernels as its raw page's do (by name, shape and NVTX range: the report's full demangled
// names match nsys's as well as the page's shortened ones).
TEST(NcuRepLinks, SameNsysKernelsAsThePage) {
  auto links = [](const std::string& ncu_file) {
    auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
    EXPECT_TRUE(s.ok());
    auto nsys = import::ImportFiles(*s, {std::string(KSCOPE_TEST_DATA_DIR) + "/nsys/llama.sqlite"}, {});
    EXPECT_TRUE(nsys.ok());
    import::ImportOptions into;
    into.into_run = nsys->front().run_id;
    auto ncu = import::ImportFiles(*s, {ncu_file}, into);
    EXPECT_TRUE(ncu.ok()) << ncu.error().Line();
    std::vector<std::optional<int64_t>> out;
    auto launches = analysis::LoadNcuLaunches(*s, into.into_run);
    EXPECT_TRUE(launches.ok());
    for (const auto& l : *launches) out.push_back(l.kernel_index);
    return out;
  };
  const auto native = links(Report("llama_decode_quick"));
  ASSERT_EQ(native.size(), 80U);
  EXPECT_EQ(std::count(native.begin(), native.end(), std::nullopt), 0);
  EXPECT_EQ(native, links(kNcu + "llama_decode_quick_raw.csv"));
}

std::vector<analysis::NcuLaunch> Imported(const std::string& file) {
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  EXPECT_TRUE(s.ok());
  auto out = import::ImportFiles(*s, {file}, {});
  EXPECT_TRUE(out.ok()) << out.error().Line();
  if (!out.ok()) return {};
  auto launches = analysis::LoadNcuLaunches(*s, out->front().run_id);
  EXPECT_TRUE(launches.ok());
  return launches.ok() ? *launches : std::vector<analysis::NcuLaunch>{};
}

// Each launch's figures as the native importer derives them while writing the metrics
// (LaunchFiguresBuilder, on a thread of its own) equal the figures derived again from the
// stored metrics, as every other import derives them.
TEST_P(NcuRep, FiguresDerivedBesideTheImportEqualThoseFromTheStore) {
  const Expected& e = GetParam();
  auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
  ASSERT_TRUE(s.ok());
  auto run = s->CreateRun({});
  ASSERT_TRUE(run.ok());
  store::SourceFile file;
  file.path = Report(e.name);
  file.format = "ncu-rep";
  auto source = s->AddSourceFile(*run, file);
  ASSERT_TRUE(source.ok()) << source.error().Line();
  analysis::NsysFacts facts;
  import::ncu::NcuRepImporter importer;
  auto imported = importer.Import(Report(e.name), import::ImportTarget{*s, *run, *source, facts, 0});
  ASSERT_TRUE(imported.ok()) << imported.error().Line();
  ASSERT_TRUE(imported->launch_figures.has_value());
  const auto& beside = *imported->launch_figures;
  ASSERT_TRUE(analysis::MaterializeLaunchFigures(*s, *run).ok());
  std::vector<analysis::StoredLaunch> from_store;
  auto reader = analysis::StoredLaunchReader::Open(*s);
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE(reader->ForEach(*run, [&](const analysis::StoredLaunch& l) { from_store.push_back(l); }).ok());
  ASSERT_EQ(beside.size(), e.launches);
  ASSERT_EQ(from_store.size(), e.launches);
  size_t with_throughput = 0;
  for (size_t i = 0; i < beside.size(); ++i) {
    EXPECT_EQ(beside[i].first, from_store[i].launch_id);
    EXPECT_TRUE(beside[i].second == from_store[i].figures) << e.name << " launch " << i;
    with_throughput += beside[i].second.class_figures.sm_pct.has_value() ? 1 : 0;
  }
  EXPECT_EQ(with_throughput, e.launches) << "launches without figures would compare nothing";
}

// `kscope import R.ncu-rep` stores what importing ncu's raw page of R stores: the same
// launches, and every metric with the same unit and text, and its value to within the
// page's rounding (six decimals in the printed unit, two for unitless fractions).
TEST_P(NcuRep, ImportStoresWhatThePageImportStores) {
  const Expected& e = GetParam();
  const std::string page = RawPage(e.name);
  const auto native = Imported(Report(e.name));
  const auto csv = Imported(page);
  ASSERT_EQ(native.size(), e.launches);
  ASSERT_EQ(csv.size(), e.launches);
  const auto rows = ReadCsv(page);
  std::map<std::string, double> tolerance;  // per metric, in its base unit
  for (size_t col = 11; col < rows[0].size(); ++col) {
    const auto unit = import::ncu::NormalizeUnit(rows[1][col]);
    tolerance[rows[0][col]] = rows[1][col].empty() ? 0.005 : 0.5e-6 * unit.factor;
  }
  size_t compared = 0;
  std::vector<std::string> wrong;
  for (size_t i = 0; i < csv.size(); ++i) {
    const auto& n = native[i];
    const auto& c = csv[i];
    EXPECT_EQ(n.key.ncu_id, c.key.ncu_id);
    EXPECT_EQ(n.key.pid, c.key.pid);
    EXPECT_EQ(n.key.process, c.key.process);
    EXPECT_EQ(n.key.host, c.key.host);
    EXPECT_EQ(n.key.context, c.key.context);
    EXPECT_EQ(n.key.stream, c.key.stream);
    EXPECT_EQ(n.key.device, c.key.device);
    EXPECT_EQ(n.key.cc, c.key.cc);
    EXPECT_EQ(n.key.grid, c.key.grid);
    EXPECT_EQ(n.key.block, c.key.block);
    EXPECT_EQ(n.key.nvtx, c.key.nvtx);
    for (const auto& [name, want] : c.metrics) {
      // ncu prints this one per Kbyte with the value divided by 1,000 (docs/ncu-rep.md).
      if (name == "derived__pct_occupancy_per_shared_mem_size") continue;
      ++compared;
      auto it = n.metrics.find(name);
      if (it == n.metrics.end()) {
        if (want.number || !want.text.empty()) wrong.push_back(name + " missing");
        continue;
      }
      const auto& got = it->second;
      const bool same_number =
          got.number.has_value() == want.number.has_value() &&
          (!want.number || std::fabs(*got.number - *want.number) <= tolerance[name] + 1e-12 * std::fabs(*want.number));
      if (!same_number || got.text != want.text || (got.unit != want.unit && !UnitVaries(name))) {
        if (wrong.size() < 20) {
          wrong.push_back(fmt::format("{} of launch {}: {} {} \"{}\" vs the page's {} {} \"{}\"", name, i,
                                      got.number.value_or(-1), got.unit, got.text, want.number.value_or(-1), want.unit,
                                      want.text));
        }
      }
    }
  }
  EXPECT_TRUE(wrong.empty()) << ::testing::PrintToString(wrong);
  EXPECT_EQ(compared, e.stored);
}

}  // namespace
}  // namespace kscope
