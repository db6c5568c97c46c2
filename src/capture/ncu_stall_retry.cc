#include "capture/ncu_stall_retry.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_map>

namespace kscope::capture {

namespace {

// The kernel (index into sel.kernels) of each planned launch of `pass`, by row; empty when the
// pass does not say (a window over a growing shape's sizes).
std::unordered_map<int64_t, size_t> OwnerOfRows(const NcuPass& pass) {
  std::unordered_map<int64_t, size_t> owner;
  if (pass.row_kernels.size() != pass.profiled_rows.size()) return owner;
  for (size_t i = 0; i < pass.profiled_rows.size(); ++i) owner.emplace(pass.profiled_rows[i], pass.row_kernels[i]);
  return owner;
}

std::string Shown(const std::string& name) { return name.size() > 80 ? name.substr(0, 77) + "..." : name; }

}  // namespace

StallRetry RetryAfterStall(const Selection& sel, const NcuPass& pass, int64_t profiled, std::map<size_t, int>& stalls) {
  StallRetry r;
  const auto done = static_cast<size_t>(std::max<int64_t>(profiled, 0));
  if (pass.skip >= 0 || done >= pass.profiled_rows.size() || pass.row_kernels.size() != pass.profiled_rows.size()) {
    return r;
  }
  r.unreached = static_cast<int64_t>(pass.profiled_rows.size() - done);
  const std::unordered_map<int64_t, size_t> owner = OwnerOfRows(pass);
  if (auto it = owner.find(pass.profiled_rows[done]); it != owner.end()) {
    r.stalled = it->second;
    ++stalls[it->second];
  }
  // Every kernel with a launch the stopped run did not reach, in the pass's order of importance.
  std::set<size_t> remaining;
  for (size_t i = done; i < pass.profiled_rows.size(); ++i) {
    if (auto it = owner.find(pass.profiled_rows[i]); it != owner.end()) remaining.insert(it->second);
  }
  NcuPass retry;
  std::vector<std::string> names;
  for (size_t k : pass.kernels) {
    if (!remaining.contains(k)) continue;
    if (stalls[k] >= 2) {
      r.left_out.push_back(k);
      continue;
    }
    retry.kernels.push_back(k);
    names.push_back(sel.kernels[k].mangled);
  }
  for (size_t i = 0; i < pass.profiled_rows.size(); ++i) {
    const int64_t row = pass.profiled_rows[i];
    auto it = owner.find(row);
    if (it == owner.end()) continue;
    if (std::find(retry.kernels.begin(), retry.kernels.end(), it->second) != retry.kernels.end()) {
      retry.profiled_rows.push_back(row);
      retry.row_kernels.push_back(it->second);
    } else if (i >= done && std::find(r.left_out.begin(), r.left_out.end(), it->second) != r.left_out.end()) {
      ++r.launches_left_out;
    }
  }
  if (retry.kernels.empty()) return r;
  retry.filter = UnionFilter(names);
  r.pass = std::move(retry);
  return r;
}

std::string DescribeRetry(const Selection& sel, const StallRetry& retry, size_t pass_number, size_t retry_number,
                          size_t max_retries) {
  const std::string at = retry.stalled ? "'" + Shown(sel.kernels[*retry.stalled].name) + "'" : "an unknown kernel";
  std::string text = fmt::format("ncu run {} made no progress inside a launch of {}", pass_number, at);
  if (!retry.left_out.empty()) {
    std::string names;
    for (size_t k : retry.left_out) names += (names.empty() ? "'" : ", '") + Shown(sel.kernels[k].name) + "'";
    text += fmt::format("; left out after stalling twice: {} ({} planned launch{} not profiled)", names,
                        retry.launches_left_out, retry.launches_left_out == 1 ? "" : "es");
  }
  if (!retry.pass) return text + "; nothing is left to retry";
  if (retry_number > max_retries) {
    return text + fmt::format(
                      "; the {} planned launch{} it did not reach stay unprofiled (profile.ncu_stall_retries={} "
                      "used up)",
                      retry.unreached, retry.unreached == 1 ? "" : "es", max_retries);
  }
  return text + fmt::format(
                    "; retry {} of {}: a new run of the workload profiles the {} planned launches of the {} "
                    "kernel{} it did not finish",
                    retry_number, max_retries, retry.pass->profiled_rows.size(), retry.pass->kernels.size(),
                    retry.pass->kernels.size() == 1 ? "" : "s");
}

}  // namespace kscope::capture
