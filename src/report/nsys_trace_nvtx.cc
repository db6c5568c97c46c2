#include "report/nsys_trace_nvtx.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>
#include <vector>

namespace kscope::report {

namespace {

constexpr int64_t kPushPop = 59, kNvtxtPushPop = 70, kDomainCreate = 75;
constexpr int64_t kProcessBits = 0x0000FFFFFF000000LL;

struct Range {
  int64_t row_id, start, end, tid;  // end: the last NVTX timestamp when the range never ended
  size_t name;                      // index into the interned names
  int64_t parent = -1;              // index of the tightest enclosing range on the same thread
  int64_t child_time = 0, children = 0, level = 0;
  bool dropped = false;  // in a cycle of identical ranges, which nsys's tree never reaches
};

// Names as nsys builds them: 'domain:text', the default domain empty.
class Names {
 public:
  size_t Intern(const std::string& s) {
    auto [it, added] = index_.try_emplace(s, names_.size());
    if (added) names_.push_back(s);
    return it->second;
  }
  [[nodiscard]] const std::string& operator[](size_t i) const { return names_[i]; }

 private:
  std::unordered_map<std::string, size_t> index_;
  std::vector<std::string> names_;
};

// Domain names by (domain id, process): the text of the earliest domain-create event.
Result<std::map<std::pair<int64_t, int64_t>, std::string>> Domains(sql::Db& db) {
  auto q = db.Prepare(
      fmt::format("SELECT e.domainId, e.globalTid, coalesce(s.value, e.text) FROM NVTX_EVENTS e LEFT JOIN StringIds s "
                  "ON s.id = e.textId WHERE e.eventType = {} ORDER BY e.start, e.rowid",
                  kDomainCreate));
  if (!q.ok()) return q.error();
  std::map<std::pair<int64_t, int64_t>, std::string> domains;
  while (q->Step()) {
    if (q->IsNull(0) || q->IsNull(2)) continue;
    domains.try_emplace({q->Int(0), q->Int(1) & kProcessBits}, q->Text(2));
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  return domains;
}

// Parents by each thread's stack: ranges by start (the longer first), the innermost still
// open range that ends no earlier is the tightest one around.
void LinkParents(std::vector<Range>& ranges) {
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Range &x = ranges[a], &y = ranges[b];
    if (x.tid != y.tid) return x.tid < y.tid;
    if (x.start != y.start) return x.start < y.start;
    if (x.end != y.end) return x.end > y.end;
    return x.row_id < y.row_id;
  });
  std::vector<size_t> stack;
  for (size_t k = 0; k < order.size(); ++k) {
    Range& r = ranges[order[k]];
    if (k > 0 && ranges[order[k - 1]].tid != r.tid) stack.clear();
    while (!stack.empty() && ranges[stack.back()].end < r.end) stack.pop_back();
    if (!stack.empty()) {
      Range& p = ranges[stack.back()];
      if (p.start == r.start && p.end == r.end) {
        // Two identical ranges each enclose the other: nsys links them to each other, and
        // neither (nor anything inside them) is reached from a root.
        if (!p.dropped && p.parent >= 0) {
          ranges[p.parent].child_time -= p.end - p.start;
          ranges[p.parent].children -= 1;
        }
        p.dropped = r.dropped = true;
      } else {
        r.parent = static_cast<int64_t>(stack.back());
        r.dropped = p.dropped;
        r.level = p.level + 1;
        if (!r.dropped) {
          p.child_time += r.end - r.start;
          p.children += 1;
        }
      }
    }
    stack.push_back(order[k]);
  }
}

}  // namespace

Status NvtxPushPopTrace(sql::Db& db, const std::string& title, RowSink& sink) {
  auto domains = Domains(db);
  if (!domains.ok()) return domains.error();
  auto q = db.Prepare(fmt::format(
      "SELECT e.rowid, e.start, e.end, e.globalTid, e.domainId, coalesce(s.value, e.text, '') FROM NVTX_EVENTS e "
      "LEFT JOIN StringIds s ON s.id = e.textId WHERE e.eventType IN ({}, {})",
      kPushPop, kNvtxtPushPop));
  if (!q.ok()) return q.error();
  Names names;
  std::vector<Range> ranges;
  int64_t last_ts = 0;
  bool any_ts = false;
  while (q->Step()) {
    Range r{q->Int(0), q->Int(1), q->IsNull(2) ? -1 : q->Int(2), q->Int(3), 0};
    const int64_t domain = q->IsNull(4) ? -1 : q->Int(4);
    auto d = domains->find({domain, r.tid & kProcessBits});
    r.name = names.Intern((d == domains->end() ? std::string() : d->second) + ":" + q->Text(5));
    last_ts = any_ts ? std::max({last_ts, r.start, r.end}) : std::max(r.start, r.end);
    any_ts = true;
    ranges.push_back(r);
  }
  KSCOPE_RETURN_IF_ERROR(q->status());
  for (Range& r : ranges) {
    if (r.end < 0) r.end = last_ts;
  }
  LinkParents(ranges);

  std::vector<size_t> order;
  order.reserve(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (!ranges[i].dropped) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Range &x = ranges[a], &y = ranges[b];
    if (x.start != y.start) return x.start < y.start;
    if (x.end - x.start != y.end - y.start) return x.end - x.start < y.end - y.start;
    return x.row_id < y.row_id;
  });
  sink.Begin(title, {"Start (ns)", "End (ns)", "Duration (ns)", "DurChild (ns)", "DurNonChild (ns)", "Name", "PID",
                     "TID", "Lvl", "NumChild", "RangeId", "ParentId", "RangeStack", "NameTree"});
  std::vector<Cell> row;
  std::vector<int64_t> stack;
  for (size_t i : order) {
    const Range& r = ranges[i];
    stack.clear();
    for (int64_t k = static_cast<int64_t>(i); k >= 0; k = ranges[static_cast<size_t>(k)].parent) {
      stack.push_back(ranges[static_cast<size_t>(k)].row_id);
    }
    std::reverse(stack.begin(), stack.end());
    std::string range_stack;
    for (int64_t id : stack) range_stack += ":" + std::to_string(id);
    std::string tree;
    for (int64_t l = 0; l < r.level; ++l) tree += "--";
    const int64_t duration = r.end - r.start;
    row.clear();
    row.emplace_back(r.start);
    row.emplace_back(r.end);
    row.emplace_back(duration);
    row.emplace_back(r.child_time);
    row.emplace_back(duration - r.child_time);
    row.emplace_back(names[r.name]);
    row.emplace_back((r.tid >> 24) & 0xFFFFFF);
    row.emplace_back(r.tid & 0xFFFFFF);
    row.emplace_back(r.level);
    row.emplace_back(r.children);
    row.emplace_back(r.row_id);
    row.emplace_back(r.parent < 0 ? Cell{} : Cell{ranges[static_cast<size_t>(r.parent)].row_id});
    row.emplace_back(range_stack);
    row.emplace_back(tree + names[r.name]);
    sink.Row(row);
  }
  sink.End();
  return Status::Ok();
}

}  // namespace kscope::report
