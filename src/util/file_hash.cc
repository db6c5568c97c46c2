#include "util/file_hash.h"

#include <fmt/format.h>

// Header-only: the hash is compiled in, so the static release binary needs no libxxhash.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <vector>

namespace kscope {

uint64_t TextHash(std::string_view text) { return XXH3_64bits(text.data(), text.size()); }

Result<std::string> FileContentHash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, "cannot be read", "check that the file exists and its permissions"};
  const std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(), &XXH3_freeState);
  if (!state || XXH3_64bits_reset(state.get()) != XXH_OK) {
    return Error{path, "could not be hashed (out of memory)", "free some memory and try again"};
  }
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    XXH3_64bits_update(state.get(), buffer.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return Error{path, "could not be read to its end", "check the file and the disk"};
  return fmt::format("xxh3-64:{:016x}", XXH3_64bits_digest(state.get()));
}

Result<std::string> LegacyFnv1aHash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, "cannot be read", "check that the file exists and its permissions"};
  constexpr uint64_t kPrime = 0x100000001b3ULL;
  uint64_t hash = 0xcbf29ce484222325ULL;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<size_t>(in.gcount());
    for (size_t i = 0; i < got; ++i) {
      hash ^= static_cast<uint8_t>(buffer[i]);
      hash *= kPrime;
    }
  }
  if (in.bad()) return Error{path, "could not be read to its end", "check the file and the disk"};
  return fmt::format("fnv1a64:{:016x}", hash);
}

}  // namespace kscope
