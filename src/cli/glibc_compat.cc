// Built into the release binary only (KSCOPE_STATIC), which must run on glibc 2.35 (Ubuntu
// 22.04). Debian 12's static libstdc++ refers to arc4random, new in glibc 2.36, from
// std::random_device, which kscope does not use but links all the same; this definition, from
// getrandom (glibc 2.25), takes its place so the binary does not ask for glibc 2.36.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

// Hidden: it serves the references linked in, and is not offered to the shared libraries.
extern "C" __attribute__((visibility("hidden"))) uint32_t arc4random(void) noexcept {
  uint32_t value = 0;
  for (;;) {
    const ssize_t n = getrandom(&value, sizeof value, 0);
    if (n == static_cast<ssize_t>(sizeof value)) return value;
    if (n < 0 && errno != EINTR) std::abort();  // like glibc's, it has no way to fail
  }
}
