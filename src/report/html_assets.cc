#include "report/html_assets.h"

#include <cstdio>
#include <cstdlib>

#include "embedded/html_assets.h"

namespace kscope::report {

std::string_view HtmlAsset(std::string_view name) {
  for (const embedded::EmbeddedFile& asset : embedded::html_assets) {
    if (asset.name == name) return asset.bytes();
  }
  (void)std::fprintf(stderr, "kscope: internal error: no HTML asset %.*s\n", static_cast<int>(name.size()),
                     name.data());
  std::abort();
}

}  // namespace kscope::report
