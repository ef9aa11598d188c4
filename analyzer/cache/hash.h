// 128-bit hashes (XXH3) of file contents and of cache keys. Not cryptographic: a key collision
// would need 2^64 entries by chance, and nobody gains by forging one in their own cache.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace cudnnlint::cache {

struct Hash128 {
  std::uint64_t low = 0, high = 0;
  auto operator<=>(const Hash128&) const = default;
  std::string hex() const;  // 32 hex digits
};

struct Hash128Hasher {
  std::size_t operator()(const Hash128& h) const { return static_cast<std::size_t>(h.low ^ (h.high * 0x9E3779B97F4A7C15ull)); }
};

Hash128 hash_bytes(std::string_view bytes);
std::uint64_t checksum64(std::string_view bytes);

// A key built from parts: each part is length-prefixed, so ("ab", "c") and ("a", "bc") differ.
class KeyBuilder {
 public:
  KeyBuilder& add(std::string_view part);
  KeyBuilder& add(std::uint64_t number);
  KeyBuilder& add(const Hash128& hash);
  Hash128 key() const { return hash_bytes(parts_); }

 private:
  std::string parts_;
};

}  // namespace cudnnlint::cache
