#include "analysis/graph/edits.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace kscope::analysis::graph {

namespace {

constexpr std::string_view kForm =
    "write WHAT[@SCOPE]=FACTOR, WHAT one of kernel:TEXT, family:NAME, copies, comm, host, launch, sync (e.g. "
    "kernel:gemm=0.5, host@decode=0, launch=0), or graph@STAGE";

Error Bad(std::string_view text, std::string_view what) {
  return Error{"", fmt::format("what-if edit '{}': {}", text, what), std::string(kForm)};
}

}  // namespace

Result<Edit> ParseEdit(std::string_view text) {
  Edit e;
  e.text = std::string(text);
  std::string_view what = text;
  std::string_view value;
  if (const size_t eq = text.rfind('='); eq != std::string_view::npos) {
    what = text.substr(0, eq);
    value = text.substr(eq + 1);
  }
  if (const size_t at = what.rfind('@'); at != std::string_view::npos) {
    e.scope = std::string(what.substr(at + 1));
    what = what.substr(0, at);
    if (e.scope.empty()) return Bad(text, "the scope after '@' is empty");
  }
  if (what == "graph") {
    e.target = EditTarget::kGraph;
    if (e.scope.empty()) return Bad(text, "graph needs the stage whose instances become graphs (graph@STAGE)");
    if (!value.empty()) return Bad(text, "graph takes no factor");
    e.factor = 0;
    return e;
  }
  if (value.empty()) return Bad(text, "no factor (=0 removes, =0.5 halves)");
  const auto [end, err] = std::from_chars(value.data(), value.data() + value.size(), e.factor);
  if (err != std::errc() || end != value.data() + value.size() || !std::isfinite(e.factor) || e.factor < 0) {
    return Bad(text, fmt::format("the factor '{}' is not a number of 0 or more", value));
  }
  if (what.starts_with("kernel:")) {
    e.target = EditTarget::kKernel;
    e.pattern = std::string(what.substr(7));
  } else if (what.starts_with("family:")) {
    e.target = EditTarget::kFamily;
    e.pattern = std::string(what.substr(7));
  } else if (what == "copies") {
    e.target = EditTarget::kCopies;
  } else if (what == "comm") {
    e.target = EditTarget::kCommunication;
  } else if (what == "host") {
    e.target = EditTarget::kHost;
  } else if (what == "launch") {
    e.target = EditTarget::kLaunch;
  } else if (what == "sync") {
    e.target = EditTarget::kSync;
    if (e.factor != 0) return Bad(text, "sync takes =0 only (the host no longer waits)");
  } else {
    return Bad(text, fmt::format("'{}' is not something kscope can change", what));
  }
  if ((e.target == EditTarget::kKernel || e.target == EditTarget::kFamily) && e.pattern.empty()) {
    return Bad(text, "no kernel text or family after ':'");
  }
  return e;
}

}  // namespace kscope::analysis::graph
