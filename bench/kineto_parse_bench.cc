// Times kscope's streaming Kineto reader alone (no store): the trace's text is parsed through
// the same ReadTrace the importer uses, into a sink that only counts events, on one thread.
// Prints the file's size, the JSON text's size, the time, MB/s of JSON text and the events.
//   kineto_parse_bench TRACE.json[.gz]
#include <chrono>
#include <cstdio>

#include "import/kineto/trace_input.h"
#include "import/kineto/trace_reader.h"

namespace {

class CountingSink final : public kscope::import::kineto::TraceSink {
 public:
  kscope::Status OnTopLevel(std::string_view, std::string_view) override { return kscope::Status::Ok(); }
  kscope::Status OnDevice(const kscope::import::kineto::DeviceProperty&) override { return kscope::Status::Ok(); }
  kscope::Status OnDistributed(const kscope::import::kineto::DistributedInfo&) override { return kscope::Status::Ok(); }
  kscope::Status OnEvent(const kscope::import::kineto::TraceEvent& e) override {
    ++events;
    name_bytes += e.name.size();
    return kscope::Status::Ok();
  }
  long long events = 0, name_bytes = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: kineto_parse_bench TRACE.json[.gz]\n");
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  kscope::import::kineto::TraceInput input(argv[1]);
  CountingSink sink;
  const kscope::Status st = kscope::import::kineto::ReadTrace(input, sink);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.error().Line().c_str());
    return 1;
  }
  const double text_mb = static_cast<double>(input.Tell()) / 1e6;
  std::printf("file %.1f MB, JSON text %.1f MB%s, %.3f s, %.0f MB/s of JSON, %lld events\n",
              static_cast<double>(input.raw_bytes()) / 1e6, text_mb, input.gzip() ? " (gzip)" : "", s, text_mb / s,
              sink.events);
  return 0;
}
