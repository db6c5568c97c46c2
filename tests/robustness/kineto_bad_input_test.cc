// Bad PyTorch profiler traces, made at test time from a real one (tests/data/kineto): each
// import fails with one exact line naming the file and leaves a store that held a good run
// byte for byte as it was. Events a good trace lacks or holds out of order are counted.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <string>

#include "kineto_support.h"
#include "robustness/bad_input_fixture.h"

namespace kscope {
namespace {

using testing::BadInput;
using testing::KinetoData;
using testing::ReadFile;
using testing::WriteBytes;

const std::string kTrace = KinetoData("decoder_infer.json.gz");
const std::string kFix = "copy the trace again, or record it again and let the profiler finish writing";
const std::string kDamaged = "the file is damaged or not a trace: record or copy it again";

TEST_F(BadInput, KinetoTraceCutInHalf) {
  const std::string text = testing::ReadGzip(kTrace);
  const std::string p = Path("half.json");
  WriteBytes(p, text.substr(0, text.size() / 2));
  ExpectRejected(p, "kscope: error: " + p + ": the JSON ends early, at byte " + std::to_string(text.size() / 2) +
                        " (the file is cut short); " + kFix);
}

TEST_F(BadInput, KinetoGzipCutInHalf) {
  const std::string gz = ReadFile(kTrace);
  const std::string p = Path("half.json.gz");
  WriteBytes(p, gz.substr(0, gz.size() / 2));
  ExpectRejected(p, "kscope: error: " + p +
                        ": the gzip data ends early (the file is cut short); copy the trace again; check it with "
                        "gzip -t");
}

TEST_F(BadInput, KinetoGzipCorruptInTheMiddle) {
  std::string gz = ReadFile(kTrace);
  gz.replace(gz.size() / 2, 512, std::string(512, '\xa5'));
  const std::string p = Path("corrupt.json.gz");
  WriteBytes(p, gz);
  ExpectRejected(p, "kscope: error: " + p +
                        ": corrupt gzip data (incorrect data check); copy the trace again; check it with gzip -t");
}

TEST_F(BadInput, KinetoNotUtf8) {
  std::string text = testing::ReadGzip(kTrace);
  const size_t name = text.find("\"name\": \"aten::") + 9;  // inside the first op's name
  text[name + 2] = '\xff';
  const std::string p = Path("latin1.json");
  WriteBytes(p, text);
  ExpectRejected(p, "kscope: error: " + p + ": not valid UTF-8 (byte " + std::to_string(name + 2) +
                        " of the JSON text); " + kDamaged);
}

TEST_F(BadInput, KinetoWrongFormats) {
  const std::string report = Path("report.json");
  WriteBytes(report, R"({"run": {"id": 1}, "kernels": []})");
  ExpectRejected(report, "kscope: error: " + report +
                             ": not a format kscope imports (an nsys SQLite export, a PyTorch profiler trace, an ncu "
                             "report or its CSV pages); export one with: nsys export --type sqlite -o FILE.sqlite "
                             "REPORT.nsys-rep, or ncu --import REPORT.ncu-rep --page raw --csv > FILE.csv");
  const std::string header = Path("header_only.json");
  WriteBytes(header, R"({"schemaVersion": 1, "deviceProperties": []})");
  ExpectRejected(header, "kscope: error: " + header +
                             ": not a PyTorch profiler (Kineto) trace: it has no traceEvents array; export one with "
                             "torch.profiler: prof.export_chrome_trace(\"trace.json\")");
  // The devset's trace was recorded with CPU activity only: no GPU kernel to import.
  const std::string cpu_only = KinetoData("llama_torch_cpu_only.trace.json.gz");
  ExpectRejected(cpu_only,
                 "kscope: error: " + cpu_only +
                     ": trace without any GPU kernel (recorded without CUDA activity, or outside its window); "
                     "record with torch.profiler.profile(activities=[ProfilerActivity.CPU, "
                     "ProfilerActivity.CUDA])");
}

}  // namespace
}  // namespace kscope
