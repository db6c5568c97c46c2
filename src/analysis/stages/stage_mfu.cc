#include "analysis/stages/stage_mfu.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "analysis/kernels/launch_flops.h"
#include "analysis/kernels/peaks.h"
#include "analysis/kernels/roofline.h"
#include "analysis/names/communication.h"
#include "store/event_reader.h"
#include "store/event_streams.h"

namespace kscope::analysis {

namespace {

// The share of a stage's kernel time ncu's counts must cover to be the headline (the default
// selection's coverage target).
constexpr double kMeasuredEnoughPct = 90;
// Below this share, ncu's count alone is no MFU: it is shown as not measured, with its coverage.
constexpr double kMeasuredAtAllPct = 50;

}  // namespace

namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double BytesPerParam(const std::string& dtype) {
  if (dtype == "fp8") return 1;
  if (dtype == "fp32" || dtype == "tf32") return 4;
  return 2;
}

std::string Ghz(double hz) { return fmt::format("{:.2f} GHz", hz / 1e9); }

// Communication kernels (a collective waiting for its peers) do no model FLOPs: their time is
// left out of the kernel time ncu's FLOP counts must cover.
Status MarkCommunication(store::Store& store, std::vector<KernelRowInfo>& rows) {
  std::vector<int64_t> ids;
  for (const auto& r : rows) ids.push_back(r.config.first);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto names = store.Strings(ids);
  if (!names.ok()) return names.error();
  std::unordered_map<int64_t, bool> waits;
  for (const auto& [id, text] : *names) waits[id] = CommunicationOf(text).has_value();
  for (auto& r : rows) r.communication = waits[r.config.first];
  return Status::Ok();
}

// Which instances the figures are over. In a job of several ranks they pool every rank's
// steady instances: their FLOPs (bytes) over their wall time is the job's FLOPs over the time
// of its GPUs, each against one GPU's peak: the ranks' mean MFU (MBU), weighted by wall time.
std::optional<std::string> SteadyNote(const StageSteady& steady) {
  if (steady.ranks > 1) {
    return fmt::format(
        "over the {} steady instances of {} ranks (each rank's first stages.warmup left out: {} in all): their FLOPs "
        "and bytes over their wall time against one GPU's peak, the ranks' mean weighted by wall time; each rank's "
        "own figures are in the ranks part",
        steady.steady, steady.ranks, steady.warmup);
  }
  if (steady.warmup <= 0) return std::nullopt;
  return fmt::format("over the {} instance{} after the first {} (warm-up; stages.warmup)", steady.steady,
                     steady.steady == 1 ? "" : "s", steady.warmup);
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
  KSCOPE_RETURN_IF_ERROR(MarkCommunication(store, rows));
  return rows;
}

ProfiledWork GatherProfiledWork(const std::vector<NcuLaunch>& launches, int64_t timeline_run,
                                const std::vector<KernelRowInfo>& rows) {
  ProfiledWork w;
  std::map<ConfigKey, std::vector<const NcuLaunch*>> by_config;
  std::map<std::string, std::vector<double>> peaks;
  std::vector<double> bandwidths, clocks;
  for (const auto& l : launches) {
    if (!l.kernel_index || l.kernel_run != timeline_run) continue;
    // A communication kernel's time is mostly waiting for a peer: its counters say nothing of
    // the stage's compute, and it must not choose the precision or its peak.
    if (CommunicationOf(l.key.name)) continue;
    const auto row = static_cast<size_t>(*l.kernel_index);
    if (row >= rows.size()) continue;
    const Roofline roof = ComputeRoofline(l);
    for (const auto& p : roof.points) peaks[std::string(p.precision)].push_back(p.peak_flops);
    if (!roof.points.empty()) bandwidths.push_back(roof.points.front().peak_dram_bytes_per_s);
    if (auto hz = l.Number("sm__cycles_elapsed.avg.per_second")) clocks.push_back(*hz);
    by_config[rows[row].config].push_back(&l);
  }
  for (const auto& [key, ls] : by_config) {
    ProfiledConfig pc;
    pc.launches = static_cast<int64_t>(ls.size());
    double bytes = 0, flop_ns = 0, byte_ns = 0;
    for (const NcuLaunch* l : ls) {
      const auto ns = static_cast<double>(rows[static_cast<size_t>(*l->kernel_index)].ns);
      if (ns <= 0) continue;
      if (HasFlopCounters(*l)) {
        pc.has_flops = true;
        flop_ns += ns;
        for (const auto& [precision, f] : LaunchFlops(*l)) pc.flops_per_ns[precision] += f;
      }
      const double seconds = l->Number("gpu__time_duration.sum").value_or(0) * 1e-9;
      if (auto b = l->Number("dram__bytes.sum")) {
        bytes += *b;
        byte_ns += ns;
      } else if (auto bps = l->Number("dram__bytes.sum.per_second")) {
        bytes += *bps * seconds;
        byte_ns += ns;
      }
    }
    if (pc.has_flops) {
      w.has_flops = true;
      for (auto& [precision, f] : pc.flops_per_ns) f /= flop_ns;
    }
    if (byte_ns > 0) pc.dram_bytes_per_ns = bytes / byte_ns;
    w.configs[key] = std::move(pc);
  }
  for (auto& [precision, v] : peaks) w.peak_flops[precision] = Median(v);
  if (!bandwidths.empty()) w.peak_bandwidth = Median(bandwidths);
  if (!clocks.empty()) w.sm_clock_hz = Median(clocks);
  return w;
}

StageMfu ComputeStageMfu(const Stage& stage, const StageSteady& steady, const std::vector<KernelRowInfo>& kernel_rows,
                         const ProfiledWork& work, const std::optional<ModelShape>& model_shape,
                         const ModelOptions& model, const std::string& gpu, const std::string& dtype) {
  StageMfu m;
  m.instances = steady.steady;
  if (m.instances <= 0) return m;
  const double n = static_cast<double>(m.instances);
  m.wall_ns = static_cast<double>(steady.wall_ns) / n;
  m.kernel_ns = static_cast<double>(steady.kernel_ns) / n;
  if (auto note = SteadyNote(steady)) m.notes.push_back(*note);

  // Measured: each launch of a profiled configuration in a steady instance gets its mean work.
  double bytes = 0, covered_ns = 0, steady_kernel_ns = 0;
  bool any_bytes = false;
  std::map<ConfigKey, bool> used;
  for (size_t k = 0; k < stage.kernel_rows.size(); ++k) {
    if (!steady.counted[static_cast<size_t>(stage.kernel_instance[k])]) continue;
    const auto& info = kernel_rows[static_cast<size_t>(stage.kernel_rows[k])];
    if (!info.communication) steady_kernel_ns += static_cast<double>(info.ns);
    auto it = work.configs.find(info.config);
    if (it == work.configs.end()) continue;
    const auto ns = static_cast<double>(info.ns);
    if (it->second.dram_bytes_per_ns) {
      bytes += *it->second.dram_bytes_per_ns * ns;
      any_bytes = true;
    }
    if (!it->second.has_flops) continue;
    covered_ns += ns;
    ++m.extrapolated_launches;
    if (!used[info.config]) {
      used[info.config] = true;
      m.measured_launches += it->second.launches;
    }
    for (const auto& [p, rate] : it->second.flops_per_ns) m.measured_by_precision[p] += rate * ns / n;
  }
  m.coverage_pct = steady_kernel_ns > 0 ? 100.0 * covered_ns / steady_kernel_ns : 0;
  if (m.extrapolated_launches > 0) {
    double total = 0;
    for (const auto& [p, f] : m.measured_by_precision) total += f;
    m.measured_flops = total;
  }

  // Whose peak: the model's dtype, else the precision that did the most work.
  std::string precision = PrecisionOfDtype(dtype).value_or("");
  if (precision.empty()) {
    double most = 0;
    for (const auto& [p, f] : m.measured_by_precision) {
      if (f > most) most = f, precision = p;
    }
  }
  if (!precision.empty()) {
    std::optional<double> per_cycle;
    if (auto it = work.peak_flops.find(precision); it != work.peak_flops.end() && work.sm_clock_hz) {
      m.ncu_peak = StagePeak{precision, it->second, "ncu", work.sm_clock_hz};
      per_cycle = it->second / *work.sm_clock_hz;
    }
    if (auto ds = DatasheetFlops(gpu, precision)) {
      std::optional<double> clock;
      if (per_cycle && *per_cycle > 0) clock = *ds / *per_cycle;  // the clock the figure implies
      const auto entry = FindDatasheetGpu(gpu);
      m.peak = StagePeak{precision, *ds, "datasheet " + std::string(entry ? entry->name : gpu), clock};
    } else if (m.ncu_peak) {
      m.peak = m.ncu_peak;
    }
  }
  if (m.peak) {
    std::string about =
        fmt::format("{} dense peak {:.1f} TFLOP/s ({}", m.peak->precision, m.peak->flops_per_s / 1e12, m.peak->source);
    if (m.peak->clock_hz) about += ", at " + Ghz(*m.peak->clock_hz);
    about += ")";
    if (m.ncu_peak && m.ncu_peak->source != m.peak->source) {
      about += fmt::format("; ncu's at the {} it profiled at: {:.1f} TFLOP/s", Ghz(*m.ncu_peak->clock_hz),
                           m.ncu_peak->flops_per_s / 1e12);
    }
    m.notes.push_back(about);
  }

  auto line = [&](std::string name, std::string formula, double flops) {
    MfuLine l{std::move(name), std::move(formula), flops, std::nullopt, std::nullopt};
    if (m.wall_ns > 0) l.flops_per_s = flops / (m.wall_ns * 1e-9);
    if (l.flops_per_s && m.peak) l.mfu_pct = 100 * *l.flops_per_s / m.peak->flops_per_s;
    m.lines.push_back(std::move(l));
  };
  if (m.measured_flops) {
    line("measured (ncu)",
         fmt::format("hardware FLOPs counted by ncu on {} profiled launches, credited by duration to {} launches of "
                     "their launch configurations ({:.1f}% of the compute kernel time)",
                     m.measured_launches, m.extrapolated_launches, m.coverage_pct),
         *m.measured_flops);
  }
  if (model_shape) {
    for (const auto& f : StageModelFlops(*model_shape, model, stage.text)) line(f.name, f.formula, f.flops);
  }
  // The headline: ncu's count when it covers the kernel time as the default selection does
  // (kMeasuredEnoughPct) or the model gives none; else the model's with attention (PaLM's
  // convention), else its plain count. Half the time is not enough: on the zoo's decoder the
  // prefill's profiled half held none of its GEMMs, and ncu's count was 1/200 of the model's.
  const MfuLine* headline = nullptr;
  const bool measured_enough = m.measured_flops && (m.coverage_pct >= kMeasuredEnoughPct ||
                                                    (m.lines.size() == 1 && m.coverage_pct >= kMeasuredAtAllPct));
  if (m.measured_flops && m.lines.size() == 1 && !measured_enough) {
    m.lines.front().mfu_pct.reset();
    m.mfu_source = "not measured";
    m.notes.push_back(
        fmt::format("MFU not measured: ncu's FLOP counts cover only {:.4g}% of the compute kernel time (at "
                    "least {:.0f}% needed) and no model description gives a count",
                    m.coverage_pct, kMeasuredAtAllPct));
  }
  if (measured_enough) {
    headline = &m.lines.front();
    m.mfu_source = "ncu";
  } else if (m.lines.size() > (m.measured_flops ? 1U : 0U)) {
    const size_t first_model = m.measured_flops ? 1 : 0;
    headline = &m.lines[first_model];
    if (m.lines.size() > first_model + 1) headline = &m.lines[first_model + 1];  // N + attention
    m.mfu_source = "model";
    if (m.measured_flops) {
      m.notes.push_back(
          fmt::format("ncu's FLOPs cover only {:.1f}% of the compute kernel time: the headline MFU is the "
                      "model's ({})",
                      m.coverage_pct, headline->name));
    }
  }
  if (headline != nullptr) {
    m.mfu_pct = headline->mfu_pct;
    m.mfu_line = headline->name;
    if (m.kernel_ns > 0 && m.peak) {
      m.kernel_mfu_pct = 100 * (headline->flops / (m.kernel_ns * 1e-9)) / m.peak->flops_per_s;
    }
  }
  if (m.measured_flops && m.coverage_pct < 100 && m.mfu_source == "ncu") {
    m.notes.push_back(
        fmt::format("measured FLOPs cover {:.1f}% of the compute kernel time; the rest counts 0", m.coverage_pct));
  }

  // Bandwidth.
  auto steps = model.stage_steps.find(stage.text);
  const bool model_bytes = steps != model.stage_steps.end() && model_shape && model_shape->params > 0;
  if (any_bytes && (m.coverage_pct >= kMeasuredEnoughPct || !model_bytes)) {
    m.bytes = bytes / n;
    m.bytes_source = "ncu";
  } else if (model_bytes) {
    m.bytes = model_shape->params * BytesPerParam(dtype) * static_cast<double>(steps->second);
    m.bytes_source = "model";
    m.notes.emplace_back("bytes from the model: the matmul weights read once per forward pass");
  }
  if (work.peak_bandwidth) {
    m.peak_bytes_per_s = work.peak_bandwidth;
  } else if (auto ds = FindDatasheetGpu(gpu)) {
    m.peak_bytes_per_s = ds->bandwidth;
  }
  if (m.bytes && m.wall_ns > 0) {
    m.achieved_bytes_per_s = *m.bytes / (m.wall_ns * 1e-9);
    if (m.peak_bytes_per_s) m.mbu_pct = 100 * *m.achieved_bytes_per_s / *m.peak_bytes_per_s;
  }
  return m;
}

}  // namespace kscope::analysis
