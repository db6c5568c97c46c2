#include "import/ncu/csv_records.h"

#include <csv.h>

#include <fstream>
#include <memory>

namespace kscope::import::ncu {

namespace {

struct ParseState {
  const std::function<Status(const CsvRecord&)>* on_record = nullptr;
  CsvRecord record;
  int64_t line = 1;         // line being fed
  bool at_boundary = true;  // the bytes fed so far end with a whole record
  int64_t records = 0;
  Status status;

  void EndField(const char* data, size_t len) {
    if (record.fields.empty()) record.line = line;
    record.fields.emplace_back(data == nullptr ? "" : std::string(data, len));
  }
  void EndRecord() {
    at_boundary = true;
    if (!status.ok()) return;
    ++records;
    status = (*on_record)(record);
    record.fields.clear();
  }
};

void OnField(void* data, size_t len, void* state) {
  static_cast<ParseState*>(state)->EndField(static_cast<const char*>(data), len);
}
void OnRecord(int /*terminator*/, void* state) { static_cast<ParseState*>(state)->EndRecord(); }

struct ParserDeleter {
  void operator()(csv_parser* p) const {
    csv_free(p);
    delete p;  // NOLINT(cppcoreguidelines-owning-memory): libcsv's parser is a plain C struct
  }
};

}  // namespace

Result<CsvStats> ReadCsvRecords(const std::string& path, const std::function<Status(const CsvRecord&)>& on_record) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, "cannot open the file", "check the path and its permissions"};
  std::unique_ptr<csv_parser, ParserDeleter> parser(new csv_parser);  // NOLINT(cppcoreguidelines-owning-memory)
  if (csv_init(parser.get(), CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
    return Error{path, "cannot start the CSV parser", "out of memory?"};
  }
  ParseState state;
  state.on_record = &on_record;
  CsvStats stats;
  std::string line;
  for (bool first = true; std::getline(in, line); first = false) {
    const bool cut = in.eof();                                                  // the last line lacks its newline
    if (first && line.rfind(kUtf8Bom, 0) == 0) line.erase(0, kUtf8Bom.size());  // written by some editors
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (state.at_boundary && line.rfind("==", 0) == 0) {
      ++stats.log_lines;
      ++state.line;
      continue;
    }
    if (!line.empty()) state.at_boundary = false;  // until this line's record ends
    if (!cut) line.push_back('\n');
    if (csv_parse(parser.get(), line.data(), line.size(), OnField, OnRecord, &state) != line.size()) {
      return Error{
          path,
          "line " + std::to_string(state.line) + ": malformed CSV (" + csv_strerror(csv_error(parser.get())) + ")",
          "export the page again with ncu --import REPORT --csv"};
    }
    if (!state.status.ok()) return state.status.error();
    ++state.line;
  }
  if (in.bad()) return Error{path, "read error", "check the file system"};
  if (csv_fini(parser.get(), OnField, OnRecord, &state) != 0) {
    return Error{path, "the file ends inside a quoted field (cut off?)", "export the page again"};
  }
  if (!state.status.ok()) return state.status.error();
  stats.records = state.records;
  return stats;
}

}  // namespace kscope::import::ncu
