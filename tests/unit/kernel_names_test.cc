// Kernel names: the match key linking ncu's and the demangler's spellings to nsys's, on
// every distinct kernel name of the devset (tests/data/names/kernel_names.tsv, written by
// extract.sh), and tricky spellings.
#include "analysis/kernel_names.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "test_support.h"

namespace kscope {
namespace {

using analysis::IdentifyKernel;
using analysis::KernelMatchKey;

const std::string kNames = std::string(KSCOPE_TEST_DATA_DIR) + "/names/";

struct NameRow {
  std::string source;    // nsys, ncu, torch
  std::string workload;  // llama, tiny_cuda
  std::string name;      // nsys: the demangled name
  std::string mangled;   // nsys only
};

std::vector<NameRow> ReadNames() {
  std::vector<NameRow> rows;
  std::istringstream in(testing::ReadFile(kNames + "kernel_names.tsv"));
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

TEST(KernelMatchKey, LinksNcuAndMangledSpellingsToExactlyOneNsysKernel) {
  const auto rows = ReadNames();
  std::map<std::string, std::map<std::string, std::string>> nsys;  // workload -> key -> demangled
  for (const auto& r : rows) {
    if (r.source != "nsys") continue;
    const std::string key = KernelMatchKey(r.name);
    EXPECT_EQ(KernelMatchKey(r.mangled), key) << r.mangled;
    const auto [it, added] = nsys[r.workload].emplace(key, r.name);
    EXPECT_TRUE(added) << "two nsys kernels share a key:\n" << it->second << "\n" << r.name;
  }
  EXPECT_EQ(nsys["llama"].size(), 45U);
  EXPECT_EQ(nsys["tiny_cuda"].size(), 2U);
  int ncu = 0;
  for (const auto& r : rows) {
    if (r.source != "ncu") continue;
    ++ncu;
    EXPECT_TRUE(nsys[r.workload].contains(KernelMatchKey(r.name))) << r.workload << ": " << r.name;
  }
  EXPECT_EQ(ncu, 32);
}

TEST(KernelMatchKey, SpellingsOfOneKernel) {
  // Lambdas, operator(), literal casts and their demangler suffixes, const placement,
  // pointer spacing, `> >`, the anonymous namespace, a void return type inside the arguments.
  const std::string nsys =
      "void <unnamed>::k<(int)4, (unsigned long)2, (bool)1, (int)-2, std::array<char *, (unsigned long)3>, "
      "void ns::f<float>(const T1 &)::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)]>"
      "(T1, const T2 &)";
  const std::string demangler =
      "void (anonymous namespace)::k<4, 2ul, true, -2, std::array<char*, 3ul>, "
      "ns::f<float>(float const&)::{lambda()#2}::operator()() const::{lambda(float)#1}>(int, float const&)";
  const std::string ncu =
      "void <unnamed>::k<4, 2, 1, (int)-2, std::array<char *, 3>, "
      "void f<float>(const T1 &)::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)]>"
      "(T1, const T2 &)";
  const std::string key = "k<4,2,1,-2,array<char*,3>,f<float>::{lambda()#2}::operator()::{lambda(float)#1}>";
  EXPECT_EQ(KernelMatchKey(nsys), key);
  EXPECT_EQ(KernelMatchKey(demangler), key);
  EXPECT_EQ(KernelMatchKey(ncu), key);
  EXPECT_EQ(IdentifyKernel(nsys).base, "(anonymous namespace)::k");
  EXPECT_EQ(IdentifyKernel(demangler).base, "(anonymous namespace)::k");
}

TEST(KernelMatchKey, DifferentKernelsDiffer) {
  // Overloads of a function that is not a template keep their parameters.
  EXPECT_EQ(KernelMatchKey("saxpy(int, float, const float *, float *)"), "saxpy(int,float,float*,float*)");
  EXPECT_EQ(KernelMatchKey("_Z5saxpyifPKfPf"), "saxpy(int,float,float*,float*)");
  EXPECT_NE(KernelMatchKey("saxpy(int, float)"), KernelMatchKey("saxpy(int, double)"));
  EXPECT_NE(KernelMatchKey("void k<f(int)::[lambda() (instance 1)]>(T1)"),
            KernelMatchKey("void k<f(int)::[lambda() (instance 2)]>(T1)"));
  EXPECT_NE(KernelMatchKey("void k<cos(int)::[lambda() (instance 1)]>(T1)"),
            KernelMatchKey("void k<sin(int)::[lambda() (instance 1)]>(T1)"));
  EXPECT_NE(KernelMatchKey("void k<(int)4>(int)"), KernelMatchKey("void k<(int)8>(int)"));
  EXPECT_NE(KernelMatchKey("void k<a<b<int>>, c>(int)"), KernelMatchKey("void k<a<b<int>, c>>(int)"));
}

}  // namespace
}  // namespace kscope
