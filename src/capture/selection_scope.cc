// SelectKernels' first step: which launches of the discovery run are in scope.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "analysis/names/communication.h"
#include "analysis/stages/stages.h"
#include "analysis/timeline/launch_links.h"
#include "analysis/timeline/nsys_facts.h"
#include "analysis/timeline/ranks.h"
#include "capture/selection_steps.h"
#include "store/column_codec.h"
#include "store/event_reader.h"
#include "store/event_streams.h"
#include "util/closest.h"

namespace kscope::capture::steps {

namespace {

using store::kNull;

bool IsPushPop(int64_t type) { return type == store::nvtx::kPushPop || type == store::nvtx::kNvtxtPushPop; }

struct Stage {
  std::vector<char> in_stage;  // per NVTX row
  std::string nvtx_include;
  std::vector<std::string> notes;
};

// The NVTX rows named by `spec` ("range" in the default domain, or "domain@range" as ncu
// writes it) and the ncu --nvtx-include that gates on them.
Result<Stage> ResolveStage(const std::string& spec, const analysis::NsysEvents& e,
                           const std::unordered_map<int64_t, std::string>& strings) {
  const auto& n = e.nvtx;
  auto text_of = [&](size_t r) {
    auto it = strings.find(n.text[r]);
    return it == strings.end() ? std::string() : it->second;
  };
  auto domain_of = [&](size_t r) {
    auto it = n.domain[r] == kNull ? strings.end() : strings.find(n.domain[r]);
    return it == strings.end() ? std::string() : it->second;
  };
  Stage s;
  s.in_stage.assign(n.start.size(), 0);
  // An exact range name wins; "domain@range" is read as ncu reads it only when no range has
  // the whole spec as its name.
  std::string want_domain, want_text = spec;
  bool exact = false;
  for (size_t r = 0; r < n.start.size() && !exact; ++r) exact = text_of(r) == spec && domain_of(r).empty();
  if (!exact) {
    if (const auto at = spec.find('@'); at != std::string::npos) {
      want_domain = spec.substr(0, at);
      want_text = spec.substr(at + 1);
    }
  }
  bool push_pop = false, start_end = false;
  for (size_t r = 0; r < n.start.size(); ++r) {
    if (text_of(r) != want_text || domain_of(r) != want_domain) continue;
    s.in_stage[r] = 1;
    (IsPushPop(n.event_type[r]) ? push_pop : start_end) = true;
  }
  if (!push_pop && !start_end) {
    std::set<std::string> names;
    for (size_t r = 0; r < n.start.size(); ++r) {
      const std::string d = domain_of(r);
      names.insert(d.empty() ? text_of(r) : d + "@" + text_of(r));
    }
    const std::vector<std::string> all(names.begin(), names.end());
    std::string seen;
    for (const auto& c : Closest(spec, all, 5)) seen += (seen.empty() ? "" : ", ") + std::string("'") + c + "'";
    return Error{"selection.stage", fmt::format("no NVTX range '{}' in the discovery run", spec),
                 all.empty() ? "the workload emits no NVTX ranges (nsys --trace must include nvtx); leave "
                               "selection.stage empty"
                             : "ranges seen: " + seen + " (a range in a named domain is written domain@range)"};
  }
  if (want_text.find('@') != std::string::npos || want_domain.find('@') != std::string::npos) {
    s.notes.push_back(fmt::format(
        "ncu reads '@' in an NVTX filter as domain@range, so the range '{}' cannot be named in --nvtx-include; "
        "ncu is not NVTX-gated: its launch counts run over the whole program, as the discovery run counted them",
        want_text));
  } else if (push_pop && start_end) {
    s.notes.push_back(fmt::format(
        "'{}' is both a push/pop and a start/end range, which ncu filters with different syntax; ncu is not "
        "NVTX-gated: its launch counts run over the whole program, as the discovery run counted them",
        spec));
  } else {
    // push/pop ranges need the trailing '/' in ncu's syntax; start/end ranges must not have it
    s.nvtx_include = (want_domain.empty() ? "" : want_domain + "@") + want_text + (push_pop ? "/" : "");
  }
  return s;
}

// Per kernel stream row: 1 when it was launched (by any thread of the process) inside one of
// the first `warmup` instances of a top-level stage that has more instances than that, as
// the stage figures count warm-up; `names` gets those stages' names.
// In a run of several processes (ranks), a stage's instances are counted per process: each
// rank's first `warmup` instances are its warm-up.
Result<std::vector<char>> WarmupRows(store::Store& store, int64_t run_id, const analysis::NsysEvents& e, int64_t warmup,
                                     bool per_process, std::vector<std::string>& names) {
  std::vector<char> warm(e.kernels.start.size(), 0);
  if (warmup <= 0) return warm;
  auto stages = analysis::ComputeStages(store, run_id, &e);
  if (!stages.ok()) return stages.error();
  for (const auto& st : *stages) {
    if (st.depth != 0 || st.torch_op || st.library) continue;
    bool any = false;
    if (per_process) {
      std::map<int64_t, std::set<int32_t>> instances;  // process -> instances that launched kernels
      for (size_t i = 0; i < st.kernel_rows.size(); ++i) {
        instances[e.kernels.global_pid[static_cast<size_t>(st.kernel_rows[i])]].insert(st.kernel_instance[i]);
      }
      for (size_t i = 0; i < st.kernel_rows.size(); ++i) {
        const auto& mine = instances[e.kernels.global_pid[static_cast<size_t>(st.kernel_rows[i])]];
        if (static_cast<int64_t>(mine.size()) <= warmup) continue;
        if (std::distance(mine.begin(), mine.find(st.kernel_instance[i])) >= warmup) continue;
        warm[static_cast<size_t>(st.kernel_rows[i])] = 1;
        any = true;
      }
    } else {
      if (static_cast<int64_t>(st.instance_list.size()) <= warmup) continue;
      for (size_t i = 0; i < st.kernel_rows.size(); ++i) {
        if (st.kernel_instance[i] >= warmup) continue;
        warm[static_cast<size_t>(st.kernel_rows[i])] = 1;
        any = true;
      }
    }
    if (any) names.push_back(analysis::DisplayName(st));
  }
  return warm;
}

// Ranks: with several processes, only the selected one's launches are in scope, and ncu
// profiles its GPU alone. Per kernel row: 1 when in the selected rank.
Result<std::vector<char>> ChooseRank(const RunColumns& run, int64_t ncu_rank, Selection& sel) {
  const auto& k = run.events.kernels;
  const std::vector<analysis::RunRank> ranks = analysis::FindRanks(k.global_pid, run.device);
  std::vector<char> in_rank(k.start.size(), 1);
  sel.ranks = static_cast<int64_t>(ranks.size());
  if (sel.ranks <= 1) return in_rank;
  if (ncu_rank < 0 || ncu_rank >= sel.ranks) {
    return Error{"profile.ncu_rank",
                 fmt::format("rank {} is not in the discovery run: {} processes launched GPU kernels (ranks 0 to {} "
                             "in process order)",
                             ncu_rank, sel.ranks, sel.ranks - 1),
                 "choose one of them"};
  }
  const auto r = static_cast<size_t>(ncu_rank);
  const int64_t gpid = ranks[r].global_pid;
  sel.rank = ncu_rank;
  sel.rank_pid = ranks[r].pid;
  sel.device = ranks[r].device;
  for (size_t i = 0; i < in_rank.size(); ++i) in_rank[i] = k.global_pid[i] == gpid ? 1 : 0;
  for (size_t o = 0; o < ranks.size(); ++o) {
    if (o != r && ranks[o].device == sel.device) {
      sel.notes.push_back(fmt::format(
          "ranks {} and {} both ran on GPU {} (a CUDA_VISIBLE_DEVICES per rank?): ncu --devices cannot tell them "
          "apart, so ncu profiles the selected kernels of both; the selection and its percentages are rank {}'s",
          sel.rank, o, sel.device, sel.rank));
      break;
    }
  }
  return in_rank;
}

// Per kernel row: 1 for a communication kernel (they wait on peers).
std::vector<char> CommunicationRows(const RunColumns& run) {
  const auto& k = run.events.kernels;
  std::vector<char> is_comm(k.start.size(), 0);
  std::unordered_map<int64_t, char> by_name;
  for (size_t i = 0; i < k.name.size(); ++i) {
    auto [it, added] = by_name.try_emplace(k.name[i], 0);
    if (added) it->second = analysis::CommunicationOf(run.strings.at(k.name[i])) ? 1 : 0;
    is_comm[i] = it->second;
  }
  return is_comm;
}

// The NVTX rows of the stage (empty: no stage) and of the ranges left out, with ncu's gates.
struct NvtxMasks {
  std::vector<char> in_stage, excluded;
};
Result<NvtxMasks> StageAndExclusions(const RunColumns& run, const SelectionOptions& cfg, Selection& sel) {
  NvtxMasks m;
  if (!cfg.stage.empty()) {
    auto stage = ResolveStage(cfg.stage, run.events, run.strings);
    if (!stage.ok()) return stage.error();
    m.in_stage = std::move(stage->in_stage);
    sel.nvtx_include = stage->nvtx_include;
    sel.notes = std::move(stage->notes);
  }
  m.excluded.assign(run.events.nvtx.start.size(), 0);
  for (const auto& name : cfg.exclude) {
    auto stage = ResolveStage(name, run.events, run.strings);
    if (!stage.ok()) {
      Error err = stage.error();
      err.where = "selection.exclude";
      return err;
    }
    if (stage->nvtx_include.empty()) {
      return Error{"selection.exclude", fmt::format("ncu cannot name the NVTX range '{}' in --nvtx-exclude", name),
                   stage->notes.empty() ? "choose another range" : stage->notes.front()};
    }
    for (size_t r = 0; r < m.excluded.size(); ++r) m.excluded[r] |= stage->in_stage[r];
    sel.nvtx_exclude.push_back(stage->nvtx_include);
  }
  return m;
}

// Launch order (the launching call's start; the kernel's own start when unknown), and per
// row whether it is in scope (rank and stage) and not excluded.
std::vector<char> OrderAndScope(const RunColumns& run, const NvtxMasks& m, const std::vector<char>& in_rank,
                                bool staged, std::vector<int64_t>& order_time) {
  const auto& e = run.events;
  const size_t n = e.kernels.start.size();
  order_time.assign(e.kernels.start.begin(), e.kernels.start.end());
  std::vector<char> in_scope(in_rank.begin(), in_rank.end());
  if (staged) std::fill(in_scope.begin(), in_scope.end(), 0);
  std::vector<char> out_of_scope(n, 0);
  for (const auto& link : analysis::LinkLaunches(e, analysis::OpenRangeEnd(e.nvtx))) {
    if (link.op >= n) continue;
    order_time[link.op] = e.api.start[link.api];
    if (link.range < 0) continue;
    const auto r = static_cast<size_t>(link.range);
    if (!m.in_stage.empty() && m.in_stage[r] && in_rank[link.op]) in_scope[link.op] = 1;
    if (m.excluded[r]) out_of_scope[link.op] = 1;
  }
  for (size_t i = 0; i < n; ++i) in_scope[i] = in_scope[i] && !out_of_scope[i];
  return in_scope;
}

// The rows in scope, and of those the steady ones; communication kernels counted aside.
Status SplitSteady(const RunColumns& run, const std::vector<char>& in_scope, const std::vector<char>& is_comm,
                   int64_t warmup_instances, const SelectionOptions& cfg, Scope& s, Selection& sel) {
  const auto& k = run.events.kernels;
  std::set<int64_t> comm_names;
  for (size_t i = 0; i < in_scope.size(); ++i) {
    if (!in_scope[i]) continue;
    const int64_t ns = k.end[i] - k.start[i];
    if (is_comm[i] != 0 && !sel.communication) {
      if (s.warm[i] == 0) {
        comm_names.insert(k.name[i]);
        ++sel.comm_launches;
        sel.comm_ns += ns;
      }
      continue;
    }
    s.all.push_back(static_cast<int64_t>(i));
    if (s.warm[i] != 0) {
      ++sel.warmup_kernels;
      sel.warmup_ns += ns;
    } else {
      s.steady.push_back(static_cast<int64_t>(i));
    }
  }
  if (s.steady.empty()) {  // nothing but warm-up: rank on it all
    s.steady = s.all;
    sel.warmup_kernels = sel.warmup_ns = 0;
    sel.warmup_stages.clear();
  }
  sel.comm_kernels = static_cast<int64_t>(comm_names.size());
  sel.warmup_instances = sel.warmup_stages.empty() ? 0 : warmup_instances;
  if (s.steady.empty() && sel.comm_launches > 0) {
    return Error{"selection", "every GPU kernel in scope is a communication kernel, which ncu does not replay alone",
                 "selection.communication=on profiles them (docs/profile.md: which replay mode works across ranks)"};
  }
  if (s.steady.empty()) {
    return Error{"selection.stage",
                 cfg.stage.empty() ? "every GPU kernel was launched inside the ranges selection.exclude leaves out"
                                   : fmt::format("no GPU kernel was launched inside the NVTX range '{}'", cfg.stage),
                 "choose a range that launches GPU work, or leave selection.stage empty"};
  }
  return Status::Ok();
}

}  // namespace

int64_t RunColumns::Identity(int64_t row) const {
  const auto r = static_cast<size_t>(row);
  return mangled[r] != kNull ? mangled[r] : events.kernels.name[r];
}

Result<RunColumns> LoadRun(store::Store& store, int64_t run_id) {
  RunColumns run;
  auto events = analysis::LoadNsysEvents(store, run_id);
  if (!events.ok()) return events.error();
  run.events = std::move(events).value();
  const auto& k = run.events.kernels;
  if (k.start.empty()) {
    return Error{"", fmt::format("the discovery run {} has no GPU kernels", run_id),
                 "check that the workload uses the GPU and that nsys traced cuda"};
  }
  namespace kc = store::kernel;
  auto cols = store::ReadColumns(store.db(), run_id, store::kKernelStream,
                                 {kc::kMangledName, kc::kDevice, kc::kGridX, kc::kGridY, kc::kGridZ, kc::kBlockX,
                                  kc::kBlockY, kc::kBlockZ, kc::kDynamicSmem});
  if (!cols.ok()) return cols.error();
  run.mangled = std::move((*cols)[0]);
  run.device = std::move((*cols)[1]);
  for (size_t d = 0; d < run.dims.size(); ++d) run.dims[d] = std::move((*cols)[d + 2]);
  std::vector<int64_t> ids(k.name.begin(), k.name.end());
  ids.insert(ids.end(), run.mangled.begin(), run.mangled.end());
  ids.insert(ids.end(), run.events.nvtx.text.begin(), run.events.nvtx.text.end());
  ids.insert(ids.end(), run.events.nvtx.domain.begin(), run.events.nvtx.domain.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto strings = store.Strings(ids);
  if (!strings.ok()) return strings.error();
  run.strings = std::move(strings).value();
  return run;
}

Result<Scope> ScopeLaunches(store::Store& store, int64_t run_id, const RunColumns& run, const SelectionOptions& cfg,
                            int64_t warmup_instances, int64_t ncu_rank, Selection& sel) {
  auto in_rank = ChooseRank(run, ncu_rank, sel);
  if (!in_rank.ok()) return in_rank.error();
  sel.communication = cfg.communication == "on";
  const std::vector<char> is_comm = CommunicationRows(run);
  auto masks = StageAndExclusions(run, cfg, sel);
  if (!masks.ok()) return masks.error();
  Scope s;
  const std::vector<char> in_scope = OrderAndScope(run, *masks, *in_rank, !cfg.stage.empty(), s.order_time);
  // The top kernels are ranked on the steady state: what the warm-up instances of repeated
  // top-level stages launched (torch.compile's compilation and autotuning, cuBLAS and cuDNN
  // heuristics, allocator growth) is left out of the ranking, though ncu's launch counts still
  // run over it. A named kernel is looked for everywhere.
  s.warm.assign(in_scope.size(), 0);
  if (cfg.kernel.empty()) {
    auto w = WarmupRows(store, run_id, run.events, warmup_instances, sel.ranks > 1, sel.warmup_stages);
    if (!w.ok()) return w.error();
    s.warm = std::move(w).value();
  }
  KSCOPE_RETURN_IF_ERROR(SplitSteady(run, in_scope, is_comm, warmup_instances, cfg, s, sel));
  auto by_launch = [&](int64_t x, int64_t y) {
    return s.order_time[static_cast<size_t>(x)] < s.order_time[static_cast<size_t>(y)];
  };
  std::stable_sort(s.steady.begin(), s.steady.end(), by_launch);
  std::stable_sort(s.all.begin(), s.all.end(), by_launch);
  // What ncu counts its skip over: the launches its NVTX filter lets through when it has one,
  // else every launch of the program.
  if (!cfg.stage.empty() && sel.nvtx_include.empty() && sel.nvtx_exclude.empty()) {
    for (size_t i = 0; i < in_rank->size(); ++i) {
      if ((*in_rank)[i]) s.counted.push_back(static_cast<int64_t>(i));
    }
    std::stable_sort(s.counted.begin(), s.counted.end(), by_launch);
  } else {
    s.counted = s.all;
  }
  return s;
}

}  // namespace kscope::capture::steps
