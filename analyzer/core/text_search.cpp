#include "core/text_search.h"

#include <algorithm>
#include <cctype>
#include <array>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cstring>

namespace cudnnlint {


// Constant work per identifier: its length and its first and last eight bytes. Two names that
// share those collide, which costs a false positive of the filter or an exact comparison, never a
// wrong answer.
inline std::uint64_t load64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline std::uint64_t combine(std::uint64_t head, std::uint64_t tail, std::size_t n) {
  const std::uint64_t h = (head * 0x9E3779B97F4A7C15ull) ^ (tail * 0xC2B2AE3D27D4EB4Full) ^ (n * 0x165667B19E3779F9ull);
  return h ^ (h >> 29);
}

// The hash of the `n` bytes at `data`: their first eight (zero-padded) and, past eight, their
// last eight, read little-endian. `readable` bytes from `data` may be read (at least `n`).
inline std::uint64_t hash_of(const char* data, std::size_t n, std::size_t readable) {
  std::uint64_t head = 0;
  if (readable >= 8) {
    head = load64(data);
    if (n < 8) head &= (1ull << (8 * n)) - 1;  // little-endian: keep the first n bytes
  } else {
    for (std::size_t k = 0; k < n && k < 8; ++k) head |= static_cast<std::uint64_t>(static_cast<unsigned char>(data[k])) << (8 * k);
  }
  const std::uint64_t tail = n > 8 ? load64(data + n - 8) : 0;
  return combine(head, tail, n);
}

std::uint64_t identifier_hash(std::string_view word) { return hash_of(word.data(), word.size(), word.size()); }

namespace {

// `head` holds the first `n` <= 4 bytes of a name (little-endian): all lowercase ASCII letters?
// Within a name, a byte is one exactly when its top three bits are 011.
inline bool short_lowercase_head(std::uint64_t head, std::size_t n) {
  if (n > 4) return false;
  const std::uint64_t mask = (1ull << (8 * n)) - 1;
  return ((head & 0xE0E0E0E0ull & mask) == (0x60606060ull & mask));
}

// The four-letter lowercase names the filter records even so (see text_search.h), as the
// little-endian 32-bit values of their bytes.
constexpr std::uint32_t four(const char* w) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(w[0])) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(w[1])) << 8 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(w[2])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(w[3])) << 24;
}
constexpr std::uint32_t kRecordedFour[] = {four("half"), four("long"), four("byte"), four("cast")};

inline bool recorded_four(std::uint32_t value) {
  for (const std::uint32_t w : kRecordedFour)
    if (value == w) return true;
  return false;
}

}  // namespace

bool is_recorded_short(std::string_view word) {
  return word.size() == 4 && recorded_four(four(word.data()));
}

bool is_short_lowercase(std::string_view word) {
  if (word.empty() || word.size() > 4) return false;
  for (const char c : word)
    if (c < 'a' || c > 'z') return false;
  return true;
}

WordSet::WordSet(const std::vector<std::string>& words) : quick_(64, 0) {
  for (const auto& word : words) {
    if (word.empty() || std::find(words_.begin(), words_.end(), word) != words_.end()) continue;
    const std::uint64_t h = identifier_hash(word);
    short_lowercase_ = short_lowercase_ || is_short_lowercase(word);
    unrecorded_short_lowercase_ = unrecorded_short_lowercase_ || (is_short_lowercase(word) && !is_recorded_short(word));
    quick_[(h >> 6) & 63] |= 1ull << (h & 63);
    by_hash_.emplace(h, words_.size());
    words_.push_back(word);
  }
}

bool WordSet::contains(std::uint64_t hash, std::string_view word) const { return index_of(hash, word).has_value(); }

std::optional<std::size_t> WordSet::index_of(std::uint64_t hash, std::string_view word) const {
  if (words_.empty() || !(quick_[(hash >> 6) & 63] & (1ull << (hash & 63)))) return std::nullopt;
  const auto [begin, end] = by_hash_.equal_range(hash);
  for (auto it = begin; it != end; ++it)
    if (words_[it->second] == word) return it->second;
  return std::nullopt;
}

bool IdentifierFilter::may_contain(std::string_view word) const {
  // No record of most short names: anything may be there.
  if (bits_.empty() || (is_short_lowercase(word) && !is_recorded_short(word))) return true;
  const std::uint64_t hash = identifier_hash(word);
  const auto [a, b] = bit_positions(hash);
  return (bits_[a >> 6] & (1ull << (a & 63))) && (bits_[b >> 6] & (1ull << (b & 63)));
}

bool IdentifierFilter::may_contain_any(const std::vector<std::string>& words) const {
  return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return may_contain(w); });
}

namespace {

#if defined(__SSE2__)
// Bit k set when byte k of the 16 at `p` can be part of an identifier: an ASCII letter, digit or
// '_', or any byte of a multi-byte UTF-8 character.
inline std::uint32_t identifier_mask16(const unsigned char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
  const __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
                                       _mm_cmplt_epi8(lower, _mm_set1_epi8('z' + 1)));
  const __m128i digit =
      _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
  const __m128i under = _mm_cmpeq_epi8(v, _mm_set1_epi8('_'));
  const __m128i mask = _mm_or_si128(_mm_or_si128(letter, digit), under);
  return static_cast<std::uint32_t>(_mm_movemask_epi8(mask) | _mm_movemask_epi8(v));
}
#endif

}  // namespace

namespace {

// Calls `on(start, end)` for every identifier of `text`, in order, until it returns true. Sixty-four
// bytes at a time: a mask of identifier bytes, whose rising and falling edges are where identifiers
// start and end.
template <class OnIdentifier>
void walk_identifiers(std::string_view text, OnIdentifier&& on) {
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t open = std::string_view::npos;  // start of an identifier that runs on
  bool previous = false;                      // whether the byte before the block is an identifier byte
  for (std::size_t block = 0; block < n; block += 64) {
    std::uint64_t mask = 0;
    const std::size_t len = std::min<std::size_t>(64, n - block);
#if defined(__SSE2__)
    if (len == 64) {
      mask = static_cast<std::uint64_t>(identifier_mask16(data + block)) |
             (static_cast<std::uint64_t>(identifier_mask16(data + block + 16)) << 16) |
             (static_cast<std::uint64_t>(identifier_mask16(data + block + 32)) << 32) |
             (static_cast<std::uint64_t>(identifier_mask16(data + block + 48)) << 48);
    } else
#endif
    {
      for (std::size_t k = 0; k < len; ++k)
        if (kIdentifierByte[data[block + k]]) mask |= 1ull << k;
    }
    const std::uint64_t shifted = (mask << 1) | (previous ? 1u : 0u);
    std::uint64_t edges = (mask & ~shifted) | (~mask & shifted);  // starts, and ends (exclusive)
    if (len < 64) edges &= (1ull << len) - 1;
    while (edges != 0) {
      const auto bit = static_cast<std::size_t>(__builtin_ctzll(edges));
      edges &= edges - 1;
      const std::size_t at = block + bit;
      if (mask & (1ull << bit)) {
        open = at;
      } else if (open != std::string_view::npos) {
        if (on(open, at)) return;
        open = std::string_view::npos;
      }
    }
    previous = len == 64 ? (mask >> 63) != 0 : false;
  }
  if (open != std::string_view::npos) on(open, n);
}

}  // namespace

IdentifierScan scan_identifiers(std::string_view text, const WordSet& words, const WordSet& quoted, bool build_filter,
                                const WordSet* tracked) {
  IdentifierScan scan;
  if (build_filter) {
    // A power of two of 64-bit words, about one bit per two bytes of text.
    std::size_t bits = 1024;
    while (bits < text.size() / 2 && bits < (1u << 22)) bits <<= 1;
    scan.filter.bits_.assign(bits / 64, 0);
  }
  if (tracked != nullptr && tracked->empty()) tracked = nullptr;
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  const bool read_all = build_filter || tracked != nullptr;
  // One quick test on the hash for the three sets together: most identifiers are in none.
  std::array<std::uint64_t, 64> quick{};
  words.add_quick_bits(quick.data());
  quoted.add_quick_bits(quick.data());
  if (tracked != nullptr) tracked->add_quick_bits(quick.data());
  auto wanted = [&](std::uint64_t h) { return (quick[(h >> 6) & 63] >> (h & 63)) & 1u; };
  // A tracked word at `start` with hash `h`.
  auto track = [&](std::size_t start, std::size_t len, std::uint64_t h) {
    if (tracked == nullptr || !tracked->may_hold(h)) return;
    if (const auto index = tracked->index_of(h, std::string_view(text.data() + start, len)))
      scan.hits.push_back(WordHit{static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(*index)});
  };
  // One identifier [start, end): into the filter, and checked against the words.
  const bool skip_short = !words.has_short_lowercase() && !quoted.has_short_lowercase() &&
                          (tracked == nullptr || !tracked->has_unrecorded_short_lowercase());
  walk_identifiers(text, [&](std::size_t start, std::size_t end) __attribute__((always_inline)) {
    if (data[start] >= '0' && data[start] <= '9') return false;  // a number (1e5, 0x1F, 1_000) is no name
    const std::size_t len = end - start;
    if (skip_short && len <= 4 && n - start >= 8 && short_lowercase_head(load64(text.data() + start), len)) {
      if (read_all && len == 4) {
        std::uint32_t value;
        std::memcpy(&value, text.data() + start, 4);
        if (recorded_four(value)) {
          const std::uint64_t h = hash_of(text.data() + start, len, n - start);
          if (build_filter) scan.filter.add(h);
          if (wanted(h)) track(start, len, h);
        }
      }
      return false;
    }
    const std::uint64_t h = hash_of(text.data() + start, len, n - start);
    if (build_filter) scan.filter.add(h);
    if (!wanted(h)) return false;
    track(start, len, h);
    if (scan.names_a_word || !(words.may_hold(h) || quoted.may_hold(h))) return false;
    const std::string_view word(text.data() + start, end - start);
    if (words.contains(h, word)) {
      scan.names_a_word = true;
    } else if (start > 0 && end < n && (data[start - 1] == '\'' || data[start - 1] == '"') &&
               data[end] == data[start - 1] && quoted.contains(h, word)) {
      scan.names_a_word = true;
    }
    return scan.names_a_word && !read_all;
  });
  return scan;
}

bool has_small_float_literal(std::string_view text) {
  // From each '-' (far rarer than 'e'): an exponent sign after a digit's `e` or `E`.
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  for (const char* at = begin; at < end;) {
    const auto* dash = static_cast<const char*>(std::memchr(at, '-', static_cast<std::size_t>(end - at)));
    if (dash == nullptr) return false;
    at = dash + 1;
    if (dash - begin < 2 || (dash[-1] != 'e' && dash[-1] != 'E')) continue;
    if (!std::isdigit(static_cast<unsigned char>(dash[-2])) && dash[-2] != '.') continue;
    int exponent = 0;
    const char* k = dash + 1;
    while (k < end && std::isdigit(static_cast<unsigned char>(*k)) && exponent < 1000) exponent = exponent * 10 + (*k++ - '0');
    if (k > dash + 1 && exponent >= 5) return true;
  }
  return false;
}

}  // namespace cudnnlint
