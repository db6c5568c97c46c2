// Gives memory that the program has freed back to the system. glibc keeps freed memory in
// the arena of the thread that allocated it, where other threads' allocations do not reuse
// it: after the reader threads' results are merged and freed, it would stay resident.
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace kscope {

inline void ReleaseFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace kscope
