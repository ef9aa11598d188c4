#include "cache/hash.h"

// Header-only use of Debian's libxxhash-dev: nothing to link, in the portable build too.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstring>

namespace cudnnlint::cache {

std::string Hash128::hex() const {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[static_cast<std::size_t>(i)] = digits[(high >> (60 - 4 * i)) & 15];
    out[static_cast<std::size_t>(16 + i)] = digits[(low >> (60 - 4 * i)) & 15];
  }
  return out;
}

Hash128 hash_bytes(std::string_view bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return Hash128{h.low64, h.high64};
}

std::uint64_t checksum64(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

KeyBuilder& KeyBuilder::add(std::string_view part) {
  add(static_cast<std::uint64_t>(part.size()));
  parts_.append(part);
  return *this;
}

KeyBuilder& KeyBuilder::add(std::uint64_t number) {
  char raw[sizeof number];
  std::memcpy(raw, &number, sizeof number);
  parts_.append(raw, sizeof raw);
  return *this;
}

KeyBuilder& KeyBuilder::add(const Hash128& hash) { return add(hash.low).add(hash.high); }

}  // namespace cudnnlint::cache
