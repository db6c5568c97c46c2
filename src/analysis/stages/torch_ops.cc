#include "analysis/stages/torch_ops.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_set>

#include "analysis/timeline/launch_index.h"

namespace kscope::analysis {

namespace {

// The number after `key` in `text` ("seq = 12" -> 12), and where it ends.
std::optional<int64_t> NumberAfter(std::string_view text, std::string_view key) {
  const size_t at = text.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  const char* begin = text.data() + at + key.size();
  const char* end = text.data() + text.size();
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || ptr == begin) return std::nullopt;
  return v;
}

// The bracketed list that starts at `at` ("[[1, 2], []]"), "" when its brackets do not close.
std::string_view BracketedAt(std::string_view text, size_t at) {
  if (at >= text.size() || text[at] != '[') return {};
  int depth = 0;
  for (size_t i = at; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']' && --depth == 0) return text.substr(at, i + 1 - at);
  }
  return {};
}

}  // namespace

std::string ShapeText(const TorchOpRange& op) { return op.sizes.empty() ? "" : op.op + " " + op.sizes; }

std::optional<TorchOpRange> ParseTorchOpRange(std::string_view text) {
  constexpr std::string_view kOpId = ", op_id = ";
  const size_t op_id_at = text.find(kOpId);
  if (op_id_at == std::string_view::npos || op_id_at == 0) return std::nullopt;
  auto op_id = NumberAfter(text, kOpId);
  if (!op_id) return std::nullopt;
  TorchOpRange r;
  r.op_id = *op_id;
  constexpr std::string_view kSeq = ", seq = ";
  const size_t seq_at = text.find(kSeq);
  const size_t name_end = std::min(seq_at, op_id_at);
  r.op = std::string(text.substr(0, name_end));
  if (seq_at != std::string_view::npos && seq_at < op_id_at) r.seq = NumberAfter(text, kSeq);
  r.backward = r.op.find("Backward") != std::string::npos || r.op.starts_with("autograd::engine::");
  constexpr std::string_view kSizes = ", sizes = ";
  if (const size_t sizes_at = text.find(kSizes); sizes_at != std::string_view::npos) {
    r.sizes = std::string(BracketedAt(text, sizes_at + kSizes.size()));
  }
  return r;
}

std::vector<BackwardTie> TieBackwardToForward(const NsysEvents& e, const std::vector<std::optional<TorchOpRange>>& ops,
                                              const std::vector<LaunchLink>& links) {
  const auto& n = e.nvtx;
  // Forward op ranges by (process, sequence number), in start order.
  std::map<std::pair<int64_t, int64_t>, std::vector<int32_t>> forward;
  for (size_t r = 0; r < ops.size(); ++r) {
    if (!ops[r] || ops[r]->backward || !ops[r]->seq) continue;
    forward[{n.global_tid[r] & kPidMask, *ops[r]->seq}].push_back(static_cast<int32_t>(r));
  }
  for (auto& [key, rows] : forward) {
    std::sort(rows.begin(), rows.end(), [&](int32_t a, int32_t b) { return n.start[a] < n.start[b]; });
  }
  std::vector<BackwardTie> ties;
  std::unordered_set<uint32_t> tied;
  for (const LaunchLink& l : links) {
    if (l.range < 0 || l.other_thread) continue;
    const auto& op = ops[static_cast<size_t>(l.range)];
    if (!op || !op->backward || !op->seq) continue;
    auto it = forward.find({n.global_tid[static_cast<size_t>(l.range)] & kPidMask, *op->seq});
    if (it == forward.end()) continue;
    const int64_t start = n.start[static_cast<size_t>(l.range)];
    // The latest forward op of that number that started before the backward function.
    auto after = std::upper_bound(it->second.begin(), it->second.end(), start,
                                  [&](int64_t t, int32_t row) { return t < n.start[row]; });
    if (after == it->second.begin()) continue;
    if (!tied.insert(l.op).second) continue;  // an operation ties once, to its innermost backward range
    ties.push_back({l.op, *(after - 1)});
  }
  return ties;
}

}  // namespace kscope::analysis
