#include "capture/selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <numeric>
#include <regex>
#include <set>
#include <unordered_map>

#include "analysis/names/communication.h"
#include "analysis/names/kernel_names.h"
#include "analysis/stages/stages.h"
#include "analysis/timeline/launch_links.h"
#include "analysis/timeline/nsys_events.h"
#include "analysis/timeline/nsys_facts.h"
#include "analysis/timeline/ranks.h"
#include "store/column_codec.h"
#include "store/event_reader.h"
#include "store/event_streams.h"
#include "util/closest.h"

namespace kscope::capture {

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

// The kernels of `all` whose demangled name contains `spec`, or matches it as regex:EXPR
// (ECMAScript, anywhere in the name); none is an error naming the closest kernels.
Result<std::vector<SelectedKernel>> MatchKernels(const std::string& spec, std::vector<SelectedKernel> all) {
  std::vector<SelectedKernel> out;
  if (spec.starts_with("regex:")) {
    std::regex re;
    try {
      re = std::regex(spec.substr(6));
    } catch (const std::regex_error& e) {
      return Error{"selection.kernel", fmt::format("'{}' is not a regular expression ({})", spec.substr(6), e.what()),
                   "write regex:EXPR in ECMAScript syntax, or a plain substring"};
    }
    for (auto& k : all) {
      if (std::regex_search(k.name, re)) out.push_back(std::move(k));
    }
  } else {
    for (auto& k : all) {
      if (k.name.find(spec) != std::string::npos) out.push_back(std::move(k));
    }
  }
  if (!out.empty()) return out;
  // People type a word of the name (a function, a functor, a template): compare with every
  // identifier the kernels' names hold.
  std::vector<std::string> names;
  for (const auto& k : all) {
    static const std::regex kIdentifier("[A-Za-z_][A-Za-z0-9_]{3,}");
    static const std::set<std::string> kCxxWords = {"void",     "float", "double",   "char",      "long",     "bool",
                                                    "unsigned", "const", "operator", "instance",  "lambda",   "native",
                                                    "struct",   "class", "typename", "anonymous", "namespace"};
    for (auto it = std::sregex_iterator(k.name.begin(), k.name.end(), kIdentifier); it != std::sregex_iterator();
         ++it) {
      const std::string id = it->str();
      if (!kCxxWords.contains(id) && std::find(names.begin(), names.end(), id) == names.end()) names.push_back(id);
    }
  }
  std::string near;
  const std::string word = spec.starts_with("regex:") ? spec.substr(6) : spec;
  for (const auto& c : Closest(word, names, 5)) near += (near.empty() ? "'" : ", '") + c + "'";
  return Error{"selection.kernel", fmt::format("no kernel in scope has '{}' in its name", spec),
               near.empty() ? "the discovery run has no kernels in scope" : "closest names in the kernels: " + near};
}

}  // namespace

Result<std::pair<int64_t, int64_t>> ParseLaunchRange(const std::string& text) {
  auto number = [](std::string_view v) -> std::optional<int64_t> {
    int64_t x = 0;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc() || ptr != v.data() + v.size() || x < 1) return std::nullopt;
    return x;
  };
  const auto dash = text.find('-');
  auto first = number(std::string_view(text).substr(0, dash));
  auto last = dash == std::string::npos ? first : number(std::string_view(text).substr(dash + 1));
  if (!first || !last || *last < *first) {
    return Error{"selection.launch", fmt::format("'{}' is not a launch number or range", text),
                 "write N or N-M, counted from 1 (3: the third launch; 2-4: the second to the fourth)"};
  }
  return std::make_pair(*first, *last);
}

std::string EscapeRegex(std::string_view literal) {
  std::string out;
  for (char c : literal) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string UnionFilter(const std::vector<std::string>& names) {
  std::string alt;
  for (const auto& n : names) alt += (alt.empty() ? "" : "|") + EscapeRegex(n);
  return names.size() == 1 ? "regex:^" + alt + "$" : "regex:^(" + alt + ")$";
}

namespace {

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

}  // namespace

Result<Selection> SelectKernels(store::Store& store, int64_t run_id, const SelectionOptions& cfg,
                                int64_t passes_per_launch, int64_t warmup_instances, int64_t ncu_rank) {
  auto events = analysis::LoadNsysEvents(store, run_id);
  if (!events.ok()) return events.error();
  const analysis::NsysEvents& e = *events;
  const auto& k = e.kernels;
  if (k.start.empty()) {
    return Error{"", fmt::format("the discovery run {} has no GPU kernels", run_id),
                 "check that the workload uses the GPU and that nsys traced cuda"};
  }
  auto mangled_col = store::ReadColumns(store.db(), run_id, store::kKernelStream,
                                        {store::kernel::kMangledName, store::kernel::kDevice});
  if (!mangled_col.ok()) return mangled_col.error();
  const std::vector<int64_t>& mangled = (*mangled_col)[0];
  const std::vector<int64_t>& device = (*mangled_col)[1];

  std::vector<int64_t> ids(k.name.begin(), k.name.end());
  ids.insert(ids.end(), mangled.begin(), mangled.end());
  ids.insert(ids.end(), e.nvtx.text.begin(), e.nvtx.text.end());
  ids.insert(ids.end(), e.nvtx.domain.begin(), e.nvtx.domain.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto strings = store.Strings(ids);
  if (!strings.ok()) return strings.error();

  Selection sel;
  // Ranks: with several processes, only the selected one's launches are in scope, and ncu
  // profiles its GPU alone.
  const std::vector<analysis::RunRank> ranks = analysis::FindRanks(k.global_pid, device);
  std::vector<char> in_rank(k.start.size(), 1);
  sel.ranks = static_cast<int64_t>(ranks.size());
  if (sel.ranks > 1) {
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
  }
  // Communication kernels wait on peers: out of scope unless asked for.
  sel.communication = cfg.communication == "on";
  std::vector<char> is_comm(k.start.size(), 0);
  {
    std::unordered_map<int64_t, char> by_name;
    for (size_t i = 0; i < k.name.size(); ++i) {
      auto [it, added] = by_name.try_emplace(k.name[i], 0);
      if (added) it->second = analysis::CommunicationOf(strings->at(k.name[i])) ? 1 : 0;
      is_comm[i] = it->second;
    }
  }
  sel.stage = cfg.stage;
  sel.passes_per_launch = passes_per_launch;
  sel.budget_s = cfg.budget_s;
  sel.pass_s = cfg.pass_s;
  // The workload runs whole under ncu: its own time is the discovery run's span of CUDA calls.
  if (!e.api.start.empty()) {
    const auto [lo, hi] = std::minmax_element(e.api.start.begin(), e.api.start.end());
    sel.app_s = static_cast<double>(*hi - *lo) * 1e-9;
  }
  sel.target = cfg.kernel;
  std::vector<char> in_stage;
  if (!cfg.stage.empty()) {
    auto stage = ResolveStage(cfg.stage, e, *strings);
    if (!stage.ok()) return stage.error();
    in_stage = std::move(stage->in_stage);
    sel.nvtx_include = stage->nvtx_include;
    sel.notes = std::move(stage->notes);
  }
  // Ranges left out: their rows, and ncu's --nvtx-exclude for each.
  std::vector<char> excluded(e.nvtx.start.size(), 0);
  for (const auto& name : cfg.exclude) {
    auto stage = ResolveStage(name, e, *strings);
    if (!stage.ok()) {
      Error err = stage.error();
      err.where = "selection.exclude";
      return err;
    }
    if (stage->nvtx_include.empty()) {
      return Error{"selection.exclude", fmt::format("ncu cannot name the NVTX range '{}' in --nvtx-exclude", name),
                   stage->notes.empty() ? "choose another range" : stage->notes.front()};
    }
    for (size_t r = 0; r < excluded.size(); ++r) excluded[r] |= stage->in_stage[r];
    sel.nvtx_exclude.push_back(stage->nvtx_include);
  }

  // Launch order (the launching call's start; the kernel's own start when unknown) and scope.
  const int64_t open_end = analysis::OpenRangeEnd(e.nvtx);
  const size_t n = k.start.size();
  std::vector<int64_t> order_time(k.start.begin(), k.start.end());
  std::vector<char> in_scope(in_rank.begin(), in_rank.end());
  if (!cfg.stage.empty()) std::fill(in_scope.begin(), in_scope.end(), 0);
  std::vector<char> out_of_scope(n, 0);
  for (const auto& link : analysis::LinkLaunches(e, open_end)) {
    if (link.op >= n) continue;
    order_time[link.op] = e.api.start[link.api];
    if (link.range < 0) continue;
    const auto r = static_cast<size_t>(link.range);
    if (!in_stage.empty() && in_stage[r] && in_rank[link.op]) in_scope[link.op] = 1;
    if (excluded[r]) out_of_scope[link.op] = 1;
  }
  // The top kernels are ranked on the steady state: what the warm-up instances of repeated
  // top-level stages launched (torch.compile's compilation and autotuning, cuBLAS and cuDNN
  // heuristics, allocator growth) is left out of the ranking, though ncu's launch counts still
  // run over it. A named kernel is looked for everywhere.
  std::vector<char> warm(n, 0);
  if (cfg.kernel.empty()) {
    auto w = WarmupRows(store, run_id, e, warmup_instances, sel.ranks > 1, sel.warmup_stages);
    if (!w.ok()) return w.error();
    warm = std::move(w).value();
  }
  std::vector<int64_t> scope_rows, rows;  // in scope; and of those, the steady ones
  std::set<int64_t> comm_names;
  for (size_t i = 0; i < n; ++i) {
    if (!in_scope[i] || out_of_scope[i]) continue;
    if (is_comm[i] != 0 && !sel.communication) {
      if (warm[i] == 0) {
        comm_names.insert(k.name[i]);
        ++sel.comm_launches;
        sel.comm_ns += k.end[i] - k.start[i];
      }
      continue;
    }
    scope_rows.push_back(static_cast<int64_t>(i));
    if (warm[i] != 0) {
      ++sel.warmup_kernels;
      sel.warmup_ns += k.end[i] - k.start[i];
    } else {
      rows.push_back(static_cast<int64_t>(i));
    }
  }
  if (rows.empty()) {  // nothing but warm-up: rank on it all
    rows = scope_rows;
    sel.warmup_kernels = sel.warmup_ns = 0;
    sel.warmup_stages.clear();
  }
  sel.comm_kernels = static_cast<int64_t>(comm_names.size());
  sel.warmup_instances = sel.warmup_stages.empty() ? 0 : warmup_instances;
  if (rows.empty() && sel.comm_launches > 0) {
    return Error{"selection", "every GPU kernel in scope is a communication kernel, which ncu does not replay alone",
                 "selection.communication=on profiles them (docs/profile.md: which replay mode works across ranks)"};
  }
  if (rows.empty()) {
    return Error{"selection.stage",
                 cfg.stage.empty() ? "every GPU kernel was launched inside the ranges selection.exclude leaves out"
                                   : fmt::format("no GPU kernel was launched inside the NVTX range '{}'", cfg.stage),
                 "choose a range that launches GPU work, or leave selection.stage empty"};
  }
  auto by_launch = [&](int64_t x, int64_t y) {
    return order_time[static_cast<size_t>(x)] < order_time[static_cast<size_t>(y)];
  };
  std::stable_sort(rows.begin(), rows.end(), by_launch);
  std::stable_sort(scope_rows.begin(), scope_rows.end(), by_launch);

  // Kernels by identity (the mangled name; the demangled one when the export lacks it).
  auto identity = [&](int64_t row) {
    const auto r = static_cast<size_t>(row);
    return mangled[r] != kNull ? mangled[r] : k.name[r];
  };
  std::unordered_map<int64_t, size_t> by_id;
  std::vector<SelectedKernel> all;
  for (int64_t row : rows) {
    const auto r = static_cast<size_t>(row);
    auto [it, added] = by_id.try_emplace(identity(row), all.size());
    if (added) {
      SelectedKernel sk;
      sk.name = strings->at(k.name[r]);
      sk.mangled = strings->at(identity(row));
      all.push_back(std::move(sk));
    }
    SelectedKernel& sk = all[it->second];
    ++sk.launches;
    sk.total_ns += k.end[r] - k.start[r];
    sk.rows.push_back(row);
    sel.scope_ns += k.end[r] - k.start[r];
  }
  sel.scope_kernels = static_cast<int64_t>(rows.size());
  sel.warmup = cfg.warmup;
  sel.launches = cfg.launches;
  if (!cfg.launch.empty()) {  // the Nth to Mth launch: skip N-1, profile M-N+1
    auto range = ParseLaunchRange(cfg.launch);
    if (!range.ok()) return range.error();
    sel.warmup = range->first - 1;
    sel.launches = range->second - range->first + 1;
  }
  const bool per_kernel = cfg.launch_scope == "kernel";
  sel.filter_mode = per_kernel ? "global" : "per-launch-config";

  // What ncu counts its skip over: the launches its NVTX filter lets through when it has one,
  // else every launch of the program.
  std::vector<int64_t> counted;
  if (!cfg.stage.empty() && sel.nvtx_include.empty() && sel.nvtx_exclude.empty()) {
    for (size_t i = 0; i < n; ++i) {
      if (in_rank[i]) counted.push_back(static_cast<int64_t>(i));
    }
    std::stable_sort(counted.begin(), counted.end(), by_launch);
  } else {
    counted = scope_rows;
  }
  auto dims =
      store::ReadColumns(store.db(), run_id, store::kKernelStream,
                         {store::kernel::kGridX, store::kernel::kGridY, store::kernel::kGridZ, store::kernel::kBlockX,
                          store::kernel::kBlockY, store::kernel::kBlockZ, store::kernel::kDynamicSmem});
  if (!dims.ok()) return dims.error();
  // What ncu's skip and count apply to: each launch configuration (kernel, grid, block,
  // dynamic shared memory), or each kernel as a whole (launch_scope kernel).
  using Config = std::array<int64_t, 8>;  // identity, then grid xyz, block xyz, dynamic shared memory
  auto config_of = [&](int64_t row) {
    Config c{identity(row)};
    if (per_kernel) return c;
    for (size_t d = 0; d < 7; ++d) c[d + 1] = (*dims)[d][static_cast<size_t>(row)];
    return c;
  };
  // Per group: its launches in counting order; ncu profiles [warmup, warmup+launches). A
  // group launched no more than `warmup` times gets no deep metrics.
  std::map<Config, std::vector<int64_t>> config_rows;
  for (int64_t row : counted) {
    if (by_id.count(identity(row)) != 0) config_rows[config_of(row)].push_back(row);
  }
  // A group that only the warm-up launched (an autotuner's candidate) gets no picks: it may
  // not come again under ncu, and the steady state does not run it.
  std::set<Config> warmup_only;
  for (int64_t row : scope_rows) {
    if (warm[static_cast<size_t>(row)] != 0) warmup_only.insert(config_of(row));
  }
  for (int64_t row : rows) warmup_only.erase(config_of(row));
  for (const auto& c : warmup_only) config_rows.erase(c);
  // Per kernel: the time of its groups that get picks, and how many picks they get.
  std::unordered_map<int64_t, int64_t> pick_count;  // identity -> launches ncu will profile
  for (const auto& [c, crows] : config_rows) {
    const auto n_rows = static_cast<int64_t>(crows.size());
    pick_count[c[0]] += std::clamp<int64_t>(n_rows - sel.warmup, 0, sel.launches);
  }
  for (auto& sk : all) {
    for (int64_t row : sk.rows) {
      if (static_cast<int64_t>(config_rows[config_of(row)].size()) > sel.warmup) {
        sk.covered_ns += k.end[static_cast<size_t>(row)] - k.start[static_cast<size_t>(row)];
      }
    }
  }
  if (!cfg.kernel.empty()) {  // targeted: the kernels named, whatever their share
    auto matched = MatchKernels(cfg.kernel, all);
    if (!matched.ok() && sel.comm_launches > 0) {
      Error err = matched.error();
      err.fix += "; communication kernels are left out unless selection.communication=on";
      return err;
    }
    if (!matched.ok()) return matched.error();
    all = std::move(matched).value();
  }

  // The top kernels by GPU time until the time they give deep metrics for reaches the target,
  // or the estimated ncu time the budget, or the count the cap.
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; });
  auto pct = [&](int64_t ns) {
    return sel.scope_ns > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(sel.scope_ns) : 0.0;
  };
  auto estimate = [&](int64_t launches) {
    return sel.app_s + static_cast<double>(launches * passes_per_launch) * cfg.pass_s;
  };
  int64_t deep_ns = 0;
  int64_t skipped_rare = 0;
  int64_t planned = 0;  // launches ncu will profile
  double cumulative = 0;
  sel.limited_by = "kernels";
  sel.estimated_s = estimate(0);
  const bool targeted = !cfg.kernel.empty();
  for (auto& sk : all) {
    if (!targeted && sel.deep_pct >= cfg.coverage_pct) {
      sel.limited_by = "coverage";
      break;
    }
    if (!targeted && cfg.top > 0 && static_cast<int64_t>(sel.kernels.size()) >= cfg.top) {
      sel.limited_by = "top";
      break;
    }
    if (sk.covered_ns == 0) {  // launched too rarely to pass the warm-up in any configuration
      ++skipped_rare;
      continue;
    }
    const int64_t picks = pick_count[identity(sk.rows.front())];
    if (!targeted && cfg.budget_s > 0 && !sel.kernels.empty() && estimate(planned + picks) > cfg.budget_s) {
      sel.limited_by = "budget";
      break;
    }
    planned += picks;
    sel.estimated_s = estimate(planned);
    sk.share_pct = pct(sk.total_ns);
    cumulative += sk.share_pct;
    sk.cumulative_pct = cumulative;
    sel.covered_pct = cumulative;
    deep_ns += sk.covered_ns;
    sel.deep_pct = pct(deep_ns);
    sk.filter = UnionFilter({sk.mangled});
    sel.kernels.push_back(std::move(sk));
  }
  if (sel.limited_by == "kernels" && sel.deep_pct >= cfg.coverage_pct) sel.limited_by = "coverage";
  // A communication kernel replayed alone waits for peers that do not replay: ncu reruns the
  // whole job for each pass instead (application replay), so every rank runs its half again.
  for (const auto& sk : sel.kernels) {
    if (sel.communication && analysis::CommunicationOf(sk.name)) {
      sel.replay = "application";
      sel.notes.emplace_back(
          "selection.communication=on and communication kernels were selected: ncu replays the whole job for each "
          "of its passes (--replay-mode application), because a communication kernel replayed alone waits for peers "
          "that do not replay it");
      break;
    }
  }
  if (targeted) sel.limited_by = "target";
  if (sel.limited_by == "budget") {
    sel.notes.push_back(fmt::format(
        "the ncu budget ({:.0f} s, selection.budget_s) ends the selection at {:.1f}% deep coverage of the {:.0f}% "
        "asked for; raise selection.budget_s, or lower selection.launches",
        cfg.budget_s, sel.deep_pct, cfg.coverage_pct));
  }
  if (skipped_rare > 0) {
    sel.notes.push_back(
        fmt::format("{} kernel{} {} launched no {} more than {} times, so ncu cannot profile them after "
                    "skipping that many; lower selection.warmup or choose an earlier selection.launch",
                    skipped_rare, skipped_rare == 1 ? "" : "s", targeted ? "named" : "among the top",
                    per_kernel ? "kernel" : "configuration", sel.warmup));
  }
  std::vector<std::vector<int64_t>> picks(sel.kernels.size());
  std::unordered_map<int64_t, size_t> selected;  // identity -> kernel index
  for (size_t i = 0; i < sel.kernels.size(); ++i) selected[identity(sel.kernels[i].rows.front())] = i;
  for (const auto& [c, crows] : config_rows) {
    auto it = selected.find(c[0]);
    if (it == selected.end()) continue;
    ++sel.kernels[it->second].configs;
    const auto begin = static_cast<size_t>(std::min<int64_t>(sel.warmup, static_cast<int64_t>(crows.size())));
    const auto end =
        static_cast<size_t>(std::min<int64_t>(sel.warmup + sel.launches, static_cast<int64_t>(crows.size())));
    picks[it->second].insert(picks[it->second].end(), crows.begin() + static_cast<std::ptrdiff_t>(begin),
                             crows.begin() + static_cast<std::ptrdiff_t>(end));
  }

  // Passes: kernels in order of importance share one ncu run while its launches stay within
  // max_pass_launches; the launches of a run are profiled in launch order.
  std::unordered_map<int64_t, size_t> position;
  for (size_t i = 0; i < counted.size(); ++i) position[counted[i]] = i;
  NcuPass pass;
  auto close_pass = [&]() {
    if (pass.kernels.empty()) return;
    std::vector<std::string> names;
    for (size_t i : pass.kernels) names.push_back(sel.kernels[i].mangled);
    pass.filter = UnionFilter(names);
    std::sort(pass.profiled_rows.begin(), pass.profiled_rows.end(),
              [&](int64_t x, int64_t y) { return position.at(x) < position.at(y); });
    sel.passes.push_back(std::move(pass));
    pass = {};
  };
  for (size_t i = 0; i < sel.kernels.size(); ++i) {
    sel.kernels[i].profiled = static_cast<int64_t>(picks[i].size());
    if (picks[i].empty()) continue;  // every configuration too rare to pass its warm-up
    // ncu's global count runs over every kernel its filter matches: one kernel per ncu run.
    if (!pass.kernels.empty() &&
        (per_kernel || static_cast<int64_t>(pass.profiled_rows.size() + picks[i].size()) > cfg.max_pass_launches)) {
      close_pass();
    }
    pass.kernels.push_back(i);
    pass.profiled_rows.insert(pass.profiled_rows.end(), picks[i].begin(), picks[i].end());
  }
  close_pass();
  // The workload runs once per ncu run.
  sel.estimated_s = sel.app_s * static_cast<double>(std::max<size_t>(sel.passes.size(), 1)) +
                    static_cast<double>(planned * passes_per_launch) * cfg.pass_s;
  if (sel.passes.empty()) {
    return Error{"selection",
                 fmt::format("no {} of the selected kernels is launched more than {} times{}, so ncu would profile "
                             "nothing",
                             per_kernel ? "kernel" : "launch configuration", sel.warmup,
                             cfg.stage.empty() ? "" : " inside '" + cfg.stage + "'"),
                 cfg.launch.empty() ? "lower selection.warmup" : "choose an earlier selection.launch"};
  }
  return sel;
}

}  // namespace kscope::capture
