// The zoo dataset (tests/data/zoo/<model>/, recorded on an H100): its nsys exports and ncu
// pages unpacked once per test process into a temporary folder, and imported into a store.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "import/import_files.h"
#include "recorded_runner.h"
#include "store/store.h"
#include "util/sqlite.h"

namespace kscope::testing {

inline const std::vector<std::string>& ZooModels() {
  static const std::vector<std::string> kModels{"decoder_infer", "encoder_bert", "vit_infer",          "moe_decoder",
                                                "decoder_train", "resnet_train", "gpt2_compile_train", "gpt2_infer"};
  return kModels;
}

inline std::string ZooDir(const std::string& model) {
  return std::string(KSCOPE_TEST_DATA_DIR) + "/zoo/" + model + "/";
}

// A zoo file unpacked ("discovery.sqlite" from "discovery.sqlite.zst"), kept for the process.
inline std::string ZooFile(const std::string& model, const std::string& name) {
  static std::map<std::string, std::string> unpacked;
  const std::string key = model + "/" + name;
  if (auto it = unpacked.find(key); it != unpacked.end()) return it->second;
  const auto dir = std::filesystem::temp_directory_path() / ("kscope_zoo_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / (model + "_" + name)).string();
  std::ofstream(path, std::ios::binary) << Unzstd(ZooDir(model) + name + ".zst");
  unpacked[key] = path;
  return path;
}

// A zoo model's nsys export imported as a run of `store`, then `more` files of it (ncu pages)
// added to that run; -1 when an import fails.
inline int64_t ImportZoo(store::Store& store, const std::string& model, const std::vector<std::string>& more = {}) {
  auto out = import::ImportFiles(store, {ZooFile(model, "discovery.sqlite")}, {});
  if (!out.ok()) return -1;
  const int64_t run = out->front().run_id;
  for (const auto& f : more) {
    import::ImportOptions opts;
    opts.into_run = run;
    if (!import::ImportFiles(store, {ZooFile(model, f)}, opts).ok()) return -1;
  }
  return run;
}

// What a zoo model's nsys export says of each kernel name (demangled): launches and summed
// duration, by SQL on the export itself.
struct KernelSum {
  int64_t launches = 0, ns = 0;
};
inline std::map<std::string, KernelSum> ExportKernels(const std::string& model) {
  std::map<std::string, KernelSum> out;
  auto db = sql::Db::Open(ZooFile(model, "discovery.sqlite"), sql::OpenMode::kReadOnly);
  if (!db.ok()) return out;
  auto q = db->Prepare(
      "SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
      "JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value");
  if (!q.ok()) return out;
  while (q->Step()) out[q->Text(0)] = {q->Int(1), q->Int(2)};
  return out;
}

}  // namespace kscope::testing
