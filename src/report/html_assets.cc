#include "report/html_assets.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace kscope::report {

namespace {
constexpr std::pair<std::string_view, std::string_view> kAssets[] = {
#include "report/html_assets.inc"
};
}  // namespace

std::string_view HtmlAsset(std::string_view name) {
  for (const auto& [asset, text] : kAssets) {
    if (asset == name) return text;
  }
  (void)std::fprintf(stderr, "kscope: internal error: no HTML asset %.*s\n", static_cast<int>(name.size()),
                     name.data());
  std::abort();
}

}  // namespace kscope::report
