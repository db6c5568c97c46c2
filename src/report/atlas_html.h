// atlas.html: the typed atlas (analysis/atlas/atlas.h) as one self-contained page, like
// report.html: its JSON (AtlasJson, as kscope atlas --format json writes it) embedded as the
// charts' data, Vega built into kscope, three charts (the family x model matrix of GPU-time
// shares, the bottleneck-class mix per family, performance against waves per SM per family)
// over HTML tables of the same numbers, and the systemic signals as findings. Every text from
// the atlas is escaped.
#pragma once

#include <iosfwd>

#include "analysis/atlas/atlas.h"
#include "util/status.h"

namespace kscope::report {

// Errors: $KSCOPE_VEGA_DIR lacks a Vega module, or the stream fails.
Status WriteAtlasHtml(const analysis::atlas::Atlas& atlas, std::ostream& out);

}  // namespace kscope::report
