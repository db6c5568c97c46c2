#include "analysis/stage_mfu.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/ncu_launches.h"
#include "analysis/peaks.h"
#include "analysis/roofline.h"
#include "store/event_reader.h"
#include "store/event_streams.h"

namespace kscope::analysis {

namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// FLOPs of the model in a stage, when the configuration describes it.
std::optional<double> AnalyticFlops(const config::ModelConfig& m, const std::string& stage, double& params) {
  auto tokens = m.stage_tokens.find(stage);
  if (tokens == m.stage_tokens.end() || tokens->second <= 0) return std::nullopt;
  params = m.params;
  if (params <= 0) {
    if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 || m.intermediate <= 0) return std::nullopt;
    const double h = static_cast<double>(m.hidden);
    const double kv = static_cast<double>(m.kv_heads > 0 ? m.kv_heads : m.heads) * h / static_cast<double>(m.heads);
    const double layer = 2 * h * h + 2 * h * kv + 3 * h * static_cast<double>(m.intermediate);
    params = static_cast<double>(m.layers) * layer + h * static_cast<double>(m.vocab);
  }
  const auto ctx = m.stage_context.find(stage);
  const double context = ctx == m.stage_context.end() ? 0 : static_cast<double>(ctx->second);
  const double t = static_cast<double>(tokens->second);
  return 2 * params * t + 4 * static_cast<double>(m.layers) * static_cast<double>(m.hidden) * context * t;
}

double BytesPerParam(const std::string& dtype) {
  if (dtype == "fp8") return 1;
  if (dtype == "fp32" || dtype == "tf32") return 4;
  return 2;
}

}  // namespace

Result<std::vector<KernelRowInfo>> LoadKernelRows(store::Store& store, int64_t timeline_run, const NsysEvents* events) {
  namespace k = store::kernel;
  std::vector<int> cols{k::kGridX, k::kGridY, k::kGridZ, k::kBlockX, k::kBlockY, k::kBlockZ};
  if (events == nullptr) cols.insert(cols.end(), {k::kStart, k::kEnd, k::kName});
  auto c = store::ReadColumns(store.db(), timeline_run, store::kKernelStream, cols);
  if (!c.ok()) return c.error();
  const std::vector<int64_t>& start = events != nullptr ? events->kernels.start : (*c)[6];
  const std::vector<int64_t>& end = events != nullptr ? events->kernels.end : (*c)[7];
  const std::vector<int64_t>& name = events != nullptr ? events->kernels.name : (*c)[8];
  std::vector<KernelRowInfo> rows((*c)[0].size());
  if (start.size() != rows.size()) return Error{"", "kernel columns of one run differ in length", "re-import the run"};
  for (size_t r = 0; r < rows.size(); ++r) {
    rows[r].ns = end[r] - start[r];
    rows[r].config.first = name[r];
    for (size_t d = 0; d < 6; ++d) rows[r].config.second[d] = (*c)[d][r];
  }
  return rows;
}

ProfiledWork GatherProfiledWork(const std::vector<NcuLaunch>& launches, int64_t timeline_run,
                                const std::vector<KernelRowInfo>& rows) {
  ProfiledWork w;
  std::map<ConfigKey, std::vector<std::pair<const NcuLaunch*, Roofline>>> by_config;
  std::map<std::string, std::vector<double>> peaks;
  std::vector<double> bandwidths, clocks;
  for (const auto& l : launches) {
    if (!l.kernel_index || l.kernel_run != timeline_run) continue;
    const auto row = static_cast<size_t>(*l.kernel_index);
    if (row >= rows.size()) continue;
    Roofline roof = ComputeRoofline(l);
    for (const auto& p : roof.points) peaks[std::string(p.precision)].push_back(p.peak_flops);
    if (!roof.points.empty()) bandwidths.push_back(roof.points.front().peak_dram_bytes_per_s);
    if (auto hz = l.Number("sm__cycles_elapsed.avg.per_second")) clocks.push_back(*hz);
    by_config[rows[row].config].emplace_back(&l, std::move(roof));
  }
  for (const auto& [key, ls] : by_config) {
    ProfiledConfig pc;
    pc.launches = static_cast<int64_t>(ls.size());
    double bytes = 0;
    int64_t with_bytes = 0;
    for (const auto& [l, roof] : ls) {
      const double seconds = l->Number("gpu__time_duration.sum").value_or(0) * 1e-9;
      for (const auto& p : roof.points) {
        pc.flops[std::string(p.precision)] += p.achieved_flops * seconds / static_cast<double>(ls.size());
        w.has_flops = true;
      }
      if (auto b = l->Number("dram__bytes.sum")) {
        bytes += *b;
        ++with_bytes;
      } else if (auto bps = l->Number("dram__bytes.sum.per_second")) {
        bytes += *bps * seconds;
        ++with_bytes;
      }
    }
    if (with_bytes > 0) pc.dram_bytes = bytes / static_cast<double>(with_bytes);
    w.configs[key] = std::move(pc);
  }
  for (auto& [precision, v] : peaks) w.peak_flops[precision] = Median(v);
  if (!bandwidths.empty()) w.peak_bandwidth = Median(bandwidths);
  if (!clocks.empty()) w.sm_clock_hz = Median(clocks);
  return w;
}

StageMfu ComputeStageMfu(const Stage& stage, const std::vector<KernelRowInfo>& kernel_rows, const ProfiledWork& work,
                         const config::ModelConfig& model, const std::string& gpu, const std::string& dtype) {
  StageMfu m;
  // Measured: each covered launch gets its configuration's mean work.
  std::map<std::string, double> flops;
  double bytes = 0;
  int64_t covered_ns = 0;
  bool any_bytes = false;
  std::map<ConfigKey, bool> used;
  for (int64_t row : stage.kernel_rows) {
    const auto& info = kernel_rows[static_cast<size_t>(row)];
    auto it = work.configs.find(info.config);
    if (it == work.configs.end()) continue;
    covered_ns += info.ns;
    ++m.extrapolated_launches;
    if (!used[info.config]) {
      used[info.config] = true;
      m.measured_launches += it->second.launches;
    }
    for (const auto& [p, f] : it->second.flops) flops[p] += f;
    if (it->second.dram_bytes) {
      bytes += *it->second.dram_bytes;
      any_bytes = true;
    }
  }
  m.coverage_pct =
      stage.kernel_ns > 0 ? 100.0 * static_cast<double>(covered_ns) / static_cast<double>(stage.kernel_ns) : 0;
  if (work.has_flops && !flops.empty()) {
    double total = 0;
    for (const auto& [p, f] : flops) total += f;
    m.ncu_flops = total;
  }
  double params = 0;
  m.analytic_flops = AnalyticFlops(model, stage.text, params);
  // ncu's count when it covers most of the stage (or there is nothing else); the model's
  // otherwise. Both stay in the result.
  if (m.ncu_flops && (m.coverage_pct >= 50 || !m.analytic_flops)) {
    m.flops = m.ncu_flops;
    m.flops_source = "ncu";
    if (m.coverage_pct < 100) {
      m.notes.push_back(
          fmt::format("FLOPs measured on {} profiled launches, extrapolated to the {} launches of their "
                      "launch configurations in the stage: {:.1f}% of its kernel time; the rest counts 0",
                      m.measured_launches, m.extrapolated_launches, m.coverage_pct));
    }
  } else if (m.analytic_flops) {
    m.flops = m.analytic_flops;
    m.flops_source = "analytic";
    if (m.ncu_flops) {
      m.notes.push_back(
          fmt::format("ncu measured {:.4g} FLOPs on launches covering only {:.1f}% of the kernel time; "
                      "the model's count is used",
                      *m.ncu_flops, m.coverage_pct));
    }
    m.notes.push_back(fmt::format("FLOPs from the model: 2 x {:.4g} matmul parameters x {} tokens, plus attention",
                                  params, model.stage_tokens.at(stage.text)));
  }
  // Whose peak: the model's dtype, else the precision that did the most work.
  if (auto p = PrecisionOfDtype(dtype)) m.precision = *p;
  if (m.precision.empty()) {
    double most = 0;
    for (const auto& [p, f] : flops) {
      if (f > most) most = f, m.precision = p;
    }
  }
  if (!m.precision.empty()) {
    if (auto it = work.peak_flops.find(m.precision); it != work.peak_flops.end()) {
      m.peak_flops_per_s = it->second;
      m.peak_source = "ncu";
      if (work.sm_clock_hz) {
        m.notes.push_back(fmt::format("peak {} from ncu at the {:.2f} GHz SM clock it profiled at", m.precision,
                                      *work.sm_clock_hz / 1e9));
      }
    }
    m.datasheet_peak_flops_per_s = DatasheetFlops(gpu, m.precision);
    if (!m.peak_flops_per_s && m.datasheet_peak_flops_per_s) {
      m.peak_flops_per_s = m.datasheet_peak_flops_per_s;
      m.peak_source = "datasheet";
    }
  }
  const double proj_s = static_cast<double>(stage.proj_ns) * 1e-9;
  const double kernel_s = static_cast<double>(stage.kernel_ns) * 1e-9;
  if (m.flops && proj_s > 0) {
    m.achieved_flops_per_s = *m.flops / proj_s;
    if (m.peak_flops_per_s) {
      m.mfu_pct = 100 * *m.achieved_flops_per_s / *m.peak_flops_per_s;
      if (kernel_s > 0) m.kernel_mfu_pct = 100 * (*m.flops / kernel_s) / *m.peak_flops_per_s;
    }
    if (m.datasheet_peak_flops_per_s)
      m.datasheet_mfu_pct = 100 * *m.achieved_flops_per_s / *m.datasheet_peak_flops_per_s;
  }
  // Bandwidth.
  auto steps = model.stage_steps.find(stage.text);
  const bool analytic_bytes = steps != model.stage_steps.end() && params > 0;
  if (any_bytes && (m.coverage_pct >= 50 || !analytic_bytes)) {
    m.bytes = bytes;
    m.bytes_source = "ncu";
  } else if (analytic_bytes) {
    m.bytes = params * BytesPerParam(dtype) * static_cast<double>(steps->second);
    m.bytes_source = "analytic";
    m.notes.emplace_back("bytes from the model: the matmul weights read once per forward pass");
  }
  if (work.peak_bandwidth) {
    m.peak_bytes_per_s = work.peak_bandwidth;
  } else if (auto ds = FindDatasheetGpu(gpu)) {
    m.peak_bytes_per_s = ds->bandwidth;
  }
  if (m.bytes && proj_s > 0) {
    m.achieved_bytes_per_s = *m.bytes / proj_s;
    if (m.peak_bytes_per_s) m.mbu_pct = 100 * *m.achieved_bytes_per_s / *m.peak_bytes_per_s;
  }
  return m;
}

}  // namespace kscope::analysis
