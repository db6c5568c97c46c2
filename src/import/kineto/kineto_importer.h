// Imports a PyTorch profiler trace (Kineto's Chrome trace JSON, plain or gzip) into the same
// event streams an nsys export fills: GPU kernels, copies and sets, CUDA runtime and driver
// calls, CPU ops (with their input shapes) and record_function ranges as NVTX ranges, each GPU
// operation linked to its launching call; deviceProperties name the GPU, distributedInfo the
// rank. Read as a stream (import/kineto/trace_reader.h): memory holds what the links need,
// never the document.
#pragma once

#include <cstdint>
#include <string>

#include "import/importer.h"

namespace kscope::import::kineto {

inline constexpr std::string_view kKinetoFormat = "kineto-trace";

class KinetoTraceImporter final : public Importer {
 public:
  [[nodiscard]] std::string_view format() const override { return kKinetoFormat; }
  [[nodiscard]] bool writes_timeline() const override { return true; }
  Result<ImportResult> Import(const std::string& path, const ImportTarget& target) override;
};

// What the first bytes of `path` (inflated when gzip) say it is.
struct TraceSniff {
  enum class Kind : uint8_t {
    kTrace,    // a JSON object whose first keys are the ones torch.profiler writes first
    kEmpty,    // no JSON text: gzip data that inflates to nothing, or only whitespace
    kBadGzip,  // gzip data that does not inflate (`why` says how)
    kOther,    // anything else
  };
  Kind kind = Kind::kOther;
  bool gzip = false;
  std::string why;
};
TraceSniff SniffKinetoTrace(const std::string& path);

}  // namespace kscope::import::kineto
