// docs/schema.md, generated from the schema's own declarations (schema.cc and
// event_streams.cc) so that the document cannot drift from the code.
#pragma once

#include <string>

namespace kscope::store {

std::string SchemaMarkdown();

}  // namespace kscope::store
