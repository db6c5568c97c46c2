// One what-if edit (edits.h) applied to a graph's durations and gaps.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "analysis/graph/whatif.h"
#include "analysis/names/kernel_names.h"
#include "analysis/names/short_names.h"

namespace kscope::analysis::graph {

namespace {

constexpr int64_t kDefaultGraphLaunchNs = 10'000;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

int64_t Scaled(int64_t v, double f) { return static_cast<int64_t>(std::llround(static_cast<double>(v) * f)); }

// Per node: whether the edit's scope holds it.
Result<std::vector<uint8_t>> ScopeOf(const DependencyGraph& g, const std::vector<StepSet>& sets, const Edit& e,
                                     const std::vector<int64_t>& rank_pid) {
  if (e.scope.empty()) return std::vector<uint8_t>(g.nodes(), 1);
  if (e.scope.starts_with("rank:")) {
    const std::string n = e.scope.substr(5);
    const bool digits = !n.empty() && std::all_of(n.begin(), n.end(), [](char ch) { return std::isdigit(ch) != 0; });
    const size_t rank = digits ? std::stoul(n) : SIZE_MAX;
    if (rank >= rank_pid.size()) {
      return Error{"",
                   fmt::format("what-if edit '{}': the run has no rank {} (ranks 0 to {})", e.text, n,
                               rank_pid.empty() ? 0 : rank_pid.size() - 1),
                   "name a rank that kscope report lists"};
    }
    std::vector<uint8_t> in(g.nodes(), 0);
    for (uint32_t node = 0; node < g.nodes(); ++node)
      in[node] = g.lanes[g.lane[node]].global_pid == rank_pid[rank] ? 1 : 0;
    return in;
  }
  std::string names;
  for (const StepSet& s : sets) {
    if (s.name == e.scope) return s.inside;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  return Error{"", fmt::format("what-if edit '{}': no stage named '{}' in the run", e.text, e.scope),
               names.empty() ? "the run has no NVTX stage: leave the scope out, or name a rank (rank:N)"
                             : "scopes the run has: " + names + ", or rank:N"};
}

// The step set of the stage an edit is scoped to, or none.
const StepSet* StageOf(const std::vector<StepSet>& sets, const std::string& scope) {
  for (const StepSet& s : sets) {
    if (!scope.empty() && s.name == scope) return &s;
  }
  return nullptr;
}

// The median of the run's cudaGraphLaunch calls, or kDefaultGraphLaunchNs.
int64_t GraphLaunchNs(const DependencyGraph& g) {
  std::vector<int64_t> d;
  for (uint32_t i = 0; i < g.calls; ++i) {
    if (g.events.function_name[g.events.function_of(g.events.calls.name[i])].starts_with("cudaGraphLaunch")) {
      d.push_back(g.duration[i]);
    }
  }
  if (d.empty()) return kDefaultGraphLaunchNs;
  std::nth_element(d.begin(), d.begin() + static_cast<ptrdiff_t>(d.size() / 2), d.end());
  return d[d.size() / 2];
}

bool Synchronizes(const DependencyGraph& g, uint32_t call) {
  return g.events.function_role[g.events.function_of(g.events.calls.name[call])] == CallRole::kSynchronize;
}

}  // namespace

Result<EditMatch> ApplyEdit(const DependencyGraph& g, const std::vector<StepSet>& sets, const Edit& e,
                            const std::vector<int64_t>& rank_pid, std::vector<int64_t>& duration,
                            std::vector<int64_t>& gap) {
  auto scope = ScopeOf(g, sets, e, rank_pid);
  if (!scope.ok()) return scope.error();
  const std::vector<uint8_t>& in = *scope;
  EditMatch m{e.text, 0, 0};
  const auto& o = g.events.ops;
  auto scale_node = [&](uint32_t node) {
    duration[node] = Scaled(duration[node], e.factor);
    ++m.nodes;
  };
  auto set_edge = [&](size_t edge, int64_t to) {
    gap[edge] = to;
    ++m.edges;
  };
  switch (e.target) {
    case EditTarget::kKernel:
    case EditTarget::kFamily:
    case EditTarget::kCopies:
    case EditTarget::kCommunication: {
      // Which operation names the edit holds.
      std::vector<uint8_t> named(g.events.op_names.size(), 0);
      const std::string pattern = Lower(e.pattern);
      for (size_t n = 0; n < named.size(); ++n) {
        if (e.target == EditTarget::kKernel && e.whole_name) {
          named[n] = g.events.op_names[n] == e.pattern;
        } else if (e.target == EditTarget::kKernel) {
          named[n] = Lower(g.events.op_names[n]).find(pattern) != std::string::npos ||
                     Lower(ShortKernelName(g.events.op_names[n])).find(pattern) != std::string::npos;
        }
        if (e.target == EditTarget::kFamily) named[n] = Lower(IdentifyKernel(g.events.op_names[n]).family) == pattern;
      }
      for (uint32_t op = 0; op < g.ops; ++op) {
        const uint32_t node = static_cast<uint32_t>(g.calls + op);
        if (in[node] == 0) continue;
        bool hit = false;
        if (e.target == EditTarget::kCopies) hit = o.is_kernel[op] == 0;
        if (e.target == EditTarget::kCommunication) hit = g.communication[op] != 0;
        if (e.target == EditTarget::kKernel || e.target == EditTarget::kFamily) {
          const auto it = std::lower_bound(g.events.op_name_ids.begin(), g.events.op_name_ids.end(), o.name[op]);
          hit = o.is_kernel[op] != 0 && named[static_cast<size_t>(it - g.events.op_name_ids.begin())] != 0;
        }
        if (!hit) continue;
        scale_node(node);
        // A collective's transfer is its edges from the other ranks; at 0 (comm) no rank waits.
        for (uint32_t k = g.in_begin[EndOf(node)]; k < g.in_begin[EndOf(node) + 1]; ++k) {
          if (g.edges[k].kind != EdgeKind::kCollective || gap[k] == kEdgeRemoved) continue;
          set_edge(k,
                   e.factor == 0 && e.target == EditTarget::kCommunication ? kEdgeRemoved : Scaled(gap[k], e.factor));
        }
      }
      break;
    }
    case EditTarget::kHost: {
      // Scoped to a stage: the part of each host gap that its instances' spans cover (a
      // busy-wait inside a range that makes no CUDA call is such a part).
      const StepSet* stage = StageOf(sets, e.scope);
      for (size_t k = 0; k < g.edges.size(); ++k) {
        const Edge& edge = g.edges[k];
        if (edge.kind != EdgeKind::kHostOrder || gap[k] == kEdgeRemoved) continue;
        if (stage == nullptr) {
          if (in[NodeOf(edge.to)] != 0) set_edge(k, Scaled(gap[k], e.factor));
          continue;
        }
        const auto spans = stage->spans.find(g.lanes[g.lane[NodeOf(edge.to)]].global_pid);
        if (spans == stage->spans.end()) continue;
        const int64_t covered = Overlap(spans->second, g.recorded(edge.from), g.recorded(edge.to));
        if (covered > 0) set_edge(k, gap[k] - Scaled(covered, 1 - e.factor));
      }
      break;
    }
    case EditTarget::kLaunch:
      for (uint32_t c = 0; c < g.calls; ++c) {
        if (g.launches[c] != 0 && g.nested[c] == 0 && in[c] != 0) scale_node(c);
      }
      for (size_t k = 0; k < g.edges.size(); ++k) {
        if (g.edges[k].kind == EdgeKind::kLaunch && in[NodeOf(g.edges[k].from)] != 0)
          set_edge(k, Scaled(gap[k], e.factor));
      }
      break;
    case EditTarget::kSync:
      for (size_t k = 0; k < g.edges.size(); ++k) {
        const EdgeKind kind = g.edges[k].kind;
        if ((kind == EdgeKind::kSync || kind == EdgeKind::kBlocked) && in[NodeOf(g.edges[k].to)] != 0) {
          set_edge(k, kEdgeRemoved);
        }
      }
      break;
    case EditTarget::kGraph: {
      const int64_t launch_ns = GraphLaunchNs(g);
      for (uint32_t c = 0; c < g.calls; ++c) {
        if (in[c] != 0 && !Synchronizes(g, c)) {
          duration[c] = 0;
          ++m.nodes;
        }
      }
      for (size_t k = 0; k < g.edges.size(); ++k) {
        const Edge& edge = g.edges[k];
        const uint32_t to = NodeOf(edge.to), from = NodeOf(edge.from);
        if (in[to] == 0 || !g.is_call(to)) {
          if (edge.kind == EdgeKind::kLaunch && in[from] != 0) set_edge(k, 0);
          continue;
        }
        if (edge.kind != EdgeKind::kHostOrder && edge.kind != EdgeKind::kNested) continue;
        if (in[from] != 0) {
          set_edge(k, 0);  // inside an instance: no host work
        } else if (edge.kind == EdgeKind::kHostOrder) {
          // Where an instance starts: one graph launch.
          if (Synchronizes(g, to)) {
            set_edge(k, gap[k] + launch_ns);
          } else {
            duration[to] = launch_ns;
          }
        }
      }
      break;
    }
  }
  if (m.nodes == 0 && m.edges == 0) {
    return Error{"", fmt::format("what-if edit '{}' matches nothing in the run", e.text),
                 "check the kernel text or family (kscope kernels RUN), the stage (kscope report RUN) or the rank"};
  }
  return m;
}

}  // namespace kscope::analysis::graph
