#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "import/importer.h"
#include "import/kineto/kineto_importer.h"
#include "import/ncu/csv_records.h"
#include "import/ncu/details_csv_importer.h"
#include "import/ncu/raw_csv_importer.h"
#include "import/ncu/rep_importer.h"
#include "import/ncu/report_importer.h"
#include "import/nsys/nsys_sqlite_importer.h"

namespace kscope::import {

namespace fs = std::filesystem;

namespace {

enum class NcuPage { kNone, kRaw, kDetails };

// An ncu CSV page starts (after any ==PROF== lines of ncu's log) with a header row whose
// first column is "ID".
NcuPage SniffNcuCsv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  for (int i = 0; i < 64 && std::getline(in, line); ++i) {
    if (i == 0 && line.rfind(ncu::kUtf8Bom, 0) == 0) line.erase(0, ncu::kUtf8Bom.size());
    if (line.rfind("==", 0) == 0) continue;
    if (line.rfind("\"ID\",", 0) != 0) return NcuPage::kNone;
    const bool details =
        line.find("\"Section Name\"") != std::string::npos && line.find("\"Metric Name\"") != std::string::npos;
    return details ? NcuPage::kDetails : NcuPage::kRaw;
  }
  return NcuPage::kNone;
}

bool EndsWith(const std::string& path, std::string_view suffix) { return path.ends_with(suffix); }

// A trace's name as torch.profiler writes it (trace.json, HOST_PID.TIME.pt.trace.json.gz).
bool NamedLikeATrace(const std::string& path) { return EndsWith(path, ".json") || EndsWith(path, ".json.gz"); }

Error EmptyTrace(const std::string& path, std::string_view detail) {
  return Error{path, "an empty PyTorch profiler trace (" + std::string(detail) + ")",
               "copy the trace again, or record it again and let the profiler finish writing: "
               "prof.export_chrome_trace(\"trace.json\")"};
}

// A file of 0 bytes: what its name says it is, and the fix for that kind of file.
Error EmptyFile(const std::string& path) {
  if (EndsWith(path, ".ncu-rep")) {
    return Error{path, "an empty ncu report (0 bytes)", "copy the report again, or profile again with ncu"};
  }
  if (EndsWith(path, ".csv")) {
    return Error{path, "an empty ncu CSV page (0 bytes; a page has a header row at least)",
                 "export the page again: ncu --import REPORT.ncu-rep --page raw --csv > FILE.csv"};
  }
  if (NamedLikeATrace(path) || EndsWith(path, ".gz")) return EmptyTrace(path, "0 bytes");
  if (EndsWith(path, ".nsys-rep") || EndsWith(path, ".qdrep")) {
    return Error{path, "an empty nsys report (0 bytes)",
                 "copy the report again, or profile again with nsys, then export it: nsys export --type sqlite "
                 "-o FILE.sqlite REPORT.nsys-rep"};
  }
  if (EndsWith(path, ".sqlite")) {
    return Error{path, "an empty nsys export (0 bytes)",
                 "export the report again: nsys export --type sqlite -o FILE.sqlite REPORT.nsys-rep"};
  }
  return Error{path,
               "an empty file (0 bytes), in no format kscope imports (an nsys SQLite export, a PyTorch profiler "
               "trace, an ncu report or its CSV pages)",
               "copy the file again, or name the file it was meant to be"};
}

}  // namespace

Result<std::unique_ptr<Importer>> ImporterFor(const std::string& path, std::shared_ptr<capture::NcuTool> ncu,
                                              bool via_ncu) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Error{path, "no such file", "check the path"};
  if (fs::is_directory(path, ec)) return Error{path, "is a directory, not a file", "name the export file itself"};
  const auto size = fs::file_size(path, ec);
  if (ec) return Error{path, "cannot read the file size (" + ec.message() + ")", "check its permissions"};
  if (size == 0) return EmptyFile(path);
  std::ifstream in(path, std::ios::binary);
  std::array<char, 16> head{};
  in.read(head.data(), head.size());
  if (!in && in.gcount() == 0) return Error{path, "cannot read the file", "check its permissions"};

  if (in.gcount() == 16 && std::memcmp(head.data(), "SQLite format 3\0", 16) == 0) {
    return std::unique_ptr<Importer>(std::make_unique<nsys::NsysSqliteImporter>());
  }
  if (in.gcount() >= 4 && std::memcmp(head.data(), "NVR\0", 4) == 0) {
    if (!via_ncu) return std::unique_ptr<Importer>(std::make_unique<ncu::NcuRepImporter>());
    if (!ncu) {
      auto found = capture::FindNcu();
      if (!found) {
        return Error{path, "--via-ncu asks for the installed ncu, and none was found",
                     "install Nsight Compute or set KSCOPE_NCU, or import without --via-ncu (kscope reads the "
                     "report itself)"};
      }
      ncu = std::make_shared<capture::NcuBinary>(*found);
    }
    return std::unique_ptr<Importer>(std::make_unique<ncu::NcuReportImporter>(std::move(ncu)));
  }
  if (in.gcount() >= 6 && std::memcmp(head.data(),
                                      "\xFD"
                                      "7zXZ",
                                      5) == 0) {
    return Error{path, "an xz-compressed file", "decompress it first: xz -dk " + path};
  }
  const auto trace = kineto::SniffKinetoTrace(path);
  switch (trace.kind) {
    case kineto::TraceSniff::Kind::kTrace:
      return std::unique_ptr<Importer>(std::make_unique<kineto::KinetoTraceImporter>());
    case kineto::TraceSniff::Kind::kBadGzip:
      return Error{path, "a gzip file that does not inflate: " + trace.why, "copy it again; check it with gzip -t"};
    case kineto::TraceSniff::Kind::kEmpty:
      if (trace.gzip) return EmptyTrace(path, "its gzip data inflates to no JSON text");
      if (NamedLikeATrace(path)) return EmptyTrace(path, "no JSON text, only whitespace");
      break;
    case kineto::TraceSniff::Kind::kOther: break;
  }
  switch (SniffNcuCsv(path)) {
    case NcuPage::kRaw: return std::unique_ptr<Importer>(std::make_unique<ncu::NcuRawCsvImporter>());
    case NcuPage::kDetails: return std::unique_ptr<Importer>(std::make_unique<ncu::NcuDetailsCsvImporter>());
    case NcuPage::kNone: break;
  }
  if (fs::path(path).extension() == ".nsys-rep" || fs::path(path).extension() == ".qdrep") {
    return Error{path, "an nsys report file, not its SQLite export",
                 "export it first: nsys export --type sqlite -o FILE.sqlite " + path};
  }
  return Error{path,
               "not a format kscope imports (an nsys SQLite export, a PyTorch profiler trace, an ncu report or its "
               "CSV pages)",
               "export one with: nsys export --type sqlite -o FILE.sqlite REPORT.nsys-rep, or ncu --import "
               "REPORT.ncu-rep --page raw --csv > FILE.csv"};
}

}  // namespace kscope::import
