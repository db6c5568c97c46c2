// A ProcessRunner that replays what real nsys, ncu and nvidia-smi printed and wrote on the
// GPU machine (tests/data/capture/, tests/data/zoo/), so kscope profile's own code runs end
// to end without a GPU: each program it starts gets its recorded output lines and exit
// status, and the files it would have written (the nsys export, ncu's report, ncu's CSV
// pages) are put where the command asks.
#pragma once

#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"
#include "tools/process.h"

namespace kscope::testing {

// What one kind of invocation answers.
struct Replay {
  std::string output;  // recorded output file (lines replayed to the log and on_line)
  int exit_code = 0;
  int signal = 0;
  bool interrupted = false;  // as if kscope was interrupted while it ran
  bool timed_out = false;
  bool writes_report = true;  // nsys/ncu profile: the report file appears (`produce`, else a placeholder)
  std::string produce;        // recorded file (.zst: decompressed) written where argv says
};

// Replays `output` (a recorded output file, or none) with exit status `exit_code`.
inline Replay Prints(std::string output, int exit_code = 0) {
  Replay r;
  r.output = std::move(output);
  r.exit_code = exit_code;
  return r;
}
// Replays `output` and writes the recorded file `produce` where the command asks.
inline Replay Writes(std::string output, std::string produce) {
  Replay r = Prints(std::move(output));
  r.produce = std::move(produce);
  return r;
}

// A .zst file's content (streamed: frames need not record their size).
inline std::string Unzstd(const std::string& path) {
  const std::string packed = ReadFile(path);
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> dctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  std::string out;
  std::vector<char> buf(ZSTD_DStreamOutSize());
  ZSTD_inBuffer in{packed.data(), packed.size(), 0};
  while (in.pos < in.size) {
    ZSTD_outBuffer o{buf.data(), buf.size(), 0};
    const size_t rc = ZSTD_decompressStream(dctx.get(), &o, &in);
    if (ZSTD_isError(rc)) return "";
    out.append(buf.data(), o.pos);
  }
  return out;
}

class RecordedRunner : public capture::ProcessRunner {
 public:
  // Kinds: "nsys --version", "ncu --version", "nvidia-smi", "python", "nsys profile",
  // "nsys export", "ncu profile", "ncu export raw", "ncu export details", "ncu --list-sets",
  // "ncu --list-sections", "ncu --query-metrics".
  std::map<std::string, Replay> replies;
  std::vector<std::pair<std::string, std::vector<std::string>>> calls;  // kind, argv

  // Replies of a whole recorded quick-mode profile: the files of tests/data/capture/NAME/
  // (`dir` ends with '/'), every program succeeding. Its ncu report was not kept, only the
  // pages ncu exported of it: a profile replaying it reads them (ncu.import=export).
  void ReplayRecordedProfile(const std::string& dir) {
    replies["nsys --version"] = Prints(dir + "nsys_version.log");
    replies["ncu --version"] = Prints(dir + "ncu_version.log");
    replies["nvidia-smi"] = Prints(dir + "nvidia_smi.log");
    replies["python"] = Prints(dir + "torch_version.log");
    replies["nsys profile"] = Prints(dir + "nsys_profile.log");
    replies["nsys export"] = Writes(dir + "nsys_export.log", dir + "discovery.sqlite.zst");
    replies["ncu profile"] = Prints(dir + "ncu_pass1.log");
    replies["ncu export raw"] = Writes("", dir + "pass1_raw.csv.zst");
    replies["ncu export details"] = Writes("", dir + "pass1_details.csv.zst");
    ReplayNcuCatalog();
  }

  // What ncu 2025.3.1 printed on the H100 when asked what it offers.
  void ReplayNcuCatalog() {
    const std::string at = std::string(KSCOPE_TEST_DATA_DIR) + "/capture/ncu_catalog_h100/";
    replies["ncu --list-sets"] = Writes("", at + "list_sets.txt");
    replies["ncu --list-sections"] = Writes("", at + "list_sections.txt");
    replies["ncu --query-metrics"] = Writes("", at + "query_metrics.txt.zst");
  }

  static std::string Kind(const std::vector<std::string>& argv) {
    const std::string prog = std::filesystem::path(argv[0]).filename().string();
    auto has = [&](const std::string& a) { return std::find(argv.begin(), argv.end(), a) != argv.end(); };
    if (prog.rfind("python", 0) == 0) return "python";
    if (prog == "nvidia-smi") return "nvidia-smi";
    if (has("--version")) return prog + " --version";
    for (const char* what : {"--list-sets", "--list-sections", "--query-metrics"}) {
      if (has(what)) return prog + " " + what;
    }
    if (prog == "nsys") return "nsys " + argv[1];
    if (prog == "ncu" && has("--import")) return std::string("ncu export ") + (has("raw") ? "raw" : "details");
    return prog + " profile";
  }

  Result<capture::ProcessOutcome> Run(const capture::ProcessSpec& spec) override {
    const std::string kind = Kind(spec.argv);
    calls.emplace_back(kind, spec.argv);
    auto it = replies.find(kind);
    if (it == replies.end()) return Error{spec.argv[0], "cannot start: No such file or directory", ""};
    const Replay& r = it->second;
    std::string text = r.output.empty() ? "" : ReadFile(r.output);
    if (!spec.log_path.empty()) std::ofstream(spec.log_path, std::ios::app) << text;
    std::string line;
    for (char c : text) {
      if (c == '\n' || c == '\r') {
        if (!line.empty() && spec.on_line) spec.on_line(line);
        line.clear();
      } else {
        line.push_back(c);
      }
    }
    if (!line.empty() && spec.on_line) spec.on_line(line);
    auto value_after = [&](const std::string& flag) -> std::string {
      for (size_t i = 0; i + 1 < spec.argv.size(); ++i) {
        if (spec.argv[i] == flag) return spec.argv[i + 1];
      }
      return "";
    };
    if (kind == "nsys profile" && r.writes_report) std::ofstream(value_after("-o") + ".nsys-rep") << "recorded";
    const bool ncu_report = kind == "ncu profile" && r.writes_report;
    if (ncu_report && r.produce.empty()) std::ofstream(value_after("-o") + ".ncu-rep") << "recorded";
    if (!r.produce.empty()) {
      const std::string data = r.produce.ends_with(".zst") ? Unzstd(r.produce) : ReadFile(r.produce);
      const std::string to = kind == "nsys export" ? value_after("-o")
                             : ncu_report          ? value_after("-o") + ".ncu-rep"
                                                   : spec.stdout_path;
      std::ofstream(to, std::ios::binary) << data;
    }
    capture::ProcessOutcome o;
    o.exit_code = r.signal != 0 ? -1 : r.exit_code;
    o.signal = r.signal;
    o.interrupted = r.interrupted;
    o.timed_out = r.timed_out;
    if (r.interrupted) capture::RequestInterrupt();
    return o;
  }
};

}  // namespace kscope::testing
