// Finding words in megabytes of source text in one pass. The first pass reads every file of the
// tree, so it must cost about one read of the text, not one search per word: it walks the
// identifiers once, checks each against the words a rule family needs (API leaf names, quoted
// registry names), and leaves behind a small Bloom filter of the file's identifiers, so that a
// later pass looking for other words (the project's own callables, a config key) reads again
// only the files that may hold them.
#pragma once

#include "core/identifier.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cudnnlint {

// A set of identifiers to look for, with an exact answer.
class WordSet {
 public:
  WordSet() = default;
  explicit WordSet(const std::vector<std::string>& words);
  bool empty() const { return words_.empty(); }
  bool contains(std::uint64_t hash, std::string_view word) const;
  // The word's index in words(), when it is in the set.
  std::optional<std::size_t> index_of(std::uint64_t hash, std::string_view word) const;
  // Whether a word of at most four lowercase letters is in the set (the scan skips such names
  // otherwise: they are most of the names in code, `self`, `x`, `def`, and no API is one).
  bool has_short_lowercase() const { return short_lowercase_; }
  // The same, leaving out the short names the filter records (`half`, `long`, `byte`, `cast`),
  // which the scan looks at all the same.
  bool has_unrecorded_short_lowercase() const { return unrecorded_short_lowercase_; }
  // A quick test on the hash alone: false means the word is surely not in the set.
  bool may_hold(std::uint64_t hash) const {
    return !quick_.empty() && (quick_[(hash >> 6) & 63] & (1ull << (hash & 63))) != 0;
  }
  const std::vector<std::string>& words() const { return words_; }
  // ORs the set's quick prefilter (64 words of 64 bits) into `bits`.
  void add_quick_bits(std::uint64_t* bits) const {
    for (std::size_t k = 0; k < quick_.size(); ++k) bits[k] |= quick_[k];
  }

 private:
  std::vector<std::string> words_;
  bool short_lowercase_ = false;
  bool unrecorded_short_lowercase_ = false;
  std::vector<std::uint64_t> quick_;                     // 4096-bit prefilter on the hash
  std::unordered_multimap<std::uint64_t, std::size_t> by_hash_;
};

struct IdentifierScan;
class WordSet;

// Which identifiers a text may hold (no false negatives). Names of at most four lowercase
// letters are not recorded (they are most of the names in code): for them the answer is always
// "may", except for the few that rules pair with others and ask about in every file (`half`,
// `long`, `byte`, `cast`: the dtype family), which are recorded.
class IdentifierFilter {
 public:
  bool may_contain(std::string_view word) const;
  bool may_contain_any(const std::vector<std::string>& words) const;
  bool empty() const { return bits_.empty(); }
  std::size_t bytes() const { return bits_.size() * sizeof(std::uint64_t); }
  // The filter's bits, and a filter from them: what the cache keeps of a file it did not parse.
  const std::vector<std::uint64_t>& words() const { return bits_; }
  static IdentifierFilter from_words(std::vector<std::uint64_t> words) {
    IdentifierFilter filter;
    filter.bits_ = std::move(words);
    return filter;
  }

 private:
  friend IdentifierScan scan_identifiers(std::string_view, const WordSet&, const WordSet&, bool, const WordSet*);
  // Two bits per identifier, from the two halves of its hash (inline: the first pass calls this
  // for every identifier of the tree).
  void add(std::uint64_t hash) {
    const auto [a, b] = bit_positions(hash);
    bits_[a >> 6] |= 1ull << (a & 63);
    bits_[b >> 6] |= 1ull << (b & 63);
  }
  // The two bits of a hash. The identifier hash's low bits come from the first and last few bytes
  // only (a product carries upward), so names sharing a prefix (`StdConv2d`, `StdConv2dSame`)
  // would share bits: one more multiply spreads every bit of it over the positions' bits. Measured
  // on the benchmark corpus (3,164 files): the project step's passes read 1,007 files with the raw
  // low bits and 685 with these; its pass for ten project callables read 93, of which 23 name one.
  std::pair<std::uint64_t, std::uint64_t> bit_positions(std::uint64_t hash) const {
    const std::uint64_t mixed = hash * 0x9E3779B97F4A7C15ull;
    const std::uint64_t mask = bits_.size() * 64 - 1;  // at most 2^22 - 1
    return {(mixed >> 42) & mask, (mixed >> 20) & mask};
  }
  std::vector<std::uint64_t> bits_;
};

// Where an identifier of a tracked WordSet stands: its byte offset in the text, and its index in
// the set's words().
struct WordHit {
  std::uint32_t offset = 0;
  std::uint32_t word = 0;
};

struct IdentifierScan {
  bool names_a_word = false;  // an identifier of `words`, or a quoted one of `quoted` ('BN')
  IdentifierFilter filter;    // built when asked for
  std::vector<WordHit> hits;  // every identifier of `tracked`, in text order, when asked for
};

std::uint64_t identifier_hash(std::string_view word);
// At most four bytes, each an ASCII lowercase letter.
bool is_short_lowercase(std::string_view word);
// One of the short names the filter records all the same (`half`, `long`, `byte`, `cast`).
bool is_recorded_short(std::string_view word);

// One pass over `text`: whether it names one of `words` as an identifier or one of `quoted` as
// a string holding just that identifier ('BN', "SyncBN"), (with `build_filter`) the filter
// of all its identifiers, about 1 bit per 2 bytes of text (3% of the text's size), and (with
// `tracked`) where each identifier of `tracked` stands, comments and strings included. With a
// filter or tracked words the whole text is read; else the scan stops at the first word.
IdentifierScan scan_identifiers(std::string_view text, const WordSet& words, const WordSet& quoted, bool build_filter,
                                const WordSet* tracked = nullptr);


// Whether `text` holds a float literal with an exponent of -5 or below (`1e-8`, `1.0E-12`): the
// epsilons float16 loses. Used by the region planner and the C++ prefilter.
bool has_small_float_literal(std::string_view text);

}  // namespace cudnnlint
