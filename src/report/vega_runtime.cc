#include "report/vega_runtime.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "embedded/vega_modules.h"
#include "report/html_assets.h"

namespace kscope::report {

namespace {
constexpr std::string_view kSuffix = ".min.js";

// Inside a <script> element, "</script" ends it and "<!--" can change how the rest is read.
bool EndsScriptEarly(std::string_view source) {
  std::string text(source);
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text.find("</script") != std::string::npos || text.find("<!--") != std::string::npos;
}

Result<std::string> ReadModule(const std::filesystem::path& dir, std::string_view module) {
  const std::filesystem::path path = dir / (std::string(module) + std::string(kSuffix));
  std::ifstream in(path, std::ios::binary);
  std::ostringstream source;
  if (!(in && source << in.rdbuf())) {
    return Error{path.string(), "Vega's JavaScript module " + std::string(module) + " is missing or unreadable",
                 "KSCOPE_VEGA_DIR points at this folder: unset it to use the Vega built into kscope, or point it at "
                 "a folder with Vega 5's vega-*.min.js modules"};
  }
  return source.str();
}
}  // namespace

std::span<const std::string_view> VegaModules() {
  static const std::vector<std::string_view> modules = [] {
    std::vector<std::string_view> names;
    for (const embedded::EmbeddedFile& file : embedded::vega_modules) {
      names.push_back(file.name.substr(0, file.name.size() - kSuffix.size()));
    }
    return names;
  }();
  return modules;
}

std::string_view EmbeddedVegaModule(std::string_view module) {
  for (const embedded::EmbeddedFile& file : embedded::vega_modules) {
    if (file.name.substr(0, file.name.size() - kSuffix.size()) == module) return file.bytes();
  }
  (void)std::fprintf(stderr, "kscope: internal error: no Vega module %.*s\n", static_cast<int>(module.size()),
                     module.data());
  std::abort();
}

std::optional<std::filesystem::path> VegaOverrideDir() {
  const char* dir = std::getenv("KSCOPE_VEGA_DIR");
  if (dir == nullptr || *dir == '\0') return std::nullopt;
  return std::filesystem::path(dir);
}

Result<std::string> VegaRuntimeScript(const std::optional<std::filesystem::path>& dir) {
  std::string script(HtmlAsset("vega_modules.js"));
  for (std::string_view module : VegaModules()) {
    std::string source;
    if (dir) {
      Result<std::string> read = ReadModule(*dir, module);
      if (!read.ok()) return read.error();
      source = std::move(*read);
    } else {
      source = EmbeddedVegaModule(module);
    }
    if (EndsScriptEarly(source)) {
      const std::string where = dir ? (*dir / (std::string(module) + std::string(kSuffix))).string()
                                    : "the Vega module " + std::string(module) + " built into kscope";
      return Error{where, "holds '</script' or '<!--', which would end the page's script early",
                   "use the libjs-vega package of Debian 12, or report this to kscope"};
    }
    script += "kscopeVegaModule('" + std::string(module) + "', function (exports, module, require) {\n";
    script += source;
    script += "\n});\n";
  }
  script += HtmlAsset("vega_namespace.js");
  return script;
}

}  // namespace kscope::report
