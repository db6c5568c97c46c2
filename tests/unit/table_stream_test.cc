// The streamed writers (report/table_stream.h) print what the whole-table writers print for
// the same rows: CSV, JSON (parsed back too) and the aligned text table.
#include "report/table_stream.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "report/nsys_numbers.h"

namespace kscope::report {
namespace {

Table Sample(size_t rows) {
  Table t;
  t.title = "cuda_gpu_trace: CUDA GPU Trace";
  t.columns = {"Start (ns)", "Bytes (MB)", "Device", "Name, quoted \"here\""};
  const std::vector<std::vector<Cell>> all = {
      {int64_t{487327335}, Cell{}, std::string("NVIDIA H200 (0)"), std::string("saxpy(int, float, const float *)")},
      {int64_t{0}, Cell{}, std::string("plain"), std::string("f<\"a\", 1>(char \"q\") \"")},
      {int64_t{16876318337}, Megabytes(131072000), std::string("NVIDIA H200 (0)"),
       std::string("[CUDA memcpy Host-to-Device]")},
      {int64_t{-1}, Round1(2256.95), Cell{}, std::string("line\nbreak \xff and \"quotes\"")},
  };
  for (size_t i = 0; i < rows && i < all.size(); ++i) t.rows.push_back(all[i]);
  return t;
}

std::string Streamed(const Table& t, Format format) {
  std::ostringstream out;
  std::unique_ptr<RowSink> sink;
  if (format == Format::kCsv) sink = CsvSink(out);
  if (format == Format::kJson) sink = JsonSink(out);
  if (format == Format::kTable) {
    TextLayoutSink layout;
    layout.Begin(t.title, t.columns);
    for (const auto& r : t.rows) layout.Row(r);
    layout.End();
    sink = TextSink(out, layout.layout());
  }
  sink->Begin(t.title, t.columns);
  for (const auto& r : t.rows) sink->Row(r);
  sink->End();
  return out.str();
}

std::string Whole(const Table& t, Format format) {
  std::ostringstream out;
  Write(t, format, out);
  return out.str();
}

TEST(TableStream, SameAsWholeTableWriters) {
  for (size_t rows : {0, 1, 4}) {
    const Table t = Sample(rows);
    for (Format f : {Format::kCsv, Format::kJson, Format::kTable}) {
      EXPECT_EQ(Streamed(t, f), Whole(t, f)) << rows << " rows, format " << static_cast<int>(f);
    }
    const auto doc = nlohmann::json::parse(Streamed(t, Format::kJson));
    EXPECT_EQ(doc["rows"].size(), rows);
  }
}

}  // namespace
}  // namespace kscope::report
