#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "import/importer.h"
#include "import/nsys/nsys_sqlite_importer.h"

namespace kscope::import {

namespace fs = std::filesystem;

Result<std::unique_ptr<Importer>> ImporterFor(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Error{path, "no such file", "check the path"};
  if (fs::is_directory(path, ec)) return Error{path, "is a directory, not a file", "name the export file itself"};
  const auto size = fs::file_size(path, ec);
  if (ec) return Error{path, "cannot read the file size (" + ec.message() + ")", "check its permissions"};
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
  if (fs::path(path).extension() == ".nsys-rep" || fs::path(path).extension() == ".qdrep") {
    return Error{path, "an nsys report file, not its SQLite export",
                 "export it first: nsys export --type sqlite -o FILE.sqlite " + path};
  }
  return Error{path, "not a format kscope imports (expected an nsys SQLite export)",
               "export one with: nsys export --type sqlite -o FILE.sqlite REPORT.nsys-rep"};
}

}  // namespace kscope::import
