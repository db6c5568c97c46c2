// Kernel names on the zoo dataset (tests/data/names/zoo_kernel_names.tsv, written by
// extract.sh from tests/data/zoo/): every distinct name's library, family and features against
// the hand-checked zoo_kernel_families.tsv; every spelling of one kernel (nsys's, the mangled
// name, ncu's) with one identity; no kernel of a known library left as `user`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "analysis/names/kernel_names.h"
#include "names_support.h"
#include "test_support.h"

namespace kscope {
namespace {

using analysis::IdentifyKernel;
using analysis::KernelIdentity;
using analysis::KernelMatchKey;

const std::string kNames = std::string(KSCOPE_TEST_DATA_DIR) + "/names/";

using testing::FeatureText;
using testing::NameRow;

std::vector<NameRow> ReadZooNames() { return testing::ReadNameRows("zoo_kernel_names.tsv"); }

// One line per distinct name: library, family, features, name; by library, family, name.
std::string FamilyTable(const std::vector<NameRow>& rows) {
  std::set<std::tuple<std::string, std::string, std::string, std::string>> lines;
  for (const auto& r : rows) {
    const auto k = IdentifyKernel(r.name);
    lines.emplace(std::string(analysis::LibraryName(k.library)), k.family, FeatureText(k), r.name);
  }
  std::string out =
      "# library\tfamily\tfeatures\tname: every distinct kernel name of the zoo (zoo_kernel_names.tsv), checked by "
      "hand\n";
  for (const auto& [library, family, features, name] : lines) {
    out += library + "\t" + family + "\t" + features + "\t" + name + "\n";
  }
  return out;
}

TEST(KernelNamesZoo, EveryZooNameAsCheckedByHand) {
  const auto rows = ReadZooNames();
  ASSERT_EQ(rows.size(), 892U);
  const std::string actual = FamilyTable(rows);
  const std::string expected = testing::ReadFile(kNames + "zoo_kernel_families.tsv");
  if (actual != expected) {
    const auto path = std::filesystem::temp_directory_path() / "zoo_kernel_families.actual.tsv";
    std::ofstream(path) << actual;
    ADD_FAILURE() << "families differ from tests/data/names/zoo_kernel_families.tsv; this run's are in " << path
                  << " (diff them, check every change by hand, then copy it over)";
  }
}

TEST(KernelNamesZoo, EverySpellingOfAKernelHasOneIdentity) {
  const auto rows = ReadZooNames();
  std::map<std::pair<std::string, std::string>, KernelIdentity> nsys;  // (workload, key) -> identity
  int undemangled = 0;
  for (const auto& r : rows) {
    if (r.source != "nsys") continue;
    const auto a = IdentifyKernel(r.name);
    nsys.emplace(std::pair{r.workload, KernelMatchKey(r.name)}, a);
    const auto b = IdentifyKernel(r.mangled);
    if (r.mangled.starts_with("_Z") &&
        b.demangled == r.mangled) {  // the C++ runtime's demangler refuses a few of nvcc's long names
      ++undemangled;
      continue;
    }
    EXPECT_EQ(KernelMatchKey(r.mangled), KernelMatchKey(r.name)) << r.mangled;
    EXPECT_EQ(a.family, b.family) << r.mangled;
    EXPECT_EQ(a.library, b.library) << r.mangled;
    EXPECT_EQ(a.features, b.features) << r.mangled;
  }
  EXPECT_EQ(undemangled, 7);  // cuDNN's CUTLASS convolutions (5) and the grouped GEMMs (2)
  int ncu = 0;
  for (const auto& r : rows) {
    if (r.source != "ncu") continue;
    ++ncu;
    const auto it = nsys.find({r.workload, KernelMatchKey(r.name)});
    ASSERT_NE(it, nsys.end()) << r.workload << ": no nsys kernel for " << r.name;
    const auto k = IdentifyKernel(r.name);
    EXPECT_EQ(k.family, it->second.family) << r.name;
    EXPECT_EQ(k.library, it->second.library) << r.name;
    EXPECT_EQ(k.features, it->second.features) << r.name;
  }
  EXPECT_EQ(ncu, 377);
}

// Every zoo kernel comes from PyTorch or a library it calls: none is `user`.
TEST(KernelNamesZoo, NoZooKernelIsUser) {
  for (const auto& r : ReadZooNames()) {
    EXPECT_NE(IdentifyKernel(r.name).library, analysis::KernelLibrary::kUser) << r.name;
  }
}

}  // namespace
}  // namespace kscope
