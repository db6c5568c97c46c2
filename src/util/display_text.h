// Any bytes as text that is safe to show: valid UTF-8 kept, other bytes as U+FFFD, and control
// characters as visible escapes (\n, \t, \r, \0, \xHH; C1 as \u0085), so a stored name can
// neither break a table row, a terminal, nor a UTF-8 reader. Names are stored as they came;
// this is for output only.
#pragma once

#include <string>
#include <string_view>

namespace kscope {

std::string DisplayText(std::string_view bytes);

}  // namespace kscope
