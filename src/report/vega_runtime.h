// The Vega runtime for report.html, from Debian's libjs-vega: the modules the page's charts
// need, read from the installed package and embedded in the page so that it works offline.
//
// Debian ships Vega as separate UMD modules (vega-*.min.js), no single bundle, and their
// browser fallback does not work (each module replaces the global `vega` and reads its
// dependencies from the fresh object). The page therefore runs each module through its
// CommonJS branch (html/vega_modules.js gives it exports, module and require), in
// dependency order, then does what vega's own index does (html/vega_namespace.js).
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "util/status.h"

namespace kscope::report {

// $KSCOPE_VEGA_DIR when set, else /usr/share/javascript/vega.
std::filesystem::path VegaDir();

// The modules embedded, each after those it requires: the core of Vega 5 without the
// geographic, hierarchy, force, label, regression, voronoi and word-cloud transforms.
std::span<const std::string_view> VegaModules();

// One script that defines `vega` (View, parse, ...) from the modules in dir. Errors: a
// module is missing or unreadable (install libjs-vega), or holds text that would end the
// page's <script> element early.
Result<std::string> VegaRuntimeScript(const std::filesystem::path& dir);

}  // namespace kscope::report
