// The kernel-name lists of tests/data/names/ (written by extract.sh): one row per spelling a
// tool printed, and the features of an identity as one cell, for the name tests' goldens.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "analysis/names/kernel_names.h"
#include "test_support.h"

namespace kscope::testing {

struct NameRow {
  std::string source;    // nsys, ncu, torch
  std::string workload;  // the devset capture or zoo model
  std::string name;      // nsys: the demangled name
  std::string mangled;   // nsys only
};

// The rows of tests/data/names/`file` (tab-separated: source, workload, name[, mangled]).
inline std::vector<NameRow> ReadNameRows(const std::string& file) {
  std::vector<NameRow> rows;
  std::istringstream in(ReadFile(std::string(KSCOPE_TEST_DATA_DIR) + "/names/" + file));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.starts_with("#")) continue;
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
    if (f.size() < 3) continue;
    rows.push_back({f[0], f[1], f[2], f.size() > 3 ? f[3] : ""});
  }
  return rows;
}

// "key=value, key=value", or "-" without features.
inline std::string FeatureText(const analysis::KernelIdentity& k) {
  std::string out;
  for (const auto& f : k.features) out += (out.empty() ? "" : ", ") + f.key + "=" + f.value;
  return out.empty() ? "-" : out;
}

}  // namespace kscope::testing
