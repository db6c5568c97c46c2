// The body both file importers' fuzzers share (nsys exports, Kineto traces): arbitrary bytes
// written to a file of the given suffix and imported through the same entry as `kscope import`
// (ImportFiles: the registry sniffs the file) into an in-memory store. Whatever the bytes, the
// import must succeed or fail with one clean error line, keep nothing when it fails, and never
// crash, leak or hang; what it imports must survive every nsys report built from it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kscope::fuzz {

// `suffix`: the file's extension with its dot (".sqlite", ".json"); `fuzzer`: the name an
// abort is reported under. Aborts on any broken promise; returns 0 otherwise.
int FuzzImportFile(const uint8_t* data, size_t size, const char* suffix, const char* fuzzer);

}  // namespace kscope::fuzz
