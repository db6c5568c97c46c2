// Imports a PyTorch profiler trace (Kineto's Chrome trace JSON, plain or gzip) into the same
// event streams an nsys export fills: GPU kernels, copies and sets, CUDA runtime and driver
// calls, CPU ops (with their input shapes) and record_function ranges as NVTX ranges, each GPU
// operation linked to its launching call; deviceProperties name the GPU, distributedInfo the
// rank. Read as a stream (import/kineto/trace_reader.h): memory holds what the links need,
// never the document.
#pragma once

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

// Whether the first bytes of `path` (inflated when gzip) look like a Kineto trace: a JSON
// object whose first keys are the ones torch.profiler writes first. `why` says what the file
// is instead, when that is worth a line of its own (gzip data that does not inflate).
bool LooksLikeKinetoTrace(const std::string& path, std::string* why);

}  // namespace kscope::import::kineto
