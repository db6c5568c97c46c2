// Runs work on another thread without letting an exception (out of memory) end the
// process: it comes back as an Error like any other failure.
#pragma once

#include <exception>
#include <string>

#include "util/status.h"

namespace kscope {

template <typename F>
Status Guarded(F&& work) {
  try {
    return work();
  } catch (const std::exception& e) {
    return Error{"", std::string("failed: ") + e.what(), "free memory and try again"};
  }
}

}  // namespace kscope
