// Bad PyTorch profiler traces, made at test time from a real one (tests/data/kineto): each
// import fails with one exact line naming the file and leaves a store that held a good run
// byte for byte as it was. Events a good trace lacks or holds out of order are counted.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

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

// An empty trace is told so, with the fix for a trace: 0 bytes under a trace's names, gzip
// data that inflates to nothing (20 bytes: a gzip header, an empty deflate block, the CRC and
// length of nothing), whitespace alone.
TEST_F(BadInput, KinetoEmptyTraces) {
  const std::string fix =
      "; copy the trace again, or record it again and let the profiler finish writing: "
      "prof.export_chrome_trace(\"trace.json\")";
  for (const std::string name : {"empty.json", "host_1.1700000000.pt.trace.json.gz", "empty.gz"}) {
    const std::string p = Path(name);
    WriteBytes(p, "");
    ExpectRejected(p, "kscope: error: " + p + ": an empty PyTorch profiler trace (0 bytes)" + fix);
  }
  const std::string nothing("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00", 20);
  const std::string gz = Path("nothing.json.gz");
  WriteBytes(gz, nothing);
  ExpectRejected(gz, "kscope: error: " + gz +
                         ": an empty PyTorch profiler trace (its gzip data inflates to no JSON "
                         "text)" +
                         fix);
  const std::string spaces = Path("spaces.json");
  WriteBytes(spaces, " \n\t\n");
  ExpectRejected(
      spaces, "kscope: error: " + spaces + ": an empty PyTorch profiler trace (no JSON text, only whitespace)" + fix);
}

// An empty file of each other kind gets the fix for that kind, by its name.
TEST_F(BadInput, EmptyFileOfEachKind) {
  const std::string export_fix = "nsys export --type sqlite -o FILE.sqlite REPORT.nsys-rep";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"run.sqlite", "an empty nsys export (0 bytes); export the report again: " + export_fix},
      {"run.nsys-rep",
       "an empty nsys report (0 bytes); copy the report again, or profile again with nsys, then export it: " +
           export_fix},
      {"run.ncu-rep", "an empty ncu report (0 bytes); copy the report again, or profile again with ncu"},
      {"raw.csv",
       "an empty ncu CSV page (0 bytes; a page has a header row at least); export the page again: ncu --import "
       "REPORT.ncu-rep --page raw --csv > FILE.csv"},
      {"run.bin",
       "an empty file (0 bytes), in no format kscope imports (an nsys SQLite export, a PyTorch profiler trace, an ncu "
       "report or its CSV pages); copy the file again, or name the file it was meant to be"},
  };
  for (const auto& [name, line] : cases) {
    const std::string p = Path(name);
    WriteBytes(p, "");
    ExpectRejected(p, "kscope: error: " + p + ": " + line);
  }
}

// Every string is bounded at 1 MiB (names, arguments kscope reads and those it skips): a
// 100 MB one in a real trace's kernel event is refused with one line naming the bound, and
// the reader stops buffering it there.
const std::string kLongString = "a string longer than 1 MiB in the JSON object or array that opens at byte ";
const std::string kLongStringWhy =
    ", past kscope's bound for a trace (a profiler's names and arguments stay under a few KB); " + kDamaged;

TEST_F(BadInput, KinetoHundredMegabyteKernelName) {
  std::string text = testing::ReadGzip(kTrace);
  const std::string key = "\"cat\": \"kernel\", \"name\": \"";
  const size_t name = text.find(key) + key.size();
  const size_t event = text.rfind('{', name);
  text.replace(name, text.find('"', name) - name, std::string(size_t{100} << 20, 'k'));
  const std::string p = Path("long_name.json");
  WriteBytes(p, text);
  ExpectRejected(p, "kscope: error: " + p + ": " + kLongString + std::to_string(event) + kLongStringWhy);
}

TEST_F(BadInput, KinetoHundredMegabyteArgumentKscopeSkips) {
  std::string text = testing::ReadGzip(kTrace);
  const size_t args = text.find("\"args\": {", text.find("\"cat\": \"kernel\"")) + 8;  // its "{"
  text.insert(args + 1, "\"note\": \"" + std::string(size_t{100} << 20, 'a') + "\", ");
  const std::string p = Path("long_arg.json");
  WriteBytes(p, text);
  ExpectRejected(p, "kscope: error: " + p + ": " + kLongString + std::to_string(args) + kLongStringWhy);
}

// Between 1 and 2 MiB the parser's buffer holds the string and the reader refuses it by its
// length; so with an input-shapes array kscope captures element by element.
TEST_F(BadInput, KinetoStringsJustPastTheBound) {
  std::string text = testing::ReadGzip(kTrace);
  const size_t args = text.find("\"args\": {", text.find("\"cat\": \"kernel\"")) + 8;  // its "{"
  std::string long_arg = text;
  long_arg.insert(args + 1, "\"note\": \"" + std::string((size_t{3} << 19) + 1, 'a') + "\", ");
  const std::string p = Path("arg_1_5_mib.json");
  WriteBytes(p, long_arg);
  ExpectRejected(p, "kscope: error: " + p + ": " + kLongString + std::to_string(args) + kLongStringWhy);
  std::string dims = "[";
  while (dims.size() <= (size_t{1} << 20)) dims += "[1024, 1024], ";
  dims += "[]]";
  std::string shapes = text;
  const size_t op_args = shapes.find("\"args\": {", shapes.find("\"cat\": \"cpu_op\"")) + 8;
  shapes.insert(op_args + 1, "\"Input Dims\": " + dims + ", ");
  const std::string q = Path("input_dims.json");
  WriteBytes(q, shapes);
  ExpectRejected(q, "kscope: error: " + q + ": " + kLongString + std::to_string(op_args + 15) + kLongStringWhy);
}

TEST_F(BadInput, KinetoNestingPastTheBound) {
  std::string text = testing::ReadGzip(kTrace);
  const size_t args = text.find("\"args\": {", text.find("\"cat\": \"kernel\"")) + 8;  // its "{"
  text.insert(args + 1, "\"deep\": " + std::string(5000, '[') + std::string(5000, ']') + ", ");
  const std::string p = Path("deep.json");
  WriteBytes(p, text);
  // Open: the top object, traceEvents, the event, its args, then 996 arrays; the 997th is refused.
  ExpectRejected(p, "kscope: error: " + p + ": objects and arrays nested more than 1000 deep at byte " +
                        std::to_string(args + 9 + 996) +
                        ", past kscope's bound for a trace (a profiler's events nest about 7 deep); " + kDamaged);
}

}  // namespace
}  // namespace kscope
