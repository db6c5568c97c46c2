// Kernel names: every distinct kernel name of the devset (tests/data/names/kernel_names.tsv,
// written by extract.sh) against the hand-checked identities in kernel_identity.txt, the
// match key linking ncu's and the demangler's spellings to nsys's, and tricky spellings.
#include "analysis/names/kernel_names.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

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

std::vector<NameRow> ReadNames() { return testing::ReadNameRows("kernel_names.tsv"); }

// What a spelling says beyond the name itself: its base, and where it differs from the
// kernel's nsys spelling, family, library or features (never, when the rules are right).
void Spelling(std::ostream& out, std::string_view label, const std::string& name, const KernelIdentity& first) {
  const auto k = IdentifyKernel(name);
  out << label << name << "\n";
  if (k.demangled != name) out << "  demangled  " << k.demangled << "\n";
  out << "  base       " << k.base << "\n";
  if (k.family != first.family) out << "  family     " << k.family << "\n";
  if (k.library != first.library) out << "  library    " << analysis::LibraryName(k.library) << "\n";
  if (k.features != first.features) out << "  features   " << FeatureText(k) << "\n";
}

// One block per kernel of an nsys export: identity, then each spelling (nsys's, the
// demangled mangled name, ncu's) with its base name. Blocks by workload, library, family.
std::string IdentityReport(const std::vector<NameRow>& rows) {
  using Block = std::tuple<std::string, std::string, std::string, std::string>;  // sort key
  std::map<Block, std::string> blocks;
  std::set<const NameRow*> placed;
  for (const auto& r : rows) {
    if (r.source != "nsys") continue;
    const auto k = IdentifyKernel(r.name);
    const std::string key = KernelMatchKey(r.name);
    std::ostringstream out;
    out << "== " << r.workload << ": " << key << "\n"
        << "family       " << k.family << "\nlibrary      " << analysis::LibraryName(k.library) << "\n"
        << "features     " << FeatureText(k) << "\n";
    Spelling(out, "nsys         ", r.name, k);
    if (r.mangled != r.name) Spelling(out, "mangled      ", r.mangled, k);
    for (const auto& other : rows) {
      if (other.source != "nsys" && other.workload == r.workload && KernelMatchKey(other.name) == key) {
        Spelling(out, other.source == "ncu" ? "ncu          " : "torch        ", other.name, k);
        placed.insert(&other);
      }
    }
    blocks[{r.workload, std::string(analysis::LibraryName(k.library)), k.family, key}] = out.str();
  }
  std::string report;
  for (const auto& [order, text] : blocks) report += text + "\n";
  for (const auto& r : rows) {
    if (r.source != "nsys" && !placed.contains(&r)) report += "== no nsys kernel: " + r.source + " " + r.name + "\n";
  }
  return report;
}

TEST(KernelNames, EveryDevsetNameAsCheckedByHand) {
  const auto rows = ReadNames();
  ASSERT_EQ(rows.size(), 79U);
  const std::string actual = IdentityReport(rows);
  const std::string expected = testing::ReadFile(kNames + "kernel_identity.txt");
  if (actual != expected) {
    const auto path = std::filesystem::temp_directory_path() / "kernel_identity.actual.txt";
    std::ofstream(path) << actual;
    ADD_FAILURE() << "identities differ from tests/data/names/kernel_identity.txt; this run's are in " << path
                  << " (diff them, check every change by hand, then copy it over)";
  }
}

TEST(KernelNames, EverySpellingOfAKernelHasItsIdentity) {
  for (const auto& r : ReadNames()) {
    if (r.source != "nsys") continue;
    const auto a = IdentifyKernel(r.name);
    const auto b = IdentifyKernel(r.mangled);
    EXPECT_EQ(a.family, b.family) << r.mangled;
    EXPECT_EQ(a.library, b.library) << r.mangled;
    EXPECT_EQ(a.features, b.features) << r.mangled;
  }
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

TEST(KernelNames, TrickySpellings) {
  // Addresses, references and nested templates.
  auto k = IdentifyKernel("void ns::k<&ns::table, std::pair<int, std::vector<float>>>(int &, T1 *)");
  EXPECT_EQ(k.base, "ns::k");
  EXPECT_EQ(k.family, "k");
  EXPECT_EQ(k.library, analysis::KernelLibrary::kUser);
  EXPECT_EQ(FeatureText(k), "template=&table, pair<int,vector<float>>");
  EXPECT_EQ(KernelMatchKey("void ns::k<& ns::table>(int&)"), KernelMatchKey("void ns::k<&ns::table>(int &)"));
  // A lambda as the kernel's own template argument, and operator() in a qualified name.
  k = IdentifyKernel("void ns::launch<ns::S::operator ()(int) const::[lambda(int) (instance 1)]>(T1)");
  EXPECT_EQ(k.base, "ns::launch");
  EXPECT_EQ(FeatureText(k), "template=operator()::{lambda(int)#1}");
  // Empty, garbage, unbalanced, and what the demangler rejects: back as given, no family rules.
  for (const std::string_view s : {"", "<<<", ")))(((", "{lambda(", "[lambda(int) (instance", "_Znot_mangled"}) {
    k = IdentifyKernel(s);
    EXPECT_EQ(k.demangled, s);
    EXPECT_EQ(k.library, analysis::KernelLibrary::kUser) << s;
  }
  EXPECT_EQ(IdentifyKernel("").family, "");
  EXPECT_EQ(KernelMatchKey(""), "");
  EXPECT_EQ(IdentifyKernel("<<<").family, "<<<");
}

// Libraries neither the devset nor the zoo runs: names spelled after each library's naming
// scheme, not captured, so only what the rules read off them is checked.
TEST(KernelNames, LibrariesOutsideTheDevset) {
  auto k = IdentifyKernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  EXPECT_EQ(k.library, analysis::KernelLibrary::kNccl);
  EXPECT_EQ(k.family, "nccl:AllReduce");
  EXPECT_EQ(FeatureText(k), "op=AllReduce, algo=RING, proto=LL, redop=Sum, dtype=f32");
  k = IdentifyKernel("triton_poi_fused_add_mul_0");
  EXPECT_EQ(k.library, analysis::KernelLibrary::kTriton);
  EXPECT_EQ(k.family, "triton_pointwise:add+mul");
  EXPECT_EQ(FeatureText(k), "kind=pointwise, index=0");
  k = IdentifyKernel("void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>, true>(Flash_fwd_params)");
  EXPECT_EQ(k.library, analysis::KernelLibrary::kFlashAttention);
  EXPECT_EQ(k.family, "flash_fwd_kernel");
  EXPECT_EQ(FeatureText(k), "op=attention, template=Flash_fwd_kernel_traits<128,64>, 1");
  k = IdentifyKernel("ampere_sgemm_128x64_nn");
  EXPECT_EQ(k.library, analysis::KernelLibrary::kCublas);
  EXPECT_EQ(k.family, "cublas_gemm");
  EXPECT_EQ(FeatureText(k), "op=gemm, arch=ampere, math=s, tile=128x64, layout=nn");
  k = IdentifyKernel(
      "void gemvx::kernel<int, int, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, false, true, true, false, 7, "
      "false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const __nv_bfloat16>, "
      "cublasGemvTensorStridedBatched<const __nv_bfloat16>, cublasGemvTensorStridedBatched<__nv_bfloat16>, float>>"
      "(T13)");
  EXPECT_EQ(k.library, analysis::KernelLibrary::kCublas);
  EXPECT_EQ(k.family, "gemv");
  EXPECT_EQ(FeatureText(k), "op=gemv, variant=gemvx");
  k = IdentifyKernel(
      "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false, "
      "cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const float>, "
      "cublasGemvTensorStridedBatched<const float>, cublasGemvTensorStridedBatched<float>, float>>"
      "(T12, T6, T6)");
  EXPECT_EQ(k.library, analysis::KernelLibrary::kCublas);
  EXPECT_EQ(FeatureText(k), "op=gemv, variant=gemv2T_kernel_val");
  // PyTorch's FlashAttention and memory-efficient attention, CUB's sorts.
  k = IdentifyKernel(
      "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
      "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t>>, false, true, "
      "false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)");
  EXPECT_EQ(k.library, analysis::KernelLibrary::kFlashAttention);
  EXPECT_EQ(k.family, "flash_fwd_kernel");
  k = IdentifyKernel(
      "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::"
      "bfloat16_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)");
  EXPECT_EQ(k.library, analysis::KernelLibrary::kFlashAttention);
  EXPECT_EQ(k.family, "fmha_cutlassF");
  EXPECT_EQ(FeatureText(k), "op=attention, variant=aligned, arch=sm80, dtype=bf16, tile=64x64, options=rf");
  k = IdentifyKernel(
      "void cub::CUB_200200_900_NS::DeviceRadixSortOnesweepKernel<cub::CUB_200200_900_NS::"
      "DeviceRadixSortPolicy<long, long, int>::Policy800, false, long, long, int, int>(T5 *, T5 *, "
      "T6 *, const T6 *, T3 *, const T3 *, T4 *, const T4 *, int, int, int)");
  EXPECT_EQ(k.library, analysis::KernelLibrary::kCub);
  EXPECT_EQ(k.family, "DeviceRadixSortOnesweepKernel");
  k = IdentifyKernel("nvjet_sm90_hsh_128x256_64x4_2x1_v_bz_coopB_NNT");
  EXPECT_EQ(k.family, "nvjet_gemm");
  EXPECT_EQ(FeatureText(k),
            "op=gemm, arch=sm90, dtype=hsh, input=fp16, compute=fp32, output=fp16, tile=128x256, tile_k=64, "
            "stages=4, cluster=2x1, raster=v, schedule=coopB, layout=NNT, options=bz");
}

}  // namespace
}  // namespace kscope
