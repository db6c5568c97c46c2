#include "analysis/names/short_names.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace kscope::analysis {

namespace {

// Features whose value reads alone (a shape, a dtype, a layout); others read key=value.
bool ValueReadsAlone(std::string_view key) {
  static const std::set<std::string_view> kAlone{"dtype", "tile",     "layout", "variant", "arch",
                                                 "math",  "schedule", "split",  "mma"};
  return kAlone.contains(key);
}

std::string FeatureText(const KernelFeature& f) {
  std::string value = f.value;
  if (f.key == "template") {
    if (value.size() > kShortTemplateChars) value = value.substr(0, kShortTemplateChars - 3) + "...";
    return "<" + value + ">";
  }
  return ValueReadsAlone(f.key) ? value : f.key + "=" + value;
}

std::string ValueOf(const KernelIdentity& k, std::string_view key) {
  for (const KernelFeature& f : k.features) {
    if (f.key == key) return f.value;
  }
  return "";
}

// The feature keys whose values differ among `members` (identities of one family), in the
// order the first member that has each lists them.
std::vector<std::string> DifferingKeys(const std::vector<const KernelIdentity*>& members) {
  std::vector<std::string> keys;
  for (const KernelIdentity* k : members) {
    for (const KernelFeature& f : k->features) {
      if (std::find(keys.begin(), keys.end(), f.key) != keys.end()) continue;
      const std::string first = ValueOf(*members.front(), f.key);
      const bool differs = std::any_of(members.begin(), members.end(),
                                       [&](const KernelIdentity* m) { return ValueOf(*m, f.key) != first; });
      if (differs) keys.push_back(f.key);
    }
  }
  return keys;
}

// How many kernels of `members` the values of `keys` tell apart.
size_t Classes(const std::vector<const KernelIdentity*>& members, const std::vector<std::string>& keys) {
  std::set<std::vector<std::string>> seen;
  for (const KernelIdentity* k : members) {
    std::vector<std::string> values;
    for (const std::string& key : keys) values.push_back(ValueOf(*k, key));
    seen.insert(std::move(values));
  }
  return seen.size();
}

// The fewest differing keys that tell the members apart, picked greedily: each step takes
// the key that tells most of them apart (the family's feature order breaks ties).
std::vector<std::string> TellingKeys(const std::vector<const KernelIdentity*>& members) {
  const std::vector<std::string> candidates = DifferingKeys(members);
  std::vector<std::string> chosen;
  size_t classes = 1;
  while (classes < members.size()) {
    std::string best;
    size_t best_classes = classes;
    for (const std::string& key : candidates) {
      if (std::find(chosen.begin(), chosen.end(), key) != chosen.end()) continue;
      std::vector<std::string> with = chosen;
      with.push_back(key);
      if (const size_t c = Classes(members, with); c > best_classes) {
        best = key;
        best_classes = c;
      }
    }
    if (best.empty()) break;
    chosen.push_back(best);
    classes = best_classes;
  }
  return chosen;
}

std::string WithFeatures(const KernelIdentity& k, const std::vector<std::string>& keys) {
  std::string out = k.family;
  for (const KernelFeature& f : k.features) {
    if (std::find(keys.begin(), keys.end(), f.key) != keys.end()) out += " " + FeatureText(f);
  }
  return out;
}

// Kernels no feature told apart: " #2", " #3" after the first, in the order given.
void NumberRepeats(const std::vector<std::string>& distinct, std::map<std::string, std::string>& short_of) {
  std::map<std::string, int> seen;
  for (const std::string& name : distinct) {
    std::string& s = short_of[name];
    const int n = ++seen[s];
    if (n > 1) s += fmt::format(" #{}", n);
  }
}

}  // namespace

std::string ShortKernelName(std::string_view name) { return IdentifyKernel(name).family; }

std::vector<std::string> ShortKernelNames(const std::vector<std::string>& names) {
  // One kernel, one short name: nsys's and ncu's spellings of it share a match key.
  std::vector<std::string> keys, distinct;
  std::map<std::string, KernelIdentity> identity;
  for (const std::string& n : names) {
    keys.push_back(KernelMatchKey(n));
    if (identity.contains(keys.back())) continue;
    distinct.push_back(keys.back());
    identity[keys.back()] = IdentifyKernel(n);
  }
  std::map<std::string, std::vector<const KernelIdentity*>> by_family;
  for (const std::string& key : distinct) by_family[identity.at(key).family].push_back(&identity.at(key));
  std::map<std::string, std::vector<std::string>> telling;  // family -> the keys that tell its kernels apart
  for (const auto& [family, members] : by_family) telling[family] = TellingKeys(members);
  std::map<std::string, std::string> short_of;
  for (const std::string& key : distinct) {
    const KernelIdentity& k = identity.at(key);
    const auto& members = by_family.at(k.family);
    short_of[key] = members.size() == 1 ? k.family : WithFeatures(k, telling.at(k.family));
  }
  NumberRepeats(distinct, short_of);
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const std::string& key : keys) out.push_back(short_of.at(key));
  return out;
}

}  // namespace kscope::analysis
