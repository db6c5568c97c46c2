// The Vega runtime for report.html: the modules the page's charts need, from Debian's
// libjs-vega, built into kscope when it is built (cmake/EmbedFiles.cmake) and embedded in the
// page so that it works offline; at run time nothing is read from /usr/share.
// $KSCOPE_VEGA_DIR, when set, replaces them with the modules of another folder.
//
// Debian ships Vega as separate UMD modules (vega-*.min.js), no single bundle, and their
// browser fallback does not work (each module replaces the global `vega` and reads its
// dependencies from the fresh object). The page therefore runs each module through its
// CommonJS branch (html/vega_modules.js gives it exports, module and require), in
// dependency order, then does what vega's own index does (html/vega_namespace.js).
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "util/status.h"

namespace kscope::report {

// The modules embedded ("vega-util", ...), each after those it requires: the core of Vega 5
// without the geographic, hierarchy, force, label, regression, voronoi and word-cloud
// transforms (the list is in cmake/VegaModules.cmake).
std::span<const std::string_view> VegaModules();

// The bytes of MODULE.min.js as built into kscope; an unknown module is a programming error.
std::string_view EmbeddedVegaModule(std::string_view module);

// $KSCOPE_VEGA_DIR when set and not empty; otherwise none: the modules built into kscope.
std::optional<std::filesystem::path> VegaOverrideDir();

// One script that defines `vega` (View, parse, ...) from the modules built into kscope, or
// from the vega-*.min.js files in `dir` when one is given. Errors: a module of `dir` is
// missing or unreadable, or a module holds text that would end the page's <script> element
// early.
Result<std::string> VegaRuntimeScript(const std::optional<std::filesystem::path>& dir);

}  // namespace kscope::report
