// Reads whole columns of one run's event stream back into memory.
#pragma once

#include <cstdint>
#include <vector>

#include "store/event_streams.h"
#include "util/sqlite.h"
#include "util/status.h"

namespace kscope::store {

// The requested columns, in the order asked, each with one value per row.
using Columns = std::vector<std::vector<int64_t>>;

Result<Columns> ReadColumns(sql::Db& db, int64_t run_id, const StreamSpec& spec, const std::vector<int>& cols);

}  // namespace kscope::store
