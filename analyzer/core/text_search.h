// Finding words in megabytes of source text in one pass. The first pass reads every file of the
// tree, so it must cost about one read of the text, not one search per word: it walks the
// identifiers once, checks each against the words a rule family needs (API leaf names, quoted
// registry names), and leaves behind a small Bloom filter of the file's identifiers, so that a
// later pass looking for other words (the project's own callables, a config key) reads again
// only the files that may hold them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cudnnlint {

// A set of identifiers to look for, with an exact answer.
class WordSet {
 public:
  WordSet() = default;
  explicit WordSet(const std::vector<std::string>& words);
  bool empty() const { return words_.empty(); }
  bool contains(std::uint64_t hash, std::string_view word) const;
  // Whether a word of at most four lowercase letters is in the set (the scan skips such names
  // otherwise: they are most of the names in code, `self`, `x`, `def`, and no API is one).
  bool has_short_lowercase() const { return short_lowercase_; }
  // A quick test on the hash alone: false means the word is surely not in the set.
  bool may_hold(std::uint64_t hash) const {
    return !quick_.empty() && (quick_[(hash >> 6) & 63] & (1ull << (hash & 63))) != 0;
  }
  const std::vector<std::string>& words() const { return words_; }

 private:
  std::vector<std::string> words_;
  bool short_lowercase_ = false;
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

 private:
  friend IdentifierScan scan_identifiers(std::string_view, const WordSet&, const WordSet&, bool);
  void add(std::uint64_t hash);
  std::vector<std::uint64_t> bits_;
};

struct IdentifierScan {
  bool names_a_word = false;  // an identifier of `words`, or a quoted one of `quoted` ('BN')
  IdentifierFilter filter;    // built when asked for
};

std::uint64_t identifier_hash(std::string_view word);
// At most four bytes, each an ASCII lowercase letter.
bool is_short_lowercase(std::string_view word);
// One of the short names the filter records all the same (`half`, `long`, `byte`, `cast`).
bool is_recorded_short(std::string_view word);

// One pass over `text`: whether it names one of `words` as an identifier or one of `quoted` as
// a string holding just that identifier ('BN', "SyncBN"), and (with `build_filter`) the filter
// of all its identifiers, about 1 bit per 2 bytes of text (3% of the text's size).
IdentifierScan scan_identifiers(std::string_view text, const WordSet& words, const WordSet& quoted, bool build_filter);


// Whether `text` holds a float literal with an exponent of -5 or below (`1e-8`, `1.0E-12`): the
// epsilons float16 loses. Used by the region planner and the C++ prefilter.
bool has_small_float_literal(std::string_view text);

}  // namespace cudnnlint
