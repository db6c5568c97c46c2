#include "import/ncu/launch_columns.h"

#include <charconv>
#include <cmath>
#include <string_view>

#include "import/ncu/units.h"

namespace kscope::import::ncu {

namespace {

std::optional<int64_t> Integer(const std::string& s) {
  auto v = ParseNumber(s);
  // Only whole numbers that an int64 holds: casting anything else is undefined.
  constexpr double kLimit = 9.2e18;
  if (!v || !(*v >= -kLimit && *v <= kLimit) || *v != std::trunc(*v)) return std::nullopt;
  return static_cast<int64_t>(*v);
}

// "(256, 1, 1)" -> {256, 1, 1}
std::optional<std::array<int64_t, 3>> Dim3(std::string_view s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return std::nullopt;
  s = s.substr(1, s.size() - 2);
  std::array<int64_t, 3> out{};
  for (size_t i = 0; i < 3; ++i) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out[i]);
    if (ec != std::errc()) return std::nullopt;
    s.remove_prefix(static_cast<size_t>(ptr - s.data()));
    if (i < 2) {
      if (s.empty() || s.front() != ',') return std::nullopt;
      s.remove_prefix(1);
    }
  }
  if (!s.empty()) return std::nullopt;
  return out;
}

}  // namespace

Result<LaunchColumns> LaunchColumns::Find(const std::vector<std::string>& header) {
  LaunchColumns c;
  c.identity_.assign(header.size(), false);
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string& h = header[i];
    std::optional<size_t>* slot = nullptr;
    if (h == "ID") slot = &c.id_;
    if (h == "Process ID") slot = &c.pid_;
    if (h == "Process Name") slot = &c.process_;
    if (h == "Host Name") slot = &c.host_;
    if (h == "Kernel Name") slot = &c.name_;
    if (h == "Context") slot = &c.context_;
    if (h == "Stream") slot = &c.stream_;
    if (h == "Block Size") slot = &c.block_;
    if (h == "Grid Size") slot = &c.grid_;
    if (h == "Device") slot = &c.device_;
    if (h == "CC") slot = &c.cc_;
    if (slot != nullptr) {
      *slot = i;
      c.identity_[i] = true;
    } else if (h.find("_Range:") != std::string::npos) {  // NVTX push/pop and start/end columns
      c.nvtx_.push_back(i);
      c.identity_[i] = true;
    }
  }
  if (!c.id_ || !c.name_) return Error{"", "no \"ID\" or \"Kernel Name\" column", "export with ncu --csv"};
  return c;
}

bool LaunchColumns::IsIdentity(size_t i) const { return i < identity_.size() && identity_[i]; }

Result<store::NcuLaunchKey> LaunchColumns::Key(const std::vector<std::string>& row) const {
  auto cell = [&](const std::optional<size_t>& col) -> const std::string* {
    return col && *col < row.size() ? &row[*col] : nullptr;
  };
  store::NcuLaunchKey k;
  auto id = Integer(*cell(id_));
  if (!id) return Error{"", "ID \"" + *cell(id_) + "\" is not a number", ""};
  k.ncu_id = *id;
  k.name = *cell(name_);
  if (const auto* v = cell(pid_)) k.pid = Integer(*v);
  if (const auto* v = cell(process_)) k.process = *v;
  if (const auto* v = cell(host_)) k.host = *v;
  if (const auto* v = cell(context_)) k.context = Integer(*v);
  if (const auto* v = cell(stream_)) k.stream = Integer(*v);
  if (const auto* v = cell(device_)) k.device = Integer(*v);
  if (const auto* v = cell(cc_)) k.cc = *v;
  if (const auto* v = cell(grid_)) {
    auto d = Dim3(*v);
    if (!d) return Error{"", "Grid Size \"" + *v + "\" is not (x, y, z)", ""};
    k.grid = *d;
  }
  if (const auto* v = cell(block_)) {
    auto d = Dim3(*v);
    if (!d) return Error{"", "Block Size \"" + *v + "\" is not (x, y, z)", ""};
    k.block = *d;
  }
  for (size_t col : nvtx_) {
    if (col >= row.size() || row[col].empty()) continue;
    if (!k.nvtx.empty()) k.nvtx += " | ";
    k.nvtx += row[col];
  }
  return k;
}

}  // namespace kscope::import::ncu
