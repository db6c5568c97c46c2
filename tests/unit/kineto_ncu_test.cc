// ncu results on a PyTorch profiler trace run, from what was recorded on the H100
// (tests/data/kineto/decoder_whole.json.gz, record_trace.py whole; ncu_on_trace/: what ncu
// printed and wrote there, docs/kineto/ncu_on_trace.md): `kscope profile --discovery` from the
// trace run plans its ncu pass on function names (a trace has no mangled names) and links what
// ncu profiled to the trace's kernels, and an .ncu-rep imported into the trace run links its
// launches the same way. Every link is checked against the trace's own kernel of that row.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/names/kernel_names.h"
#include "capture/profile.h"
#include "capture/selection.h"
#include "config/config.h"
#include "import/import_files.h"
#include "kineto_support.h"
#include "recorded_runner.h"
#include "report/run_report.h"
#include "test_support.h"

namespace kscope {
namespace {

namespace fs = std::filesystem;

const std::string kAt = std::string(KSCOPE_TEST_DATA_DIR) + "/kineto/ncu_on_trace/";

// The trace's kernels in file order (the kernel stream's rows): name, grid and block.
struct TraceKernel {
  std::string name;
  std::array<int64_t, 6> dims;
};
std::vector<TraceKernel> TraceKernels() {
  std::vector<TraceKernel> out;
  const auto trace = testing::ReadTraceJson("decoder_whole.json.gz");
  for (const auto& e : trace.at("traceEvents")) {
    if (e.value("cat", "") != "kernel") continue;
    const auto& g = e.at("args").at("grid");
    const auto& b = e.at("args").at("block");
    out.push_back({e.at("name"), {g[0], g[1], g[2], b[0], b[1], b[2]}});
  }
  return out;
}

struct Link {
  std::string name;
  std::array<int64_t, 6> dims;
  std::optional<int64_t> kernel_index, kernel_run;
  std::string how;
};
std::vector<Link> Links(store::Store& s, int64_t run) {
  auto q = s.db().Prepare(
      "SELECT string.value, grid_x, grid_y, grid_z, block_x, block_y, block_z, kernel_index, kernel_run, "
      "coalesce(kernel_link, '') FROM ncu_launch JOIN string ON string.id = name_id WHERE run_id = ?1 "
      "ORDER BY ncu_launch.id");
  std::vector<Link> out;
  if (!q.ok()) {
    ADD_FAILURE() << q.error().Line();
    return out;
  }
  q->Bind(1, run);
  while (q->Step()) {
    Link l{q->Text(0), {q->Int(1), q->Int(2), q->Int(3), q->Int(4), q->Int(5), q->Int(6)}, {}, {}, q->Text(9)};
    if (!q->IsNull(7)) l.kernel_index = q->Int(7), l.kernel_run = q->Int(8);
    out.push_back(l);
  }
  return out;
}

// Each launch is linked to trace run `trace_run`'s kernel of the same name (as ncu and Kineto
// spell it) and shape.
void ExpectLinkedToTheTrace(const std::vector<Link>& links, int64_t trace_run) {
  const auto kernels = TraceKernels();
  for (const Link& l : links) {
    ASSERT_TRUE(l.kernel_index.has_value()) << l.name;
    EXPECT_EQ(l.kernel_run, trace_run);
    EXPECT_EQ(l.how, "matched");
    ASSERT_LT(static_cast<size_t>(*l.kernel_index), kernels.size());
    const TraceKernel& k = kernels[static_cast<size_t>(*l.kernel_index)];
    EXPECT_EQ(analysis::KernelMatchKey(k.name), analysis::KernelMatchKey(l.name)) << k.name << " | " << l.name;
    EXPECT_EQ(k.dims, l.dims) << l.name;
  }
}

class NcuOnTraceRun : public ::testing::Test {
 protected:
  void SetUp() override {
    capture::ClearInterrupt();
    dir_ = fs::temp_directory_path() / ("kscope_ncu_on_trace_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
    ASSERT_TRUE(s.ok());
    store_ = std::make_unique<store::Store>(std::move(s).value());
    auto in = import::ImportFiles(*store_, {testing::KinetoData("decoder_whole.json.gz")}, {});
    ASSERT_TRUE(in.ok()) << in.error().Line();
    trace_run_ = in->front().run_id;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Report() {  // the ncu report kscope profile's pass wrote there
    const std::string path = (dir_ / "pass1.ncu-rep").string();
    std::ofstream(path, std::ios::binary) << testing::Unzstd(kAt + "pass1.ncu-rep.zst");
    return path;
  }

  fs::path dir_;
  std::unique_ptr<store::Store> store_;
  int64_t trace_run_ = 0;
};

TEST(NcuFunctionName, AsNcuPrintsTheTracesKernels) {
  EXPECT_EQ(capture::NcuFunctionName("void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, "
                                     "long, long, long, long, bool)"),
            "vectorized_gather_kernel");
  EXPECT_EQ(capture::NcuFunctionName("void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::("
                                     "anonymous namespace)::OpaqueType<4u>, unsigned int, 3, 64, 64>(int)"),
            "CatArrayBatchedCopy");
  EXPECT_EQ(capture::NcuFunctionName("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_"
                                     "simt_sgemm_128x32_8x5_nn_align1::Params)"),
            "Kernel2");
  EXPECT_EQ(capture::NcuFunctionName("nvjet_sm90_tst_8x64_64x16_4x1_v_bz_TNN"),
            "nvjet_sm90_tst_8x64_64x16_4x1_v_bz_TNN");
  // Every function name ncu printed while profiling the same workload is one of the trace's.
  std::set<std::string> names;
  for (const auto& k : TraceKernels()) names.insert(capture::NcuFunctionName(k.name));
  std::ifstream log(kAt + "ncu_direct.log");
  std::string line;
  int64_t seen = 0;
  while (std::getline(log, line)) {
    const size_t at = line.find("==PROF== Profiling \"");
    if (at == std::string::npos) continue;
    const std::string name = line.substr(at + 20, line.find('"', at + 20) - at - 20);
    if (name.ends_with("...")) continue;  // ncu cuts long names in its progress lines
    EXPECT_TRUE(names.contains(name)) << name;
    ++seen;
  }
  EXPECT_GT(seen, 20);
}

// kscope profile --discovery TRACE-RUN: ncu filtered on function names, its launches linked to
// the trace's kernels by name and shape.
TEST_F(NcuOnTraceRun, ProfileFromTheTraceRunLinksWhatNcuProfiled) {
  testing::RecordedRunner runner;
  runner.replies["ncu --version"] = testing::Prints(kAt + "ncu_version.log");
  runner.replies["nvidia-smi"] = testing::Prints(kAt + "nvidia_smi.log");
  runner.replies["python"] = testing::Prints(kAt + "torch_version.log");
  runner.ReplayNcuCatalog();
  runner.replies["ncu profile"] = testing::Writes(kAt + "ncu_pass1.log", kAt + "pass1.ncu-rep.zst");
  std::ostringstream screen;
  capture::ProfileSession session(*store_, runner, {"nsys", "ncu"}, screen, false);
  capture::ProfileRequest req;
  req.discovery_run = trace_run_;
  req.workload = {"python3", "record_trace.py", "whole", "rec2"};
  auto c = config::LoadConfig("", {"profile.runs_dir=" + (dir_ / "runs").string(),
                                   "profile.cache_dir=" + (dir_ / "cache").string(), "selection.top=6"});
  ASSERT_TRUE(c.ok());
  req.config = *c;
  auto result = session.Run(req);
  ASSERT_TRUE(result.ok()) << result.error().Line();

  auto ncu = std::find_if(runner.calls.begin(), runner.calls.end(),
                          [](const auto& call) { return call.first == "ncu profile"; });
  ASSERT_NE(ncu, runner.calls.end());
  const auto& argv = ncu->second;
  auto after = [&](const std::string& flag) {
    auto it = std::find(argv.begin(), argv.end(), flag);
    return it == argv.end() || it + 1 == argv.end() ? std::string() : *(it + 1);
  };
  EXPECT_EQ(after("--kernel-name-base"), "function");
  EXPECT_EQ(after("--kernel-name").substr(0, 30), "regex:^(elementwise_kernel|unr") << after("--kernel-name");

  const auto links = Links(*store_, result->run_id);
  ASSERT_EQ(links.size(), 4u);  // the launches ncu profiled there (its log: four nvjet GEMMs)
  ExpectLinkedToTheTrace(links, trace_run_);
  EXPECT_NE(screen.str().find("4 of its 4 launches were linked"), std::string::npos) << screen.str();
}

// kscope import --run TRACE-RUN REPORT.ncu-rep: the launches linked to the trace's kernels.
TEST_F(NcuOnTraceRun, AReportImportedIntoTheTraceRunLinksItsLaunches) {
  import::ImportOptions opts;
  opts.into_run = trace_run_;
  auto in = import::ImportFiles(*store_, {Report()}, opts);
  ASSERT_TRUE(in.ok()) << in.error().Line();
  const auto links = Links(*store_, trace_run_);
  ASSERT_EQ(links.size(), 4u);
  ExpectLinkedToTheTrace(links, trace_run_);
  auto r = report::BuildRunReport(*store_, trace_run_, config::Config{});
  ASSERT_TRUE(r.ok()) << r.error().Line();
  EXPECT_EQ(r->run.source, "PyTorch profiler trace");
  const int64_t with_verdict = std::count_if(r->top_kernels.begin(), r->top_kernels.end(),
                                             [](const report::TopKernel& k) { return k.verdict.has_value(); });
  EXPECT_GT(with_verdict, 0);
}

}  // namespace
}  // namespace kscope
