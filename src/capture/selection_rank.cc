// SelectKernels' middle steps: rank the kernels in scope, group their launches by launch
// configuration, cover the ranking up to the target, and keep what the budget allows.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include "analysis/names/communication.h"
#include "capture/selection_steps.h"
#include "util/closest.h"

namespace kscope::capture::steps {

namespace {

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

LaunchConfig ConfigOf(const RunColumns& run, int64_t row, bool per_kernel) {
  LaunchConfig c{run.Identity(row)};
  if (per_kernel) return c;
  for (size_t d = 0; d < run.dims.size(); ++d) c[d + 1] = run.dims[d][static_cast<size_t>(row)];
  return c;
}

int64_t Duration(const RunColumns& run, int64_t row) {
  const auto r = static_cast<size_t>(row);
  return run.events.kernels.end[r] - run.events.kernels.start[r];
}

// A communication kernel replayed alone waits for peers that do not replay: ncu reruns the
// whole job for each pass instead (application replay), so every rank runs its half again.
void NoteApplicationReplay(Selection& sel) {
  for (const auto& sk : sel.kernels) {
    if (sel.communication && analysis::CommunicationOf(sk.name)) {
      sel.replay = "application";
      sel.notes.emplace_back(
          "selection.communication=on and communication kernels were selected: ncu replays the whole job for each "
          "of its passes (--replay-mode application), because a communication kernel replayed alone waits for peers "
          "that do not replay it");
      return;
    }
  }
}

}  // namespace

Result<std::vector<SelectedKernel>> RankKernels(const RunColumns& run, const Scope& scope, const SelectionOptions& cfg,
                                                Selection& sel) {
  std::unordered_map<int64_t, size_t> by_id;
  std::vector<SelectedKernel> all;
  for (int64_t row : scope.steady) {
    const auto r = static_cast<size_t>(row);
    auto [it, added] = by_id.try_emplace(run.Identity(row), all.size());
    if (added) {
      SelectedKernel sk;
      sk.name = run.strings.at(run.events.kernels.name[r]);
      sk.mangled = sel.name_base == "function" ? NcuFunctionName(sk.name) : run.strings.at(run.Identity(row));
      all.push_back(std::move(sk));
    }
    SelectedKernel& sk = all[it->second];
    ++sk.launches;
    sk.total_ns += Duration(run, row);
    sk.rows.push_back(row);
    sel.scope_ns += Duration(run, row);
  }
  sel.scope_kernels = static_cast<int64_t>(scope.steady.size());
  sel.warmup = cfg.warmup;
  sel.launches = cfg.launches;
  if (!cfg.launch.empty()) {  // the Nth to Mth launch: skip N-1, profile M-N+1
    auto range = ParseLaunchRange(cfg.launch);
    if (!range.ok()) return range.error();
    sel.warmup = range->first - 1;
    sel.launches = range->second - range->first + 1;
  }
  sel.filter_mode = cfg.launch_scope == "kernel" ? "global" : "per-launch-config";
  if (!cfg.kernel.empty()) {  // targeted: the kernels named, whatever their share
    auto matched = MatchKernels(cfg.kernel, std::move(all));
    if (!matched.ok() && sel.comm_launches > 0) {
      Error err = matched.error();
      err.fix += "; communication kernels are left out unless selection.communication=on";
      return err;
    }
    if (!matched.ok()) return matched.error();
    all = std::move(matched).value();
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.total_ns > b.total_ns; });
  return all;
}

Groups GroupConfigs(const RunColumns& run, const Scope& scope, const SelectionOptions& cfg, const Selection& sel,
                    std::vector<SelectedKernel>& ranked) {
  const bool per_kernel = cfg.launch_scope == "kernel";
  std::set<int64_t> ranked_ids;
  for (const auto& sk : ranked) ranked_ids.insert(run.Identity(sk.rows.front()));
  Groups g;
  // Per group: its launches in counting order. A group launched no more than `warmup` times
  // gets no deep metrics.
  for (int64_t row : scope.counted) {
    if (ranked_ids.count(run.Identity(row)) != 0) g.rows[ConfigOf(run, row, per_kernel)].push_back(row);
  }
  // A group that only the warm-up launched (an autotuner's candidate) gets no picks: it may
  // not come again under ncu, and the steady state does not run it.
  std::set<LaunchConfig> warmup_only;
  for (int64_t row : scope.all) {
    if (scope.warm[static_cast<size_t>(row)] != 0) warmup_only.insert(ConfigOf(run, row, per_kernel));
  }
  for (int64_t row : scope.steady) warmup_only.erase(ConfigOf(run, row, per_kernel));
  for (const auto& c : warmup_only) g.rows.erase(c);
  for (const auto& [c, crows] : g.rows) {
    g.picks[c[0]] += std::clamp<int64_t>(static_cast<int64_t>(crows.size()) - sel.warmup, 0, sel.launches);
  }
  // Sizes sampled where a shape grows; not for launches the user chose.
  if (!per_kernel && cfg.kernel.empty() && cfg.launch.empty()) FindGrowingShapes(cfg, sel, g);
  // Per kernel: the time of its groups that get picks (of a growing shape: its family's).
  for (auto& sk : ranked) {
    if (auto grown = g.growing.find(run.Identity(sk.rows.front())); grown != g.growing.end()) {
      sk.sampled = true;
      sk.growing_dim = DimensionName(grown->second.dim);
      sk.family_configs = static_cast<int64_t>(grown->second.family.size());
      for (int64_t row : sk.rows) {
        if (grown->second.family.count(ConfigOf(run, row, false)) != 0) sk.covered_ns += Duration(run, row);
      }
      continue;
    }
    for (int64_t row : sk.rows) {
      auto it = g.rows.find(ConfigOf(run, row, per_kernel));
      if (it != g.rows.end() && static_cast<int64_t>(it->second.size()) > sel.warmup) {
        sk.covered_ns += Duration(run, row);
      }
    }
  }
  return g;
}

namespace {
// The launches ncu profiles for ranked kernel `i` (0 for one too rare to pass its warm-up).
int64_t PicksOf(const std::vector<SelectedKernel>& ranked, const RunColumns& run, const Groups& groups, size_t i) {
  const auto found = groups.picks.find(run.Identity(ranked[i].rows.front()));
  return found == groups.picks.end() ? 0 : found->second;
}

// The kernel that completes the coverage: of `next` and the kernels ranked after it whose time
// alone reaches the target (`missing_ns` more), the one with the fewest launches to profile, the
// higher ranked of equals. A sampled kernel's cost is its run's, so it is neither replaced nor
// a replacement.
size_t CheapestToComplete(const std::vector<SelectedKernel>& ranked, const RunColumns& run, const Groups& groups,
                          size_t next, int64_t missing_ns) {
  if (ranked[next].sampled) return next;
  size_t best = next;
  int64_t best_picks = PicksOf(ranked, run, groups, next);
  for (size_t j = next + 1; j < ranked.size(); ++j) {
    if (ranked[j].sampled || ranked[j].covered_ns < missing_ns) continue;
    const int64_t picks = PicksOf(ranked, run, groups, j);
    if (picks > 0 && picks < best_picks) best = j, best_picks = picks;
  }
  return best;
}
}  // namespace

Cover CoverKernels(const std::vector<SelectedKernel>& ranked, const RunColumns& run, const Groups& groups,
                   const SelectionOptions& cfg, int64_t scope_ns) {
  Cover c;
  c.limited_by = "kernels";
  const bool targeted = !cfg.kernel.empty();
  const auto target_ns = static_cast<int64_t>(std::ceil(cfg.coverage_pct / 100.0 * static_cast<double>(scope_ns)));
  int64_t deep_ns = 0, kept = 0;
  for (size_t i = 0; i < ranked.size(); ++i) {
    const double deep_pct = scope_ns > 0 ? 100.0 * static_cast<double>(deep_ns) / static_cast<double>(scope_ns) : 0.0;
    if (!targeted && deep_pct >= cfg.coverage_pct) {
      c.limited_by = "coverage";
      break;
    }
    if (!targeted && cfg.top > 0 && kept >= cfg.top) {
      c.limited_by = "top";
      break;
    }
    if (ranked[i].covered_ns == 0) {  // too rare to pass the warm-up anywhere
      c.visited.push_back(i);
      continue;
    }
    // The last kernel the target needs: the cheapest that reaches it.
    const size_t take = !targeted && cfg.last_kernel == "cheapest" && deep_ns + ranked[i].covered_ns >= target_ns
                            ? CheapestToComplete(ranked, run, groups, i, target_ns - deep_ns)
                            : i;
    c.visited.push_back(take);
    ++kept;
    deep_ns += ranked[take].covered_ns;
    if (take != i) {
      c.limited_by = "coverage";
      break;
    }
  }
  return c;
}

void ApplyBudget(std::vector<SelectedKernel>& ranked, const Cover& cover, const Groups& groups, const RunColumns& run,
                 const SelectionOptions& cfg, Selection& sel) {
  auto pct = [&](int64_t ns) {
    return sel.scope_ns > 0 ? 100.0 * static_cast<double>(ns) / static_cast<double>(sel.scope_ns) : 0.0;
  };
  auto estimate = [&](int64_t launches) {  // one ncu run of the whole workload, and the launches' passes
    return sel.workload_s + static_cast<double>(sel.workload_launches) * sel.launch_s +
           static_cast<double>(launches * sel.passes_per_launch) * cfg.pass_s;
  };
  const bool targeted = !cfg.kernel.empty();
  int64_t deep_ns = 0, skipped_rare = 0, planned = 0;
  double cumulative = 0;
  sel.limited_by = cover.limited_by;
  sel.estimated_s = estimate(0);
  for (size_t i : cover.visited) {
    SelectedKernel& sk = ranked[i];
    if (sk.covered_ns == 0) {  // launched too rarely to pass the warm-up in any configuration
      ++skipped_rare;
      continue;
    }
    const int64_t picks = PicksOf(ranked, run, groups, i);
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
  NoteApplicationReplay(sel);
  if (targeted) sel.limited_by = "target";
  if (sel.limited_by == "budget") {
    sel.notes.push_back(fmt::format(
        "the ncu budget ({:.0f} s, selection.budget_s) ends the selection at {:.1f}% deep coverage of the {:.0f}% "
        "asked for; raise selection.budget_s, or lower selection.launches",
        cfg.budget_s, sel.deep_pct, cfg.coverage_pct));
  }
  if (skipped_rare > 0) {
    const bool per_kernel = cfg.launch_scope == "kernel";
    sel.notes.push_back(
        fmt::format("{} kernel{} {} launched no {} more than {} times, so ncu cannot profile them after "
                    "skipping that many; lower selection.warmup or choose an earlier selection.launch",
                    skipped_rare, skipped_rare == 1 ? "" : "s", targeted ? "named" : "among the top",
                    per_kernel ? "kernel" : "configuration", sel.warmup));
  }
}

}  // namespace kscope::capture::steps
