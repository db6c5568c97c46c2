#include "analysis/stages/stages.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "analysis/stages/torch_ops.h"
#include "analysis/timeline/launch_links.h"
#include "analysis/timeline/nsys_events.h"
#include "analysis/timeline/nsys_facts.h"
#include "store/column_codec.h"
#include "store/event_streams.h"

namespace kscope::analysis {

bool IsLibraryDomain(std::string_view domain) {
  // CUDA's C++ core libraries (CUB, Thrust: cub::DeviceScan::InclusiveScan ...) and NCCL mark
  // each call with a range of their own domain.
  return domain == "CCCL" || domain == "NCCL";
}

namespace {

using store::kNull;

// With PyTorch's autograd NVTX ranges: the work of each backward function goes to every
// user stage around the forward op that made it (once per stage).
void AddBackwardOfForward(const NsysEvents& e, const std::vector<int>& stage_of,
                          const std::vector<std::optional<TorchOpRange>>& stage_ops,
                          const std::vector<LaunchLink>& links, std::vector<Stage>& stages) {
  if (std::none_of(stage_ops.begin(), stage_ops.end(), [](const auto& o) { return o.has_value(); })) return;
  const auto& n = e.nvtx;
  std::vector<std::optional<TorchOpRange>> row_ops(n.start.size());
  for (size_t r = 0; r < row_ops.size(); ++r) row_ops[r] = stage_ops[static_cast<size_t>(stage_of[r])];
  const size_t n_kernels = e.kernels.start.size();
  std::vector<std::map<std::string, BackwardOfOp>> by_op(stages.size());
  std::vector<std::unordered_set<uint32_t>> seen(stages.size());
  for (const BackwardTie& t : TieBackwardToForward(e, row_ops, links)) {
    const bool kernel = t.op < n_kernels;
    const int64_t ns = kernel ? e.kernels.end[t.op] - e.kernels.start[t.op]
                              : e.memops.end[t.op - n_kernels] - e.memops.start[t.op - n_kernels];
    const std::string& op = row_ops[static_cast<size_t>(t.forward_row)]->op;
    for (int64_t r = t.forward_row; r != kNull && r >= 0; r = n.parent[static_cast<size_t>(r)]) {
      const auto s = static_cast<size_t>(stage_of[static_cast<size_t>(r)]);
      if (stages[s].torch_op || !seen[s].insert(t.op).second) continue;
      Stage& st = stages[s];
      ++st.backward_ops;
      (kernel ? st.backward_kernel_ns : st.backward_memop_ns) += ns;
      BackwardOfOp& b = by_op[s][op];
      b.op = op;
      ++b.ops;
      if (kernel) b.kernel_ns += ns;
    }
  }
  for (size_t s = 0; s < stages.size(); ++s) {
    for (auto& [op, b] : by_op[s]) stages[s].backward_by_op.push_back(std::move(b));
    std::stable_sort(stages[s].backward_by_op.begin(), stages[s].backward_by_op.end(),
                     [](const BackwardOfOp& a, const BackwardOfOp& b) { return a.kernel_ns > b.kernel_ns; });
  }
}

}  // namespace

Result<std::vector<Stage>> ComputeStages(store::Store& store, int64_t run_id, const NsysEvents* events) {
  std::optional<NsysEvents> own;
  if (events == nullptr) {
    auto loaded = LoadNsysEvents(store, run_id);
    if (!loaded.ok()) return loaded.error();
    own = std::move(loaded).value();
    events = &*own;
  }
  const NsysEvents& e = *events;
  const auto& n = e.nvtx;
  std::vector<int64_t> ids(n.text.begin(), n.text.end());
  ids.insert(ids.end(), n.domain.begin(), n.domain.end());
  ids.erase(std::remove(ids.begin(), ids.end(), kNull), ids.end());
  auto strings = store.Strings(ids);
  if (!strings.ok()) return strings.error();
  auto thread_names = store.ThreadNames(run_id);
  if (!thread_names.ok()) return thread_names.error();

  // One stage per (name, style); the NVTX rows of each, in start order.
  std::vector<Stage> stages;
  std::map<std::pair<std::string, std::string>, int> index;         // (name, style) -> stage
  std::map<std::tuple<int64_t, int64_t, std::string>, int> by_ids;  // (domain, text, style) ids -> stage
  std::vector<int> stage_of(n.start.size(), -1);
  std::vector<size_t> instance_of(n.start.size(), 0);  // the row's instance in its stage
  std::vector<std::optional<TorchOpRange>> stage_ops;  // per stage: its PyTorch op range, if it is one
  const int64_t open_end = OpenRangeEnd(n);
  for (size_t r = 0; r < n.start.size(); ++r) {
    auto [known, first] = by_ids.try_emplace({n.domain[r], n.text[r], NvtxStyle(n.event_type[r])}, -1);
    if (first) {  // names are built once per distinct range, not once per row
      const std::string text = strings->count(n.text[r]) != 0 ? strings->at(n.text[r]) : "";
      const std::string domain = n.domain[r] == kNull ? "" : strings->at(n.domain[r]);
      const std::string& style = std::get<2>(known->first);
      std::string name = domain;
      name.append(":").append(text);
      auto [it, added] = index.try_emplace({name, style}, static_cast<int>(index.size()));
      if (added) {
        Stage s;
        s.name = name;
        s.text = text;
        s.domain = domain;
        s.style = style;
        stage_ops.push_back(domain.empty() ? ParseTorchOpRange(text) : std::nullopt);
        s.torch_op = stage_ops.back().has_value();
        s.library = IsLibraryDomain(domain);
        stages.push_back(std::move(s));
      }
      known->second = it->second;
    }
    stage_of[r] = known->second;
    Stage& s = stages[static_cast<size_t>(known->second)];
    ++s.instances;
    const int64_t end = n.end[r] == kNull ? open_end : n.end[r];
    s.range_ns += end - n.start[r];
    instance_of[r] = s.instance_list.size();
    const int64_t process = n.global_tid[r] == kNull ? 0 : n.global_tid[r] & ~int64_t{0xFFFFFF};
    s.instance_list.push_back({n.start[r], end - n.start[r], end, 0, 0, 0, process});
  }
  // The tree: a stage's parent is the stage its instances most often sit in (votes gathered
  // in one pass over the rows; ties go to the stage seen first).
  std::vector<std::map<int, int>> votes(stages.size());
  for (size_t r = 0; r < n.start.size(); ++r) {
    if (n.parent[r] != kNull) ++votes[static_cast<size_t>(stage_of[r])][stage_of[static_cast<size_t>(n.parent[r])]];
  }
  for (size_t i = 0; i < stages.size(); ++i) {
    int best = -1, most = 0;
    for (const auto& [p, count] : votes[i]) {
      if (count > most && p != static_cast<int>(i)) best = p, most = count;
    }
    stages[i].parent = best;
  }
  for (auto& s : stages) {
    int depth = 0;
    for (int p = s.parent; p >= 0 && depth <= static_cast<int>(stages.size());
         p = stages[static_cast<size_t>(p)].parent) {
      ++depth;
    }
    s.depth = depth;
  }

  // The GPU work launched inside each stage, by its thread or another of its process (an
  // operation counts once per stage, for the first instance that holds it; a call's own
  // thread's ranges come before the other threads', so its own thread wins).
  const size_t n_kernels = e.kernels.start.size();
  std::vector<std::unordered_set<uint32_t>> ops(stages.size());
  std::vector<std::map<int64_t, StageThread>> threads(stages.size());
  const auto links = LinkLaunches(e, open_end, LinkScope::kOtherThreads);
  for (const auto& link : links) {
    if (link.range < 0) continue;
    const auto s = static_cast<size_t>(stage_of[static_cast<size_t>(link.range)]);
    if (!ops[s].insert(link.op).second) continue;
    Stage& st = stages[s];
    const size_t instance = instance_of[static_cast<size_t>(link.range)];
    StageInstance& in = st.instance_list[instance];
    const bool kernel = link.op < n_kernels;
    const int64_t op_start = kernel ? e.kernels.start[link.op] : e.memops.start[link.op - n_kernels];
    const int64_t op_end = kernel ? e.kernels.end[link.op] : e.memops.end[link.op - n_kernels];
    const int64_t ns = op_end - op_start;
    in.end = std::max(in.end, op_end);  // the instance runs on to the end of the work it launched
    ++in.ops;
    ++st.ops;
    (kernel ? in.kernel_ns : in.memop_ns) += ns;
    if (kernel) {
      ++st.kernels;
      st.kernel_ns += ns;
      st.kernel_rows.push_back(link.op);
      st.kernel_instance.push_back(static_cast<int32_t>(instance));
    } else {
      ++st.memops;
      st.memop_ns += ns;
    }
    if (!link.other_thread) continue;
    const int64_t tid = e.api.global_tid[link.api];
    StageThread& t = threads[s][tid];
    t.global_tid = tid;
    ++t.ops;
    ++st.other_ops;
    if (kernel) {
      ++t.kernels;
      t.kernel_ns += ns;
      st.other_kernel_ns += ns;
    } else {
      ++t.memops;
      t.memop_ns += ns;
      st.other_memop_ns += ns;
    }
  }
  AddBackwardOfForward(e, stage_of, stage_ops, links, stages);
  for (size_t i = 0; i < stages.size(); ++i) {
    Stage& st = stages[i];
    for (auto& [tid, t] : threads[i]) {
      if (auto it = thread_names->find(tid); it != thread_names->end()) t.name = it->second;
      st.other_threads.push_back(std::move(t));
    }
    std::stable_sort(st.other_threads.begin(), st.other_threads.end(), [](const StageThread& a, const StageThread& b) {
      return a.kernel_ns + a.memop_ns > b.kernel_ns + b.memop_ns;
    });
    for (const auto& in : st.instance_list) st.windows.push_back({in.start, in.end});
    // Kernel rows in row order, each with its instance.
    std::vector<size_t> order(st.kernel_rows.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return st.kernel_rows[a] < st.kernel_rows[b]; });
    std::vector<int64_t> rows;
    std::vector<int32_t> instances;
    rows.reserve(order.size());
    instances.reserve(order.size());
    for (size_t k : order) {
      rows.push_back(st.kernel_rows[k]);
      instances.push_back(st.kernel_instance[k]);
    }
    st.kernel_rows = std::move(rows);
    st.kernel_instance = std::move(instances);
    std::unordered_map<int64_t, size_t> by_name;
    for (int64_t row : st.kernel_rows) {
      const auto r = static_cast<size_t>(row);
      auto [it, added] = by_name.try_emplace(e.kernels.name[r], st.kernels_by_time.size());
      if (added) st.kernels_by_time.push_back({e.kernels.name[r], 0, 0});
      ++st.kernels_by_time[it->second].launches;
      st.kernels_by_time[it->second].total_ns += e.kernels.end[r] - e.kernels.start[r];
    }
    std::stable_sort(st.kernels_by_time.begin(), st.kernels_by_time.end(),
                     [](const StageKernel& a, const StageKernel& b) { return a.total_ns > b.total_ns; });
  }

  // nsys's projection figures, as stored at import.
  auto q = store.db().Prepare(
      "SELECT range, style, n, total, gpu_ops, range_total FROM nvtx_projection_summary WHERE run_id = ?1");
  if (!q.ok()) return q.error();
  q->Bind(1, run_id);
  while (q->Step()) {
    auto it = index.find({q->Text(0), q->Text(1)});
    if (it == index.end()) continue;
    Stage& st = stages[static_cast<size_t>(it->second)];
    st.proj_instances = q->Int(2);
    st.proj_ns = q->Int(3);
    st.gpu_ops = q->Int(4);
    st.proj_range_ns = q->Int(5);
  }
  KSCOPE_RETURN_IF_ERROR(q->status());

  SortStagesAsNsys(stages);
  return stages;
}

void SortStagesAsNsys(std::vector<Stage>& stages) {
  std::vector<int> order(stages.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const Stage& x = stages[static_cast<size_t>(a)];
    const Stage& y = stages[static_cast<size_t>(b)];
    if (x.proj_ns != y.proj_ns) return x.proj_ns > y.proj_ns;
    return std::tie(x.name, x.style) < std::tie(y.name, y.style);
  });
  std::vector<int> new_id(stages.size());
  for (size_t i = 0; i < order.size(); ++i) new_id[static_cast<size_t>(order[i])] = static_cast<int>(i);
  std::vector<Stage> sorted;
  sorted.reserve(order.size());
  for (int o : order) sorted.push_back(std::move(stages[static_cast<size_t>(o)]));
  for (size_t i = 0; i < sorted.size(); ++i) {
    sorted[i].id = static_cast<int>(i);
    if (sorted[i].parent >= 0) sorted[i].parent = new_id[static_cast<size_t>(sorted[i].parent)];
  }
  stages = std::move(sorted);
}

std::string NvtxStyle(int64_t event_type) {
  return event_type == store::nvtx::kPushPop || event_type == store::nvtx::kNvtxtPushPop ? "PushPop" : "StartEnd";
}

std::string DisplayName(const Stage& stage) {
  return stage.domain.empty() ? stage.text : stage.domain + ":" + stage.text;
}

}  // namespace kscope::analysis
