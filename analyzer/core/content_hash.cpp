#include "core/content_hash.h"

// Header-only use of Debian's libxxhash-dev, as the cache's hashes.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace cudnnlint {

std::string content_hash(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[static_cast<std::size_t>(i)] = kDigits[(h.high64 >> (60 - 4 * i)) & 15];
    out[static_cast<std::size_t>(16 + i)] = kDigits[(h.low64 >> (60 - 4 * i)) & 15];
  }
  return out;
}

}  // namespace cudnnlint
