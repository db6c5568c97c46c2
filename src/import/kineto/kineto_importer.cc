#include "import/kineto/kineto_importer.h"

#include <algorithm>
#include <array>

#include "import/kineto/trace_input.h"
#include "import/kineto/trace_reader.h"
#include "import/kineto/trace_to_store.h"

namespace kscope::import::kineto {

Result<ImportResult> KinetoTraceImporter::Import(const std::string& path, const ImportTarget& target) {
  TraceInput input(path);
  if (!input.error().empty()) return Error{path, input.error(), "check the path and its permissions"};
  TraceToStore sink(path, target);
  if (auto st = ReadTrace(input, sink); !st.ok()) {
    Error e = st.error();
    e.where = path;
    return e;
  }
  return sink.Finish();
}

TraceSniff SniffKinetoTrace(const std::string& path) {
  TraceSniff sniff;
  TraceInput input(path);
  if (!input.error().empty()) return sniff;
  sniff.gzip = input.gzip();
  // torch.profiler starts with "schemaVersion", "deviceProperties" or "traceEvents" within
  // the first few hundred bytes; other JSON (kscope's own report.json) does not.
  std::string head;
  while (head.size() < 4096) {
    const char c = input.Take();
    if (c == '\0') break;
    head.push_back(c);
  }
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first == std::string::npos && input.gzip() && !input.error().empty()) {
    sniff.kind = TraceSniff::Kind::kBadGzip;
    sniff.why = input.error();
    return sniff;
  }
  if (first == std::string::npos && input.at_end()) {
    sniff.kind = TraceSniff::Kind::kEmpty;
    return sniff;
  }
  if (first == std::string::npos || head[first] != '{') return sniff;
  static constexpr std::array<std::string_view, 3> kKeys = {"\"schemaVersion\"", "\"traceEvents\"",
                                                            "\"deviceProperties\""};
  if (std::any_of(kKeys.begin(), kKeys.end(), [&](std::string_view k) { return head.find(k) != std::string::npos; })) {
    sniff.kind = TraceSniff::Kind::kTrace;
  }
  return sniff;
}

}  // namespace kscope::import::kineto
