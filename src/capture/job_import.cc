#include "capture/job_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "import/nsys/export_manifest.h"

namespace kscope::capture {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// One node's directory, read, with where its export goes on the job's timeline.
struct Node {
  RunDirFiles files;
  std::optional<int64_t> rank;  // the rank its manifest records (kscope profile in wrapper mode)
  int64_t session_start_ns = 0;
  import::FilePlacement placement;
};

std::optional<int64_t> RankOf(const json& manifest) {
  if (!manifest.contains("job") || !manifest["job"].is_object()) return std::nullopt;
  const json& j = manifest["job"];
  if (!j.contains("rank") || !j["rank"].is_number_integer()) return std::nullopt;
  return j["rank"].get<int64_t>();
}

// Reads every directory; each must hold its own discovery export.
Result<std::vector<Node>> ReadNodes(const std::vector<fs::path>& dirs, bool partial) {
  std::vector<Node> nodes;
  for (const auto& d : dirs) {
    auto read = ReadRunDir(d, partial);
    if (!read.ok()) return read.error();
    if (read->nsys.empty()) {
      return Error{d.string(), "a run directory of a job holds no nsys export of its own (a targeted run?)",
                   "import the directories of the job's discovery runs together; import this one alone"};
    }
    auto start = import::nsys::SessionStartNs(read->nsys);
    if (!start.ok()) return start.error();
    Node n;
    n.rank = RankOf(read->manifest);
    n.session_start_ns = *start;
    n.files = std::move(read).value();
    nodes.push_back(std::move(n));
  }
  return nodes;
}

// Nodes in rank order where every manifest records a rank, else by session start; each placed
// after the earliest session start, on a host of its own (1, 2, ...).
void PlaceNodes(std::vector<Node>& nodes) {
  const bool ranked = std::all_of(nodes.begin(), nodes.end(), [](const Node& n) { return n.rank.has_value(); });
  std::stable_sort(nodes.begin(), nodes.end(), [&](const Node& a, const Node& b) {
    return ranked ? *a.rank < *b.rank : a.session_start_ns < b.session_start_ns;
  });
  int64_t first = nodes.front().session_start_ns;
  for (const auto& n : nodes) first = std::min(first, n.session_start_ns);
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].placement = {nodes[i].session_start_ns - first, static_cast<int64_t>(i) + 1};
  }
}

// The job's part of the run's manifest: each directory, its rank and placement.
json NodesJson(const std::string& job, const std::vector<Node>& nodes) {
  json j = {{"id", job}, {"nodes", json::array()}};
  std::error_code ec;
  for (const auto& n : nodes) {
    j["nodes"].push_back({{"dir", fs::absolute(n.files.out.dir, ec).string()},
                          {"run", n.files.out.profiled_run},
                          {"rank", n.rank ? json(*n.rank) : json()},
                          {"host", n.files.manifest.value("host", "")},
                          {"session_start_ns", n.session_start_ns},
                          {"offset_ns", n.placement.offset_ns},
                          {"host_id", n.placement.host}});
  }
  return j;
}

}  // namespace

namespace {

// A directory's place in a job: its job id and rank, when it can be one node's profile of a job
// (its own discovery, not a sweep's point).
struct JobMember {
  std::string id;
  std::optional<int64_t> rank;
};
std::optional<JobMember> MemberOf(const json& m) {
  if (!m.contains("job") || !m["job"].is_object() || !m["job"].contains("id") || !m["job"]["id"].is_string()) {
    return std::nullopt;
  }
  if (m.contains("discovery_run")) return std::nullopt;  // a targeted run: its discovery is the node's profile
  if (m.contains("sweep_point") && m["sweep_point"].is_object() && !m["sweep_point"].empty()) return std::nullopt;
  return JobMember{m["job"]["id"].get<std::string>(), RankOf(m)};
}

}  // namespace

Result<std::string> JobIdOf(const fs::path& dir) {
  auto read = ReadRunDirManifest(dir);
  if (!read.ok()) return read.error();
  auto member = MemberOf(*read);
  return member ? member->id : std::string();
}

Result<std::vector<std::vector<fs::path>>> GroupByJob(const std::vector<fs::path>& dirs, const std::string& job) {
  if (!job.empty()) return std::vector<std::vector<fs::path>>{dirs};
  std::vector<std::vector<fs::path>> groups;
  std::map<std::string, size_t> group_of;
  std::map<std::string, std::set<int64_t>> ranks_of;  // the ranks each job's group holds
  for (const auto& d : dirs) {
    auto m = ReadRunDirManifest(d);
    auto member = m.ok() ? MemberOf(*m) : std::nullopt;  // one that cannot be read fails on its own
    // A rank seen before in the job is another profile of that rank (a second run in one
    // allocation), not another node: it stays a run of its own.
    if (!member || (member->rank && ranks_of[member->id].contains(*member->rank))) {
      groups.push_back({d});
      continue;
    }
    if (member->rank) ranks_of[member->id].insert(*member->rank);
    auto [it, added] = group_of.try_emplace(member->id, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(d);
  }
  return groups;
}

Result<RunDirOutcome> ImportJobRunDirs(store::Store& store, const std::vector<fs::path>& dirs, const std::string& job,
                                       const store::Manifest& user, const import::ImportOptions& options) {
  auto nodes = ReadNodes(dirs, options.partial);
  if (!nodes.ok()) return nodes.error();
  PlaceNodes(*nodes);
  import::ImportOptions opts = options;
  opts.manifest = RunDirManifest(nodes->front().files.manifest, user);
  opts.manifest.tags["job"] = job;
  opts.run_per_file = false;
  opts.into_run = 0;
  opts.refuse_unrelated_ncu = false;  // each node's plan says which kernel each launch is
  std::vector<std::string> files;
  for (const auto& n : *nodes) {
    files.push_back(n.files.nsys);
    opts.placements[n.files.nsys] = n.placement;
    for (const auto& [copy, original] : n.files.originals()) opts.recorded_paths[copy] = original;
  }
  // Each node's passes, planned on the node's own kernel rows, which follow the nodes before it
  // in the run: the derivation step links them before anything is derived from the links.
  for (const auto& n : *nodes) {
    for (const auto& pass : n.files.passes) {
      files.insert(files.end(), pass.files.begin(), pass.files.end());
      opts.planned.push_back(
          {.path = pass.files.front(), .profiled_rows = pass.profiled_rows, .rows_of = n.files.nsys});
    }
  }
  RunDirOutcome out;
  out.dir = nodes->front().files.out.dir;
  out.profiled_run = nodes->front().files.out.profiled_run;
  out.status = "complete";
  auto link = [&](const std::vector<import::FileOutcome>& done) -> Status {
    out.run_id = done.front().run_id;
    out.files = static_cast<int64_t>(done.size());
    for (const auto& f : done) out.rows += f.rows_read;
    for (const auto& n : *nodes) {
      if (n.files.out.status != "complete") out.status = "incomplete";
      for (const auto& note : n.files.out.notes) out.notes.push_back(note);
    }
    for (const auto& f : done) out.linked += f.links.planned;
    json capture = nodes->front().files.manifest;
    std::error_code ec;
    capture["job"] = NodesJson(job, *nodes);
    capture["imported_from"] = {{"dir", fs::absolute(out.dir, ec).string()}, {"run", out.profiled_run}};
    capture["run_dir"] = fs::absolute(out.dir, ec).string();  // where kscope report writes
    for (const auto& note : out.notes) capture["notes"].push_back(note);
    return store.SetRunStatus(out.run_id, out.status, capture.dump());
  };
  auto imported = import::ImportFiles(store, files, opts, link);
  if (!imported.ok()) return imported.error();
  out.notes.insert(out.notes.begin(), fmt::format("job {}: {} run directories in one run", job, nodes->size()));
  return out;
}

}  // namespace kscope::capture
