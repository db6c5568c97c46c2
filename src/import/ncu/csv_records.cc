#include "import/ncu/csv_records.h"

#include <csv.h>
#include <fmt/format.h>

#include <cstdio>
#include <memory>

namespace kscope::import::ncu {

namespace {

constexpr std::string_view kExportAgain = "export the page again with ncu --import REPORT --csv";

std::string Mib(size_t bytes) { return fmt::format("{} MiB", bytes >> 20); }

// Lines of at most kMaxCsvLineBytes, read in blocks: a longer one is never held whole.
class LineReader {
 public:
  explicit LineReader(FILE* f) : f_(f) {}
  enum class Got { kLine, kEnd, kTooLong, kError };
  // The next line without its '\n'; `cut` when the file ends without one.
  Got Next(std::string& line, bool& cut) {
    line.clear();
    for (;;) {
      const size_t nl = buf_.find('\n', pos_);
      const size_t end = nl == std::string::npos ? buf_.size() : nl;
      if (line.size() + (end - pos_) > kMaxCsvLineBytes) return Got::kTooLong;
      line.append(buf_, pos_, end - pos_);
      pos_ = end;
      if (nl != std::string::npos) {
        ++pos_;
        cut = false;
        return Got::kLine;
      }
      buf_.resize(kBlock);
      const size_t got = std::fread(buf_.data(), 1, kBlock, f_);
      buf_.resize(got);
      pos_ = 0;
      if (got == 0) {
        if (std::ferror(f_) != 0) return Got::kError;
        cut = true;
        return line.empty() ? Got::kEnd : Got::kLine;
      }
    }
  }

 private:
  static constexpr size_t kBlock = size_t{1} << 16;
  FILE* f_;
  std::string buf_;
  size_t pos_ = 0;
};

struct ParseState {
  const std::function<Status(const CsvRecord&)>* on_record = nullptr;
  CsvRecord record;
  int64_t line = 1;          // line being fed
  bool at_boundary = true;   // the bytes fed so far end with a whole record
  size_t record_bytes = 0;   // fed since the last whole record
  int64_t record_start = 1;  // the line where the record being fed starts
  int64_t records = 0;
  Status status;

  void EndField(const char* data, size_t len) {
    if (!status.ok()) return;
    if (record.fields.empty()) record.line = line;
    if (len > kMaxCsvFieldBytes || record.fields.size() >= kMaxCsvFields) {
      status = Error{"",
                     len > kMaxCsvFieldBytes
                         ? fmt::format("line {}: field {} holds {} bytes, past kscope's bound of {} for a field of an "
                                       "ncu CSV page (ncu's own fields stay near 1 KB)",
                                       record.line, record.fields.size() + 1, len, Mib(kMaxCsvFieldBytes))
                         : fmt::format("line {}: a record of more than {} fields, past kscope's bound for an ncu CSV "
                                       "page (ncu's own pages have a few thousand)",
                                       record.line, kMaxCsvFields),
                     std::string(kExportAgain)};
      return;
    }
    record.fields.emplace_back(data == nullptr ? "" : std::string(data, len));
  }
  void EndRecord() {
    at_boundary = true;
    record_bytes = 0;
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
  const std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (file == nullptr) return Error{path, "cannot open the file", "check the path and its permissions"};
  std::unique_ptr<csv_parser, ParserDeleter> parser(new csv_parser);  // NOLINT(cppcoreguidelines-owning-memory)
  if (csv_init(parser.get(), CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
    return Error{path, "cannot start the CSV parser", "out of memory?"};
  }
  // libcsv grows a field's buffer by this much at a time (128 bytes by default: a field of
  // megabytes took thousands of copies of itself).
  csv_set_blk_size(parser.get(), size_t{64} << 10);
  ParseState state;
  state.on_record = &on_record;
  CsvStats stats;
  LineReader lines(file.get());
  std::string line;
  bool cut = false;
  for (bool first = true;; first = false) {
    const LineReader::Got got = lines.Next(line, cut);
    if (got == LineReader::Got::kEnd) break;
    if (got == LineReader::Got::kError) return Error{path, "read error", "check the file system"};
    if (got == LineReader::Got::kTooLong) {
      return Error{path,
                   fmt::format("line {} is longer than {}, kscope's bound for a line of an ncu CSV page (ncu's own "
                               "lines stay below 200 KB)",
                               state.line, Mib(kMaxCsvLineBytes)),
                   std::string(kExportAgain)};
    }
    if (first && line.rfind(kUtf8Bom, 0) == 0) line.erase(0, kUtf8Bom.size());  // written by some editors
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (state.at_boundary && line.rfind("==", 0) == 0) {
      ++stats.log_lines;
      ++state.line;
      continue;
    }
    if (!line.empty() && state.at_boundary) {
      state.at_boundary = false;  // until this line's record ends
      state.record_start = state.line;
    }
    state.record_bytes += line.size();
    if (state.record_bytes > kMaxCsvRecordBytes) {
      return Error{path,
                   fmt::format("line {}: a record (a quoted field over several lines) longer than {}, kscope's bound "
                               "for a record of an ncu CSV page",
                               state.record_start, Mib(kMaxCsvRecordBytes)),
                   std::string(kExportAgain)};
    }
    if (!cut) line.push_back('\n');
    if (csv_parse(parser.get(), line.data(), line.size(), OnField, OnRecord, &state) != line.size()) {
      return Error{
          path,
          "line " + std::to_string(state.line) + ": malformed CSV (" + csv_strerror(csv_error(parser.get())) + ")",
          "export the page again with ncu --import REPORT --csv"};
    }
    if (!state.status.ok()) {
      Error e = state.status.error();
      if (e.where.empty()) e.where = path;
      return e;
    }
    // A quoted field going on over lines: bounded before it ends.
    if (parser->entry_pos > kMaxCsvFieldBytes) {
      return Error{path,
                   fmt::format("line {}: field {} holds more than {} by line {}, past kscope's bound for a field of an "
                               "ncu CSV page (ncu's own fields stay near 1 KB)",
                               state.record_start, state.record.fields.size() + 1, Mib(kMaxCsvFieldBytes), state.line),
                   std::string(kExportAgain)};
    }
    ++state.line;
    if (cut) break;
  }
  if (csv_fini(parser.get(), OnField, OnRecord, &state) != 0) {
    return Error{path, "the file ends inside a quoted field (cut off?)", "export the page again"};
  }
  if (!state.status.ok()) {
    Error e = state.status.error();
    if (e.where.empty()) e.where = path;
    return e;
  }
  stats.records = state.records;
  return stats;
}

}  // namespace kscope::import::ncu
