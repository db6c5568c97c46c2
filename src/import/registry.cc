#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>

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

}  // namespace

Result<std::unique_ptr<Importer>> ImporterFor(const std::string& path, std::shared_ptr<capture::NcuTool> ncu,
                                              bool via_ncu) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Error{path, "no such file", "check the path"};
  if (fs::is_directory(path, ec)) return Error{path, "is a directory, not a file", "name the export file itself"};
  const auto size = fs::file_size(path, ec);
  if (ec) return Error{path, "cannot read the file size (" + ec.message() + ")", "check its permissions"};
  if (size == 0 && fs::path(path).extension() == ".ncu-rep") {
    return Error{path, "file is empty", "copy the report again, or profile again"};
  }
  if (size == 0 && fs::path(path).extension() == ".csv") {
    return Error{path, "file is empty (an ncu CSV page has a header row at least)",
                 "export the page again: ncu --import REPORT.ncu-rep --page raw --csv > FILE.csv"};
  }
  if (size == 0) {
    return Error{path, "file is empty",
                 "export the report again: nsys export --type sqlite -o FILE.sqlite REPORT.nsys-rep"};
  }
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
  std::string gzip_problem;
  if (kineto::LooksLikeKinetoTrace(path, &gzip_problem)) {
    return std::unique_ptr<Importer>(std::make_unique<kineto::KinetoTraceImporter>());
  }
  if (!gzip_problem.empty()) {
    return Error{path, "a gzip file that does not inflate: " + gzip_problem, "copy it again; check it with gzip -t"};
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
