// What an nsys export says about its run: GPU, driver, CUDA and nsys versions, command.
#pragma once

#include "import/nsys/export_schema.h"
#include "store/store.h"
#include "util/sqlite.h"

namespace kscope::import::nsys {

// Fills the fields of `m` the export knows; tables it lacks leave them empty.
void LearnManifest(sql::Db& db, const ExportSchema& schema, store::Manifest& m);

}  // namespace kscope::import::nsys
