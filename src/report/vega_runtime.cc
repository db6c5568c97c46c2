#include "report/vega_runtime.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "report/html_assets.h"

namespace kscope::report {

namespace {
constexpr std::array<std::string_view, 19> kModules = {
    "vega-util",       "vega-time",      "vega-format",     "vega-loader",          "vega-canvas",
    "vega-scale",      "vega-dataflow",  "vega-scenegraph", "vega-expression",      "vega-event-selector",
    "vega-statistics", "vega-selection", "vega-functions",  "vega-runtime",         "vega-view",
    "vega-parser",     "vega-encode",    "vega-transforms", "vega-view-transforms",
};

const char* const kInstall =
    "install Debian's libjs-vega (apt-get install libjs-vega), or set KSCOPE_VEGA_DIR to a folder with Vega 5's "
    "vega-*.min.js modules";

// Inside a <script> element, "</script" ends it and "<!--" can change how the rest is read.
bool EndsScriptEarly(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text.find("</script") != std::string::npos || text.find("<!--") != std::string::npos;
}
}  // namespace

std::filesystem::path VegaDir() {
  const char* dir = std::getenv("KSCOPE_VEGA_DIR");
  return dir != nullptr && *dir != '\0' ? std::filesystem::path(dir) : "/usr/share/javascript/vega";
}

std::span<const std::string_view> VegaModules() { return kModules; }

Result<std::string> VegaRuntimeScript(const std::filesystem::path& dir) {
  std::string script(HtmlAsset("vega_modules.js"));
  for (std::string_view name : kModules) {
    const std::filesystem::path path = dir / (std::string(name) + ".min.js");
    std::ifstream in(path, std::ios::binary);
    std::ostringstream source;
    if (!(in && source << in.rdbuf())) {
      return Error{path.string(), "Vega's JavaScript module " + std::string(name) + " is missing or unreadable",
                   kInstall};
    }
    if (EndsScriptEarly(source.str())) {
      return Error{path.string(), "holds '</script' or '<!--', which would end the page's script early",
                   "use the libjs-vega package of Debian 12, or report this to kscope"};
    }
    script += "kscopeVegaModule('" + std::string(name) + "', function (exports, module, require) {\n";
    script += source.str();
    script += "\n});\n";
  }
  script += HtmlAsset("vega_namespace.js");
  return script;
}

}  // namespace kscope::report
