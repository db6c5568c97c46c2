// Systemic signals: patterns that hold for whole families, each with the metrics it rests on,
// the families, models and GPU time that show it, or "not enough data" where no launch of the
// selection has the metrics.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "analysis/atlas/parts.h"

namespace kscope::analysis::atlas {

namespace {

enum Kind { kMemoryL2 = 0, kMatmulTensor, kRegisters, kLaunchBound, kKinds };

// A family whose name says it multiplies matrices: GEMMs, GEMVs, convolutions, attention.
bool MatmulLike(const std::string& family) {
  for (const char* word : {"gemm", "gemv", "conv", "sdpa", "flash", "attention", "matmul", "mma"}) {
    if (family.find(word) != std::string::npos) return true;
  }
  return false;
}

// A signal's description, before any launch is counted: not enough data.
Signal Describe(std::string id, std::string title, std::vector<std::string> metrics, std::string rule,
                std::string detail_name, std::string advice) {
  Signal s;
  s.id = std::move(id);
  s.title = std::move(title);
  s.metrics = std::move(metrics);
  s.rule = std::move(rule);
  s.detail_name = std::move(detail_name);
  s.advice = std::move(advice);
  return s;
}

struct Tally {
  int64_t launches = 0, matching = 0;
  RunsAndModels models;        // of the matching launches
  std::vector<double> detail;  // the pattern's figure over the matching launches
};

}  // namespace

std::string_view SignalStateName(SignalState s) {
  return s == SignalState::kFound ? "found" : s == SignalState::kNotFound ? "not found" : "not enough data";
}

struct SignalsTally::Family {
  std::string library;
  Tally kinds[kKinds];
  std::vector<double> waves;  // launch__waves_per_multiprocessor of its profiled launches
};

void SignalsTally::Add(const ProfiledLaunch& l) {
  Family* found = by_name_.Find(l.name_index);
  if (found == nullptr) {
    auto& ptr = families_[l.identity.family];
    if (!ptr) {
      ptr = std::make_shared<Family>();
      ptr->library = std::string(LibraryName(l.identity.library));
    }
    found = ptr.get();
    by_name_.Set(l.name_index, found);
  }
  auto& f = *found;
  const auto& e = l.launch.figures;
  const auto& c = config_.classify;
  auto count = [&](Kind k, bool match, double detail) {
    auto& t = f.kinds[k];
    ++t.launches;
    if (!match) return;
    ++t.matching;
    t.models.Add(l);
    t.detail.push_back(detail);
  };
  const auto& dram = e.class_figures.dram_pct;
  const auto& l2_hit = e.class_figures.l2_hit_pct;
  const auto& sm = e.class_figures.sm_pct;
  if (dram && l2_hit) count(kMemoryL2, *dram >= c.busy_pct && *l2_hit < c.low_l2_hit_pct, *l2_hit);
  if (MatmulLike(l.identity.family)) {
    const auto& tensor = e.tensor_pipe_pct;
    const auto& roof_memory_bound = e.roof_memory_bound;  // set where the launch has a roofline point
    if (tensor && (sm || roof_memory_bound)) {
      // Compute-bound needs a busy SM where it was measured: the roofline's compute side alone (high
      // arithmetic intensity) fires on kernels that run at a few % of SM throughput.
      const bool compute_bound = sm ? *sm >= c.busy_pct : (roof_memory_bound && !*roof_memory_bound);
      count(kMatmulTensor, compute_bound && *tensor < config_.atlas.low_tensor_pct, *tensor);
    }
  }
  if (!e.occupancy_limiter.empty() && e.theoretical_occupancy_pct) {
    count(kRegisters,
          e.occupancy_limiter == "registers" && *e.theoretical_occupancy_pct < config_.atlas.register_occupancy_pct &&
              !RegistersByDesign(l.identity.library),
          *e.theoretical_occupancy_pct);
  }
  if (e.class_figures.waves) f.waves.push_back(*e.class_figures.waves);
}

void SignalsTally::Finish(const NsysFacts& facts, Atlas& atlas) {
  const auto& c = config_.classify;
  const auto& t = config_.atlas;
  // nsys per family: GPU time, launches, runs and models that launch it.
  struct Nsys {
    int64_t ns = 0, launches = 0;
    std::set<std::string> models;
    std::string library;
  };
  std::map<std::string, Nsys> nsys;
  for (const auto& p : atlas.popularity) {
    auto& n = nsys[p.family];
    n.ns += p.gpu_time_ns;
    n.launches += p.launches;
    n.library = p.library;
    for (const auto& [model, share] : p.share_pct) n.models.insert(model);
  }
  int64_t all_ns = 0;
  for (const auto& r : atlas.runs) all_ns += r.kernel_ns;

  std::vector<Signal> signals(kKinds);
  signals[kMemoryL2] = Describe(
      "memory_low_l2_hit", "memory-bound with a low L2 hit rate",
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed (or gpu__dram_throughput)", "lts__t_sector_hit_rate.pct"},
      fmt::format("DRAM throughput >= {:g}% of peak (classify.busy_pct) and L2 hit rate < {:g}% "
                  "(classify.low_l2_hit_pct)",
                  c.busy_pct, c.low_l2_hit_pct),
      "median L2 hit %",
      "the data misses in L2 and streams from DRAM: fuse the producer with its consumer, tile for "
      "reuse, or fix strided and gathered accesses");
  signals[kMatmulTensor] = Describe(
      "matmul_low_tensor", "matmul-like kernels compute-bound with low tensor-pipe use",
      {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active (or _elapsed)",
       "sm__throughput.avg.pct_of_peak_sustained_elapsed or the roofline's metrics (ncu.flops)"},
      fmt::format("a GEMM, GEMV, convolution or attention family; SM throughput >= {:g}% (classify.busy_pct), or on "
                  "the roofline's compute side where SM throughput was not measured; tensor pipe active < {:g}% "
                  "(atlas.low_tensor_pct)",
                  c.busy_pct, t.low_tensor_pct),
      "median tensor pipe %",
      "the math runs outside the tensor cores: check the dtype reaches them (fp32 without TF32, unaligned shapes) "
      "and small-K or skinny GEMMs that the library serves with a SIMT kernel");
  signals[kRegisters] =
      Describe("register_limited_occupancy", "occupancy limited by registers",
               {"launch__occupancy_limit_registers (against the other launch__occupancy_limit_*)",
                "sm__maximum_warps_per_active_cycle_pct"},
               fmt::format("registers allow the fewest blocks per SM and theoretical occupancy < {:g}% "
                           "(atlas.register_occupancy_pct); not for cuBLAS, CUTLASS, cuDNN or FlashAttention "
                           "kernels, whose register use is by design",
                           t.register_occupancy_pct),
               "median theoretical occupancy %",
               "register pressure caps the warps per SM: __launch_bounds__ or -maxrregcount, smaller tiles, "
               "or a library variant that uses fewer registers");
  signals[kLaunchBound] = Describe(
      "launch_bound", "launch-bound: tiny kernels launched many times",
      {"nsys kernel summary (launches, summed duration)",
       "launch__waves_per_multiprocessor where profiled (evidence: how small the grids are)"},
      fmt::format("at least {:g} launches per run (atlas.many_launches) averaging under {:g} us (classify.launch_us)",
                  t.many_launches, c.launch_us),
      "mean duration (us)",
      "each launch costs more to issue than to run: fuse the kernels (torch.compile, fused or foreach optimizers) "
      "or capture the step in a CUDA graph");

  auto finish = [&](Signal& s, std::vector<SignalFamily> flagged) {
    std::stable_sort(flagged.begin(), flagged.end(),
                     [](const SignalFamily& a, const SignalFamily& b) { return a.gpu_time_ns > b.gpu_time_ns; });
    std::set<std::string> models;
    int64_t ns = 0;
    for (const auto& f : flagged) {
      models.insert(f.models.begin(), f.models.end());
      ns += f.gpu_time_ns;
    }
    s.models.assign(models.begin(), models.end());
    s.gpu_time_pct = all_ns > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(all_ns) : 0;
    s.state = s.families_with_data == 0 ? SignalState::kNotEnoughData
              : flagged.empty()         ? SignalState::kNotFound
                                        : SignalState::kFound;
    s.families = std::move(flagged);
  };

  for (int k = kMemoryL2; k < kLaunchBound; ++k) {
    std::vector<SignalFamily> flagged;
    for (const auto& [family, ptr] : families_) {
      const Tally& tally = ptr->kinds[k];
      if (tally.launches == 0) continue;
      ++signals[k].families_with_data;
      const double share = 100.0 * static_cast<double>(tally.matching) / static_cast<double>(tally.launches);
      if (tally.matching == 0 || share < t.signal_share_pct) continue;
      auto n = nsys.find(family);
      flagged.push_back({family, ptr->library, tally.launches, tally.matching, tally.models.ModelNames(atlas),
                         n != nsys.end() ? n->second.ns : 0, SpreadOf(tally.detail).median, std::nullopt});
    }
    finish(signals[k], std::move(flagged));
  }

  std::vector<SignalFamily> flagged;
  for (const auto& [family, n] : nsys) {
    if (n.launches == 0) continue;
    ++signals[kLaunchBound].families_with_data;
    const double runs = static_cast<double>(facts.family_runs.at(family));
    const double mean_us = static_cast<double>(n.ns) / static_cast<double>(n.launches) / 1000.0;
    if (static_cast<double>(n.launches) < t.many_launches * runs || mean_us >= c.launch_us) continue;
    SignalFamily f;
    f.family = family;
    f.library = n.library;
    f.launches = f.matching = n.launches;
    f.models.assign(n.models.begin(), n.models.end());
    f.gpu_time_ns = n.ns;
    f.detail = mean_us;
    if (auto p = families_.find(family); p != families_.end() && !p->second->waves.empty()) {
      f.median_waves = SpreadOf(p->second->waves).median;
    }
    flagged.push_back(std::move(f));
  }
  finish(signals[kLaunchBound], std::move(flagged));
  atlas.signals = std::move(signals);
}

}  // namespace kscope::analysis::atlas
