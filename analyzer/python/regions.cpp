#include "python/regions.h"

#include "python/lexing.h"

#include "core/identifier.h"
#include "core/text_search.h"

#include <algorithm>
#include <array>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cctype>
#include <climits>
#include <functional>
#include <optional>
#include <stdexcept>
#include <span>
#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <string>

namespace cudnnlint::python {

namespace {

// Sets and maps of identifiers, hashed by their length and first and last eight bytes
// (core/text_search): the planner looks up every identifier of a file, and std::hash reads
// every byte of each.
struct WordHash {
  std::size_t operator()(std::string_view word) const { return static_cast<std::size_t>(identifier_hash(word)); }
};

// A 4096-bit filter of the hashes of a set's names. Most identifiers of a module are in none of
// the planner's sets; the filter says so in one load, without the table's division and probe
// (those lookups were a fifth of the planner's time on transformers + timm).
class NameFilter {
 public:
  void add(std::string_view word) {
    const std::uint64_t h = identifier_hash(word);
    bits_[(h >> 6) & 63] |= std::uint64_t{1} << (h & 63);
  }
  bool may_hold(std::string_view word) const {
    const std::uint64_t h = identifier_hash(word);
    return ((bits_[(h >> 6) & 63] >> (h & 63)) & 1u) != 0;
  }
  void clear() { bits_.fill(0); }

 private:
  std::array<std::uint64_t, 64> bits_{};
};

// A std::unordered_set or map of names (views into the source or the caller's words) behind a
// NameFilter: the lookups every identifier of a module goes through.
template <class Table>
class FilteredNames {
 public:
  typename Table::const_iterator find(std::string_view word) const {
    return filter_.may_hold(word) ? table_.find(word) : table_.end();
  }
  std::size_t count(std::string_view word) const { return filter_.may_hold(word) ? table_.count(word) : 0; }
  typename Table::const_iterator begin() const { return table_.begin(); }
  typename Table::const_iterator end() const { return table_.end(); }
  bool empty() const { return table_.empty(); }
  std::size_t size() const { return table_.size(); }
  void clear() {
    table_.clear();
    filter_.clear();
  }

 protected:
  Table table_;
  NameFilter filter_;
};

class WordSetView : public FilteredNames<std::unordered_set<std::string_view, WordHash>> {
 public:
  WordSetView() = default;
  template <class It>
  WordSetView(It first, It last) {
    insert(first, last);
  }
  auto insert(std::string_view word) {
    filter_.add(word);
    return table_.insert(word);
  }
  template <class It>
  void insert(It first, It last) {
    for (; first != last; ++first) insert(std::string_view(*first));
  }
};

template <class Value>
class WordMap : public FilteredNames<std::unordered_map<std::string_view, Value, WordHash>> {
  using Base = FilteredNames<std::unordered_map<std::string_view, Value, WordHash>>;

 public:
  Value& operator[](std::string_view word) {
    this->filter_.add(word);
    return this->table_[word];
  }
  using Base::begin;
  using Base::end;
  using Base::find;
  auto find(std::string_view word) {
    return this->filter_.may_hold(word) ? this->table_.find(word) : this->table_.end();
  }
  auto begin() { return this->table_.begin(); }
  auto end() { return this->table_.end(); }
};

// A set of bytes to stop at, with its SSE2 broadcasts made once (not at every stop: the lexers
// below stop every few bytes).
template <std::size_t N>
struct ByteSet {
  explicit ByteSet(const std::array<char, N>& bytes) : set(bytes) {
#if defined(__SSE2__)
    for (std::size_t k = 0; k < N; ++k) wanted[k] = _mm_set1_epi8(bytes[k]);
#endif
  }
  std::array<char, N> set;
#if defined(__SSE2__)
  __m128i wanted[N];
#endif
};

// The first position in [i, n) holding one of `set`'s bytes (n when none): sixteen bytes at a
// time where SSE2 is there. The lexers below spend most of their time between such bytes.
template <std::size_t N>
std::size_t skip_to_any(std::string_view text, std::size_t i, std::size_t n, const ByteSet<N>& bytes) {
#if defined(__SSE2__)
  while (i + 16 <= n) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    __m128i hits = _mm_cmpeq_epi8(block, bytes.wanted[0]);
    for (std::size_t k = 1; k < N; ++k) hits = _mm_or_si128(hits, _mm_cmpeq_epi8(block, bytes.wanted[k]));
    const int mask = _mm_movemask_epi8(hits);
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    i += 16;
  }
#endif
  for (; i < n; ++i)
    for (const char c : bytes.set)
      if (text[i] == c) return i;
  return n;
}

const ByteSet<12> kLexerBytes({'#', '\'', '"', '(', ')', '[', ']', '{', '}', '\\', '\n', '\r'});
const ByteSet<4> kSingleQuotedBytes({'\\', '\'', '\n', '\r'});
const ByteSet<4> kDoubleQuotedBytes({'\\', '"', '\n', '\r'});
const ByteSet<2> kQuoteBytes({'\'', '"'});


// Non-zero for the bytes code_identifiers stops at outside a def's header: comment and string
// starts, and identifier bytes (digits included: a number is skipped whole).
constexpr std::array<unsigned char, 256> kCodeByteClass = [] {
  std::array<unsigned char, 256> table{};
  for (int c = 0; c < 256; ++c)
    table[static_cast<std::size_t>(c)] = (kIdentifierByte[static_cast<std::size_t>(c)] || c == '#' || c == '\'' || c == '"') ? 1 : 0;
  return table;
}();

// Whether the identifier at `at` is an argument of an isinstance or issubclass call (`isinstance(m,
// (nn.BatchNorm2d, nn.GroupNorm))`): read backwards to the nearest unmatched bracket, through tuples.
// Anything the backward read cannot be sure of (a quote, a comment, a backslash, a list, another
// call, 512 bytes without an answer) answers no.
bool only_type_tested(std::string_view text, std::size_t at) {
  constexpr std::size_t kLookBack = 512;
  const std::size_t limit = at > kLookBack ? at - kLookBack : 0;
  int closed = 0;
  for (std::size_t i = at; i-- > limit;) {
    const char c = text[i];
    if (c == '\'' || c == '"' || c == '#' || c == '\\') return false;
    if (c == ')' || c == ']' || c == '}') {
      ++closed;
      continue;
    }
    if (c != '(' && c != '[' && c != '{') continue;
    if (closed > 0) {
      --closed;
      continue;
    }
    if (c != '(') return false;  // in a list, a dict or a subscript
    std::size_t end = i;
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
    std::size_t begin = end;
    while (begin > 0 && is_identifier_char(text[begin - 1])) --begin;
    if (begin == end) continue;  // a tuple or a grouping: the call, if any, is further out
    const std::string_view callee = text.substr(begin, end - begin);
    const bool builtin = begin == 0 || text[begin - 1] != '.';
    return builtin && (callee == "isinstance" || callee == "issubclass");
  }
  return false;
}

// Whether `word`, a view into `source`, is called or constructed there: `(` after it, past blanks.
bool called_in(std::string_view source, std::string_view word) {
  std::size_t at = static_cast<std::size_t>(word.data() - source.data()) + word.size();
  while (at < source.size() && (source[at] == ' ' || source[at] == '\t')) ++at;
  return at < source.size() && source[at] == '(';
}

// Whether the identifier at [at, at + size) is a keyword argument's whole value: `(key=NAME,` or
// `, key = NAME)`, brackets and newlines between allowed.
bool keyword_argument_value(std::string_view source, std::size_t at, std::size_t size) {
  std::size_t after = at + size;
  while (after < source.size() && (source[after] == ' ' || source[after] == '\t' || source[after] == '\n' ||
                                   source[after] == '\r'))
    ++after;
  if (after >= source.size() || (source[after] != ',' && source[after] != ')')) return false;
  std::size_t i = at;
  while (i > 0 && (source[i - 1] == ' ' || source[i - 1] == '\t')) --i;
  if (i < 2 || source[i - 1] != '=' || std::string_view("=!<>:+-*/%&|^@").find(source[i - 2]) != std::string_view::npos)
    return false;
  --i;
  while (i > 0 && (source[i - 1] == ' ' || source[i - 1] == '\t')) --i;
  const std::size_t key_end = i;
  while (i > 0 && is_identifier_char(source[i - 1])) --i;
  if (i == key_end) return false;
  while (i > 0 && (source[i - 1] == ' ' || source[i - 1] == '\t' || source[i - 1] == '\n' || source[i - 1] == '\r')) --i;
  return i > 0 && (source[i - 1] == '(' || source[i - 1] == ',');
}

bool starts_with_keyword(std::string_view text, std::string_view keyword) {
  return text.size() > keyword.size() && text.substr(0, keyword.size()) == keyword &&
         !is_identifier_char(text[keyword.size()]);
}

std::string_view identifier_at(std::string_view text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size() && is_identifier_char(text[end])) ++end;
  return text.substr(at, end - at);
}

// Skips spaces, tabs, form feeds and backslash line continuations.
std::size_t skip_blanks(std::string_view text, std::size_t at) {
  for (;;) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\f')) ++at;
    if (at + 1 < text.size() && text[at] == '\\' && (text[at + 1] == '\n' || text[at + 1] == '\r')) {
      at += (text[at + 1] == '\r' && at + 2 < text.size() && text[at + 2] == '\n') ? 3 : 2;
      continue;
    }
    return at;
  }
}

// Fills in is_definition / is_class / name from the statement text (after decorators).
void classify(TopLevelChunk& chunk, std::string_view text) {
  std::size_t at = skip_blanks(text, 0);  // also skips a leading form feed
  std::string_view rest = text.substr(at);
  if (starts_with_keyword(rest, "async")) {
    at = skip_blanks(text, at + 5);
    rest = text.substr(at);
  }
  if (starts_with_keyword(rest, "def") || starts_with_keyword(rest, "class")) {
    chunk.is_definition = true;
    chunk.is_class = rest[0] == 'c';
    chunk.name = identifier_at(text, skip_blanks(text, at + (chunk.is_class ? 5 : 3)));
  }
}

void code_identifiers(std::string_view text, std::vector<std::string_view>& out);

// Every name a statement binds, wherever in it: assignment targets (`a = `, `a = b = `,
// `a, *b = `, `a: T = `, `a += `, in if/try/with blocks and after `;` or a one-line compound
// header too), `for` targets, `as` names (import, with, except), imported names, and the names of
// nested defs and classes. Over-collecting only costs speed (every identifier left of an
// assignment's `=` counts, subscripts and all); missing one would drop facts, so the scan follows
// strings and brackets.
template <class IsRelevant>
void bound_names(std::string_view text, std::vector<std::string_view>& out, IsRelevant is_relevant) {
  const std::size_t n = text.size();
  int depth = 0;
  bool statement_start = true;
  bool in_import = false;
  bool in_for_target = false;   // between `for` and `in`
  bool compound_header = false; // the statement starts with a keyword whose header ends in ':'
  bool assigned = false;        // an assignment '=' was seen in this statement
  std::size_t targets_begin = 0;  // where the current run of targets starts
  std::string_view previous_word;
  // Identifiers of [from, to) that are names, not attributes (`a.b` contributes a).
  auto add_targets = [&](std::size_t from, std::size_t to) {
    std::vector<std::string_view> ids;
    code_identifiers(text.substr(from, to - from), ids);
    for (const auto id : ids) {
      const std::size_t at = static_cast<std::size_t>(id.data() - text.data());
      if (at > 0 && text[at - 1] == '.') continue;
      out.push_back(id);
    }
  };
  std::size_t i = 0;
  while (i < n) {
    if (statement_start && depth == 0) {
      statement_start = false;
      i = skip_blanks(text, i);
      if (i >= n) break;
      const std::string_view rest = text.substr(i);
      targets_begin = i;
      assigned = false;
      in_import = starts_with_keyword(rest, "import") || starts_with_keyword(rest, "from");
      in_for_target = false;
      compound_header = false;
      for (std::string_view keyword : {"if", "elif", "else", "for", "while", "with", "try", "except", "finally",
                                       "def", "class", "async"})
        if (starts_with_keyword(rest, keyword)) compound_header = true;
      // `match` and `case` are keywords only where a name cannot follow (`match = ...` binds).
      for (std::string_view keyword : {"match", "case"}) {
        if (!starts_with_keyword(rest, keyword)) continue;
        const std::size_t next = skip_blanks(text, i + keyword.size());
        if (next < n && std::string_view(":=.,)]}+-*/%&|^@<>!;").find(text[next]) == std::string_view::npos)
          compound_header = true;
      }
      for (std::string_view keyword : {"def", "class", "async"}) {
        if (!starts_with_keyword(rest, keyword)) continue;
        std::size_t at = skip_blanks(text, i + keyword.size());
        if (keyword == "async" && starts_with_keyword(text.substr(at), "def")) at = skip_blanks(text, at + 3);
        const auto name = identifier_at(text, at);
        if (!name.empty()) out.push_back(name);
      }
      std::size_t after_for = i;
      if (starts_with_keyword(rest, "async")) after_for = skip_blanks(text, i + 5);
      if (starts_with_keyword(text.substr(after_for), "for")) {
        in_for_target = true;
        targets_begin = after_for + 3;
      }
      continue;
    }
    const char c = text[i];
    if (c == '#') {
      while (i < n && text[i] != '\n' && text[i] != '\r') ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      i = string_literal_end(text, i);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == '\\' && i + 1 < n && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      i += 2;
      continue;
    } else if (c == '\n' || c == '\r') {
      if (depth == 0) statement_start = true;
      in_import = false;
    } else if (depth == 0 && c == ';') {
      statement_start = true;
    } else if (depth == 0 && c == ':') {
      if (compound_header && !in_for_target) {
        statement_start = true;  // `if x: a = 1`: a statement follows the header
      } else if (!assigned && !compound_header && !(i + 1 < n && text[i + 1] == '=')) {
        add_targets(targets_begin, i);  // `a: T = v` or `a: T`
        assigned = true;
      }
    } else if (depth == 0 && c == '=') {
      const char before = i > 0 ? text[i - 1] : ' ';
      const char after = i + 1 < n ? text[i + 1] : ' ';
      const bool comparison = after == '=' || before == '=' || before == '!' || before == ':' ||
                              ((before == '<' || before == '>') && !(i > 1 && text[i - 2] == before));
      if (!comparison && !compound_header) {
        add_targets(targets_begin, i);
        assigned = true;
        targets_begin = i + 1;  // `a = b = 1`: b is a target too
      }
    } else if (is_identifier_char(c) && (i == 0 || !is_identifier_char(text[i - 1]))) {
      const auto word = identifier_at(text, i);
      if (in_for_target && depth == 0 && word == "in") {
        add_targets(targets_begin, i);
        in_for_target = false;
      } else if (word == "as") {
        // `import x as y` / `from m import x as y`: y matters when x does (a plain imported name
        // that matters is itself a trigger token). `with ... as y`, `except ... as y`: always.
        const auto name = identifier_at(text, skip_blanks(text, i + 2));
        if (!name.empty() && (!in_import || is_relevant(previous_word))) out.push_back(name);
      } else {
        previous_word = word;
      }
      i += word.size();
      continue;
    }
    ++i;
  }
}

// Whether a definition assigns one of `attributes` on an object (`m.eps = ...`).
bool assigns_attribute(std::string_view text, const std::vector<std::string>& attributes) {
  for (const std::string& name : attributes) {
    const std::string attribute = "." + name;
    for (std::size_t at = text.find(attribute); at != std::string_view::npos; at = text.find(attribute, at + 1)) {
      const std::size_t after = at + attribute.size();
      if (after < text.size() && is_identifier_char(text[after])) continue;
      const std::size_t op = skip_blanks(text, after);
      if (op < text.size() && text[op] == '=' && !(op + 1 < text.size() && text[op + 1] == '=')) return true;
    }
  }
  return false;
}

bool mentions_word(std::string_view text, std::string_view word) {
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !is_identifier_char(text[at - 1]);
    const std::size_t after = at + word.size();
    const bool right = after >= text.size() || !is_identifier_char(text[after]);
    if (left && right) return true;
  }
  return false;
}

// A module statement that binds nothing but its leading targets: an assignment or an expression,
// not an import, not a compound statement, no walrus. Such a statement is parsed only when it
// matters (python/regions.h).
bool is_simple_statement(std::string_view text) {
  const std::size_t at = skip_blanks(text, 0);
  const std::string_view rest = text.substr(at);
  if (rest.empty() || !is_identifier_char(rest[0]) || (rest[0] >= '0' && rest[0] <= '9')) return false;
  for (std::string_view keyword : {"import", "from", "if", "for", "while", "with", "try", "match", "global",
                                   "nonlocal", "del", "async", "def", "class", "case", "assert", "raise",
                                   "return", "print", "exec", "type", "lambda", "await", "yield"})
    if (starts_with_keyword(rest, keyword) || rest == keyword) return false;
  return text.find(":=") == std::string_view::npos && !mentions_word(text, "import") && !mentions_word(text, "global") &&
         !mentions_word(text, "nonlocal");
}

// Every identifier-shaped word of `text` (numbers skipped).
void all_words(std::string_view text, std::vector<std::string_view>& out) {
  for (std::size_t i = 0; i < text.size();) {
    if (!is_identifier_char(text[i])) {
      ++i;
      continue;
    }
    const auto word = identifier_at(text, i);
    if (!(word[0] >= '0' && word[0] <= '9')) out.push_back(word);
    i += word.size();
  }
}

// The identifiers of `text` where it is code: outside comments and plain string literals. An
// f-string ends where any string does; every word inside it counts, since its braces hold code
// (over-collecting only costs speed).
void code_identifiers(std::string_view text, std::vector<std::string_view>& out) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  // A def's annotations (`x: DataLoader`, `-> TrainingArguments`) name types, never a call the
  // resolver reads: their names are left out, so a method that only annotates with an API's
  // name is not kept for it. Defaults (`x=nn.BatchNorm2d`, `f=lambda a: g(a)`) are code.
  enum class Header { None, Parameters, Return } header = Header::None;
  enum class Part { Name, Annotation, Default } part = Part::Name;
  int depth = 0;
  int lambdas = 0;  // lambdas in a default whose parameters are still being read (`lambda a, b: ...`)
  auto in_annotation = [&] {
    return (header == Header::Parameters && depth >= 1 && part == Part::Annotation) ||
           (header == Header::Return && depth == 0);
  };
  while (i < n) {
    // Outside a def's header only comments, strings and words matter: skip the rest in one loop.
    if (header == Header::None)
      while (i < n && kCodeByteClass[static_cast<unsigned char>(text[i])] == 0) ++i;
    if (i >= n) break;
    const char c = text[i];
    if (c == '#') {
      while (i < n && text[i] != '\n' && text[i] != '\r') ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      std::size_t p = i;
      bool formatted = false;
      while (p > 0 && std::isalpha(static_cast<unsigned char>(text[p - 1])) && i - p < 3) {
        --p;
        if (text[p] == 'f' || text[p] == 'F') formatted = true;
      }
      if (p > 0 && is_identifier_char(text[p - 1])) formatted = false;
      const std::size_t j = std::min(string_literal_end(text, i), n);
      if (formatted && !in_annotation()) all_words(text.substr(i, j - i), out);
      i = j;
      continue;
    }
    if (is_identifier_char(c) && !(c >= '0' && c <= '9')) {
      const auto word = identifier_at(text, i);
      if (header == Header::None && word == "def" && (i == 0 || text[i - 1] != '.')) {
        header = Header::Parameters;
        part = Part::Name;
        depth = 0;
        lambdas = 0;
      }
      if (header == Header::Parameters && depth == 1 && part == Part::Default && word == "lambda") ++lambdas;
      if (!in_annotation()) out.push_back(word);
      i += word.size();
      continue;
    }
    if (c >= '0' && c <= '9') {
      while (i < n && is_identifier_char(text[i])) ++i;  // a number: no name inside
      continue;
    }
    if (header != Header::None) {
      if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if (c == ')' || c == ']' || c == '}') {
        if (--depth <= 0) {
          depth = 0;
          if (header == Header::Parameters && c == ')') part = Part::Name;
        }
      } else if (depth == 1 && header == Header::Parameters) {
        if (lambdas > 0) {
          if (c == ':') --lambdas;  // the lambda's body follows: still the default
        } else if (c == ',') {
          part = Part::Name;
        } else if (c == ':' && part == Part::Name) {
          part = Part::Annotation;
        } else if (c == '=' && part != Part::Default) {
          part = Part::Default;
        }
      } else if (depth == 0 && c == '-' && i + 1 < n && text[i + 1] == '>') {
        header = Header::Return;
        ++i;
      } else if (depth == 0 && c == ':') {
        header = Header::None;  // the body starts
      }
    }
    ++i;
  }
}

// Tokens made of a quote, an identifier and the same quote ('BN', "SyncBN"), looked for in one
// pass over a text's quotes instead of one substring search per token; a token of another shape
// is searched as it is. Same answers as a substring search for each token.
// The name a statement `name.method(...)` calls a method on; nullopt for any other statement.
std::optional<std::string_view> method_call_receiver(std::string_view chunk) {
  std::size_t at = code_start(chunk);
  auto identifier_end = [&](std::size_t from) {
    std::size_t i = from;
    while (i < chunk.size() && is_identifier_char(chunk[i])) ++i;
    return i;
  };
  auto skip_spaces = [&](std::size_t i) {
    while (i < chunk.size() && (chunk[i] == ' ' || chunk[i] == '\t')) ++i;
    return i;
  };
  if (at >= chunk.size() || std::isdigit(static_cast<unsigned char>(chunk[at]))) return std::nullopt;
  const std::size_t name_end = identifier_end(at);
  if (name_end == at) return std::nullopt;
  std::size_t i = skip_spaces(name_end);
  if (i >= chunk.size() || chunk[i] != '.') return std::nullopt;
  i = skip_spaces(i + 1);
  const std::size_t method_end = identifier_end(i);
  if (method_end == i) return std::nullopt;
  i = skip_spaces(method_end);
  if (i >= chunk.size() || chunk[i] != '(') return std::nullopt;
  return chunk.substr(at, name_end - at);
}

class QuotedTriggers {
 public:
  explicit QuotedTriggers(const std::vector<std::string>& tokens) {
    for (const auto& token : tokens) {
      const bool quoted_identifier =
          token.size() >= 3 && (token.front() == '\'' || token.front() == '"') && token.back() == token.front() &&
          std::all_of(token.begin() + 1, token.end() - 1, [](char c) { return is_identifier_char(c); });
      if (quoted_identifier) words_.insert(std::string_view(token).substr(1, token.size() - 2));
      else if (!token.empty()) others_.push_back(token);
    }
  }

  bool in(std::string_view text) const {
    const std::size_t n = text.size();
    if (!words_.empty())
      for (std::size_t i = skip_to_any(text, 0, n, kQuoteBytes); i < n; i = skip_to_any(text, i + 1, n, kQuoteBytes)) {
        std::size_t end = i + 1;
        while (end < n && is_identifier_char(text[end])) ++end;
        if (end < n && end > i + 1 && text[end] == text[i] && words_.count(text.substr(i + 1, end - i - 1)) > 0) return true;
      }
    return std::any_of(others_.begin(), others_.end(), [&](const std::string& token) {
      return ::memmem(text.data(), text.size(), token.data(), token.size()) != nullptr;
    });
  }

 private:
  WordSetView words_;  // views into the caller's tokens
  std::vector<std::string> others_;
};

bool mentions_any(std::string_view text, const std::vector<std::string>& tokens) {
  return std::any_of(tokens.begin(), tokens.end(),
                     [&](const std::string& t) { return text.find(t) != std::string_view::npos; });
}

// tree-sitter counts rows at '\n' only and columns in bytes; included ranges must agree.
TSPoint point_at(std::string_view source, std::uint32_t offset, std::uint32_t row) {
  std::uint32_t column = 0;
  while (column < offset && source[offset - column - 1] != '\n') ++column;
  return TSPoint{row, column};
}

// tree-sitter ranges from byte spans given in order, adjacent spans joined (fewer, larger ranges);
// rows are counted once over the text, whatever the number of spans.
class RangeBuilder {
 public:
  explicit RangeBuilder(std::string_view source) : source_(source) {}
  void add(std::uint32_t begin, std::uint32_t end) {
    if (begin >= end) return;
    advance_rows(begin);
    const TSPoint start = point_at(source_, begin, row_);
    advance_rows(end);
    const TSPoint stop = point_at(source_, end, row_);
    if (!ranges.empty() && ranges.back().end_byte == begin) {
      ranges.back().end_byte = end;
      ranges.back().end_point = stop;
    } else {
      ranges.push_back(TSRange{start, stop, begin, end});
    }
    bytes += end - begin;
  }
  std::vector<TSRange> ranges;
  std::size_t bytes = 0;

 private:
  void advance_rows(std::uint32_t to) {
    for (; scanned_ < to; ++scanned_)
      if (source_[scanned_] == '\n') ++row_;
  }
  std::string_view source_;
  std::uint32_t row_ = 0, scanned_ = 0;
};

}  // namespace

bool mentions_identifier(std::string_view text, std::string_view word) { return mentions_word(text, word); }


namespace {

// The statements of one block: from `begin` to `end`, a statement starts at a line whose
// indentation is exactly `indent` (outside brackets, strings and continued lines). nullopt when
// the text confuses the lexer (unbalanced brackets, an unterminated string).
std::optional<std::vector<TopLevelChunk>> split_statements(std::string_view source, std::size_t begin, std::size_t end,
                                                           std::string_view indent) {
  std::vector<std::uint32_t> starts;
  const std::size_t n = end;
  int depth = 0;
  bool at_line_start = true;
  bool continued = false;
  std::size_t i = begin;
  auto newline_at = [&](std::size_t k) { return source[k] == '\n' || source[k] == '\r'; };
  auto skip_newline = [&](std::size_t k) {
    if (source[k] == '\r' && k + 1 < n && source[k + 1] == '\n') return k + 2;
    return k + 1;
  };
  while (i < n) {
    if (at_line_start) {
      at_line_start = false;
      if (depth == 0 && !continued) {
        // A form feed at the start of a line resets indentation: what follows is top level.
        std::size_t first = i;
        if (indent.empty())
          while (first < n && source[first] == '\f') ++first;
        if (source.substr(first, indent.size()) == indent) {
          const std::size_t after = first + indent.size();
          const char c = after < n ? source[after] : ' ';
          if (c != ' ' && c != '\t' && c != '#' && c != '\n' && c != '\r' && c != '\f')
            starts.push_back(static_cast<std::uint32_t>(i));
        }
      }
      continued = false;
    }
    i = skip_to_any(source, i, n, kLexerBytes);
    if (i >= n) break;
    const char c = source[i];
    if (c == '#') {
      while (i < n && !newline_at(i)) ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      const bool triple = i + 2 < n && source[i + 1] == c && source[i + 2] == c;
      i += triple ? 3 : 1;
      bool closed = false;
      const auto& string_bytes = c == '"' ? kDoubleQuotedBytes : kSingleQuotedBytes;
      while (i < n) {
        i = skip_to_any(source, i, n, string_bytes);
        if (i >= n) break;
        if (source[i] == '\\') {
          i += (i + 1 < n) ? 2 : 1;
          continue;
        }
        if (!triple && newline_at(i)) return std::nullopt;  // unterminated string: let the parser say so
        if (source[i] == c && (!triple || (i + 2 < n && source[i + 1] == c && source[i + 2] == c))) {
          i += triple ? 3 : 1;
          closed = true;
          break;
        }
        ++i;
      }
      if (!closed) return std::nullopt;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0) return std::nullopt;
    } else if (c == '\\' && i + 1 < n && newline_at(i + 1)) {
      continued = true;
      i = skip_newline(i + 1);
      at_line_start = true;
      continue;
    } else if (newline_at(i)) {
      i = skip_newline(i);
      at_line_start = true;
      continue;
    }
    ++i;
  }
  if (depth != 0) return std::nullopt;

  std::vector<TopLevelChunk> chunks;
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const std::uint32_t chunk_begin = (k == 0 && indent.empty()) ? static_cast<std::uint32_t>(begin) : starts[k];
    const std::uint32_t chunk_end = (k + 1 < starts.size()) ? starts[k + 1] : static_cast<std::uint32_t>(n);
    std::string_view text = source.substr(starts[k], chunk_end - starts[k]);
    text.remove_prefix(std::min(text.size(), indent.size()));
    const bool clause = starts_with_keyword(text, "else") || starts_with_keyword(text, "elif") ||
                        starts_with_keyword(text, "except") || starts_with_keyword(text, "finally");
    if (clause && !chunks.empty()) {
      chunks.back().end = chunk_end;  // continues the if/try/for/while above it
      continue;
    }
    TopLevelChunk chunk{chunk_begin, chunk_end, false, false, {}};
    classify(chunk, text);
    chunks.push_back(chunk);
  }
  // Decorators belong to the definition that follows them.
  std::vector<TopLevelChunk> merged;
  constexpr std::uint32_t kNoDecorators = UINT32_MAX;
  std::uint32_t decorators_begin = kNoDecorators;
  for (TopLevelChunk chunk : chunks) {
    const std::size_t first = source.find_first_not_of(" \t\f\r\n", chunk.begin);
    const bool decorator = !chunk.is_definition && first < chunk.end && source[first] == '@';
    if (decorator) {
      if (decorators_begin == kNoDecorators) decorators_begin = chunk.begin;
      continue;
    }
    if (decorators_begin != kNoDecorators) {
      chunk.begin = decorators_begin;
      decorators_begin = kNoDecorators;
    }
    merged.push_back(chunk);
  }
  if (decorators_begin != kNoDecorators)
    merged.push_back(TopLevelChunk{decorators_begin, static_cast<std::uint32_t>(n), false, false, {}});
  return merged;
}

// The body of a class or def chunk: its header (up to the first member) and its members (a
// class's methods and statements, a function's statements), each a statement at the body's
// indentation. nullopt when the body is on the header's line, or the
// lexer cannot tell.
struct Body {
  std::uint32_t header_end = 0;
  std::vector<TopLevelChunk> members;
};

std::optional<Body> split_body(std::string_view source, const TopLevelChunk& chunk) {
  // The header ends at the first newline outside brackets and strings after the line where the
  // `class`, `def` or `async def` keyword starts (decorators before it may hold strings and
  // brackets of their own).
  std::size_t i = chunk.begin;
  int depth = 0;
  std::size_t header_newline = std::string_view::npos;
  bool seen_class = false;
  bool line_start = true;
  std::size_t last_code = 0;  // one past the last code character before the header's end
  while (i < chunk.end) {
    const char c = source[i];
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '#') last_code = i + 1;
    if (line_start && depth == 0 && !seen_class) {
      const std::size_t at = skip_blanks(source, i);
      const std::string_view rest = source.substr(at, chunk.end - at);
      if (starts_with_keyword(rest, "class") || starts_with_keyword(rest, "def") || starts_with_keyword(rest, "async"))
        seen_class = true;
    }
    line_start = false;
    if (c == '#') {
      while (i < chunk.end && source[i] != '\n') ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      const bool triple = i + 2 < chunk.end && source[i + 1] == c && source[i + 2] == c;
      std::size_t j = i + (triple ? 3 : 1);
      while (j < chunk.end) {
        if (source[j] == '\\') {
          j += 2;
          continue;
        }
        if (!triple && source[j] == '\n') return std::nullopt;
        if (source[j] == c && (!triple || (j + 2 < chunk.end && source[j + 1] == c && source[j + 2] == c))) {
          j += triple ? 3 : 1;
          break;
        }
        ++j;
      }
      i = j;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
    else if (c == '\\' && i + 1 < chunk.end && source[i + 1] == '\n') {
      i += 2;
      continue;
    } else if (c == '\n') {
      if (depth == 0 && seen_class) {
        header_newline = i;
        break;
      }
      line_start = true;
    }
    ++i;
  }
  if (header_newline == std::string_view::npos) return std::nullopt;
  // The header must end with its colon (a comment may follow): otherwise the body is on its line.
  if (last_code == 0 || source[last_code - 1] != ':') return std::nullopt;
  // The body's indentation: the first line after the header that holds code.
  std::size_t at = header_newline + 1;
  std::string_view indent;
  while (at < chunk.end) {
    std::size_t first = at;
    while (first < chunk.end && (source[first] == ' ' || source[first] == '\t')) ++first;
    if (first < chunk.end && source[first] != '\n' && source[first] != '\r' && source[first] != '#') {
      indent = source.substr(at, first - at);
      break;
    }
    const std::size_t next = source.find('\n', at);
    if (next == std::string_view::npos || next >= chunk.end) return std::nullopt;
    at = next + 1;
  }
  if (indent.empty()) return std::nullopt;
  auto members = split_statements(source, header_newline + 1, chunk.end, indent);
  if (!members || members->empty()) return std::nullopt;
  Body body;
  body.header_end = members->front().begin;
  body.members = std::move(*members);
  return body;
}

// Attribute names a method assigns on self: `self.eps = ...`, `self.eps: float = ...`,
// `self.n += 1` (every augmented operator), and `self.a, self.b = ...` (over-collecting only
// keeps more code).
void self_assignments(std::string_view text, std::vector<std::string_view>& out) {
  // Whether only blanks stand before `at` on its line (a statement starts there).
  auto starts_line = [&](std::size_t at) {
    while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
    return at == 0 || text[at - 1] == '\n' || text[at - 1] == '\r';
  };
  auto assignment_follows = [&](std::size_t self_at, std::size_t op) {
    if (op >= text.size()) return false;
    if (text[op] == ':')  // an annotation `self.eps: float = ...`, not `if self.x:` or a slice
      return starts_line(self_at) && !(op + 1 < text.size() && text[op + 1] == '=');
    if (text[op] == ',') {
      // Part of a target list `self.a, self.b = ...`: only names, dots, commas and stars before
      // it on its line, and a plain '=' after it outside brackets (not a call's `f(self.a, b=1)`).
      std::size_t k = op - 1;
      while (k > 0 && text[k - 1] != '\n') {
        const char b = text[k - 1];
        if (!(is_identifier_char(b) || b == '.' || b == ',' || b == '*' || b == ' ' || b == '\t')) return false;
        --k;
      }
      int depth = 0;
      for (k = op + 1; k < text.size() && text[k] != '\n'; ++k) {
        const char c = text[k];
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if ((c == ')' || c == ']' || c == '}') && --depth < 0) return false;
        else if (c == '#' || c == '\'' || c == '"') return false;
        else if (depth == 0 && c == '=' && text[k - 1] != '=' && text[k - 1] != '!' && text[k - 1] != '<' &&
                 text[k - 1] != '>' && !(k + 1 < text.size() && text[k + 1] == '='))
          return true;
      }
      return false;
    }
    std::size_t at = op;
    if (at < text.size() && std::string_view("+-*/%&|^@").find(text[at]) != std::string_view::npos) {
      ++at;
      if (at < text.size() && (text[at] == '*' || text[at] == '/') && text[at] == text[at - 1]) ++at;  // **= //=
    } else if (at + 1 < text.size() && (text[at] == '<' || text[at] == '>') && text[at + 1] == text[at]) {
      at += 2;  // <<= >>=
    }
    return at < text.size() && text[at] == '=' && !(at + 1 < text.size() && text[at + 1] == '=');
  };
  for (std::size_t at = text.find("self."); at != std::string_view::npos; at = text.find("self.", at + 1)) {
    if (at > 0 && is_identifier_char(text[at - 1])) continue;
    const auto name = identifier_at(text, at + 5);
    if (name.empty()) continue;
    if (assignment_follows(at, skip_blanks(text, at + 5 + name.size()))) out.push_back(name);
  }
}

// The names a plain import statement binds (`import a.b as c` -> c, `import a.b` -> a,
// `from m import x, y as z` -> x, z); nullopt for a star import, a `__future__` import or a line
// holding more than the import, which are always parsed.
std::optional<std::vector<std::string_view>> import_names(std::string_view text) {
  const std::size_t at = skip_blanks(text, 0);
  std::string_view rest = text.substr(at);
  const bool from = starts_with_keyword(rest, "from");
  if (!from && !starts_with_keyword(rest, "import")) return std::nullopt;
  if (text.find(';') != std::string_view::npos || text.find('*') != std::string_view::npos ||
      text.find("__future__") != std::string_view::npos)
    return std::nullopt;
  std::vector<std::string_view> ids;
  code_identifiers(text, ids);
  // Comments and strings aside, what follows `import` is: name [as alias] {, name [as alias]}.
  const auto keyword = std::find(ids.begin(), ids.end(), std::string_view("import"));
  if (keyword == ids.end()) return std::nullopt;
  std::vector<std::string_view> names;
  // The keyword is the first whole word `import` (`from .import_utils import x` names a module
  // that starts with it; `from .import x` is valid Python).
  std::size_t list = std::string_view::npos;
  for (std::size_t at = rest.find("import", from ? 4 : 0); at != std::string_view::npos; at = rest.find("import", at + 1)) {
    const bool left = at == 0 || !is_identifier_char(rest[at - 1]);
    const bool right = at + 6 >= rest.size() || !is_identifier_char(rest[at + 6]);
    if (left && right) {
      list = at;
      break;
    }
  }
  if (list == std::string_view::npos) return std::nullopt;
  std::string_view items = rest.substr(list + 6);
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= items.size(); ++i) {
    if (i < items.size() && items[i] != ',') continue;
    std::string_view item = items.substr(begin, i - begin);
    begin = i + 1;
    std::vector<std::string_view> words;
    code_identifiers(item, words);
    if (words.empty()) continue;
    if (words.size() >= 3 && words[words.size() - 2] == "as") names.push_back(words.back());
    else names.push_back(words.front());  // `import a.b` binds a; `from m import x` binds x
  }
  if (names.empty()) return std::nullopt;
  return names;
}

// Attribute names a method reads or assigns on self (`self.eps`).
// The self attributes `text` mentions (`self.eps`), in order. With `reads_only`, those it only
// assigns (`self.fc = ...`, a plain `=` after the name) are left out: what a kept part only assigns
// holds no value that kept code reads, so another method assigning it changes no fact. Anything
// else after the name (`.`, `[`, `+=`, `:`, `==`, a call) counts as a read.
void self_mentions(std::string_view text, std::vector<std::string_view>& out, bool reads_only = false) {
  for (std::size_t at = text.find("self."); at != std::string_view::npos; at = text.find("self.", at + 1)) {
    if (at > 0 && is_identifier_char(text[at - 1])) continue;
    const auto name = identifier_at(text, at + 5);
    if (name.empty()) continue;
    if (reads_only) {
      std::size_t next = at + 5 + name.size();
      while (next < text.size() && (text[next] == ' ' || text[next] == '\t')) ++next;
      if (next < text.size() && text[next] == '=' && (next + 1 >= text.size() || text[next + 1] != '=')) continue;
    }
    out.push_back(name);
  }
}

}  // namespace

std::optional<std::vector<TopLevelChunk>> split_top_level(std::string_view source) {
  return split_statements(source, 0, source.size(), "");
}

namespace {

// The region planner: which top-level statements, class members and function statements of a
// module a run must parse. A chunk matters when it names an API in code, sets an instance
// attribute the table names, rebinds module names from outside (global/nonlocal), holds both
// halves of a word pair, or uses a name that something relevant bound (an alias, a partial, a
// subclass); a relevant statement contributes every name it binds. Imports and compound
// statements are always parsed. A simple module statement (an assignment or an expression) is
// parsed when it is relevant or binds a name that parsed code mentions, so constants read by kept
// code keep exactly the bindings a full parse gives them. Each chunk's code identifiers and bound
// names are read once; each sweep over the chunks is set lookups only.
//
// The phases, in the order plan() runs them: split (chunks, identifiers, kinds), mark_triggers,
// index_pairs and mark_pairs, spread, include_called_helpers, include_callers, keep_bound_statements, include_kept (large definitions in
// parts). anything_relevant() stops after mark_pairs: the later phases only spread relevance.
class RegionPlanner {
 public:
  RegionPlanner(std::string_view source, const std::vector<std::string>& trigger_tokens,
                const std::vector<std::string>& trigger_words, const std::vector<std::string>& attributes,
                const std::vector<WordPair>& pairs, bool own_names_count, bool class_uses_count = true)
      : source_(source), words_(trigger_words.begin(), trigger_words.end()), quoted_(trigger_tokens),
        file_has_quoted_(quoted_.in(source)), attributes_(attributes), pairs_(pairs),
        own_names_count_(own_names_count), class_uses_count_(class_uses_count) {
    // More than 32 pairs is a programming error (the families declare a handful), said as one
    // rather than pairs silently left out of the 64-bit half masks.
    if (pairs_.size() > 32) throw std::logic_error("the region planner holds at most 32 word pairs");
  }

  // nullopt: parse the whole file (nothing to gain, or the lexer could not split it).
  std::optional<ParsePlan> plan() {
    if (!split()) return std::nullopt;
    mark_triggers(false);
    index_pairs();
    mark_pairs();
    spread();
    include_called_helpers();
    include_command_line_builders();
    include_callers();
    keep_bound_statements();
    ParsePlan plan;
    if (std::none_of(relevant_.begin(), relevant_.end(), [](Relevance r) { return r != Relevance::No; })) {
      plan.nothing_relevant = true;
      return plan;
    }
    include_kept(plan);
    if (plan.parsed_bytes >= source_.size() || plan.ranges.empty()) return std::nullopt;  // nothing to gain
    return plan;
  }

  // Whether plan() would find something relevant; nullopt where it would parse the whole file.
  // Answered at the first relevant chunk.
  std::optional<bool> anything_relevant() {
    if (!split()) return std::nullopt;
    if (mark_triggers(true)) return true;
    index_pairs();
    mark_pairs();
    return std::any_of(relevant_.begin(), relevant_.end(), [](Relevance r) { return r != Relevance::No; });
  }

 private:
  enum class Relevance : std::uint8_t { No, Yes, Harvested };  // Harvested: its bound names followed
  enum class Kind : std::uint8_t {
    Definition,   // def, async def, class
    Simple,       // an assignment or an expression: parsed when it matters
    PlainImport,  // parsed, like a simple statement, when it names an API or binds a used name
    Compound,     // anything else at module level (if, for, with, try, a star import): always parsed
  };
  // A few sweeps settle almost every file (a name is usually bound above its uses); past them, a
  // worklist over an index finishes in linear time.
  static constexpr int kMaxSweeps = 4;
  // Module statements followed from the first half of a pair to the statement that uses a model
  // class's instance (a dataset, its loader, the loop over it).
  static constexpr int kFeedHops = 4;
  // A relevant definition larger than this is parsed in parts (its members or statements).
  static constexpr std::uint32_t kSplitAbove = 768;

  static std::uint64_t first_bit(std::size_t p) { return std::uint64_t{1} << (2 * p); }
  static std::uint64_t second_bit(std::size_t p) { return std::uint64_t{1} << (2 * p + 1); }
  static constexpr std::uint64_t kSecondBits = 0xAAAAAAAAAAAAAAAAull;  // every pair's second_bit

  std::string_view text_of(std::size_t k) const { return source_.substr(chunks_[k].begin, chunks_[k].end - chunks_[k].begin); }
  std::string_view member_text(const TopLevelChunk& member) const {
    return source_.substr(member.begin, member.end - member.begin);
  }

  // A trigger counts where it is code: in a docstring or a comment it cannot make a call. Words
  // count as whole identifiers (`use_batch_norm` is not `batch_norm`); quoted triggers ('BN',
  // mmcv's registry names) are strings by nature and count anywhere.
  // A class named only as what isinstance / issubclass test (`isinstance(m, nn.BatchNorm2d)`) is
  // neither called nor passed on: no extractor makes a fact of it (the resolver's guards narrow a
  // name for an attribute assignment, which assigns_attribute makes relevant on its own).
  bool names_a_trigger_in(std::string_view text, std::span<const std::string_view> code_ids) const {
    if (file_has_quoted_ && quoted_.in(text)) return true;
    return std::any_of(code_ids.begin(), code_ids.end(),
                       [&](std::string_view w) { return words_.count(w) > 0 && names_in_code(w); });
  }
  // Whether the identifier `w` (a view into the source) names its class or function for more than a
  // type test.
  bool names_in_code(std::string_view w) const {
    return !only_type_tested(source_, static_cast<std::size_t>(w.data() - source_.data()));
  }

  // ---- phase 1: chunks -----------------------------------------------------------------------

  bool split() {
    // A lone CR ends a line for Python but not for tree-sitter's row count: keep such files simple.
    for (std::size_t at = source_.find('\r'); at != std::string_view::npos; at = source_.find('\r', at + 1))
      if (at + 1 >= source_.size() || source_[at + 1] != '\n') return false;
    auto chunks = split_top_level(source_);
    if (!chunks || chunks->size() < 2) return false;
    chunks_ = std::move(*chunks);
    const std::size_t count = chunks_.size();
    relevant_.assign(count, Relevance::No);
    keep_.assign(count, false);
    whole_.assign(count, false);
    kinds_.assign(count, Kind::Definition);
    ids_.assign(count, {});
    return true;
  }

  // A chunk's code identifiers and kind, read once.
  void read_chunk(std::size_t k) {
    const TopLevelChunk& chunk = chunks_[k];
    const std::string_view text = text_of(k);
    code_identifiers(text, ids_[k]);
    // A definition's own name in its header (`class TrainingArguments:`) binds it, it does not use
    // it: a library defining an API is not relevant for that (a call of the name inside still is).
    if (!own_names_count_ && chunk.is_definition && !chunk.name.empty())
      if (const auto own = std::find(ids_[k].begin(), ids_[k].end(), chunk.name); own != ids_[k].end())
        ids_[k].erase(own);
    if (!chunk.is_definition)
      kinds_[k] = is_simple_statement(text) ? Kind::Simple : import_names(text) ? Kind::PlainImport : Kind::Compound;
  }

  // ---- phase 2: chunks naming a trigger ---------------------------------------------------------

  // Reads each chunk, and marks those naming a trigger, rebinding module names, or assigning an
  // attribute the table names (`m.eps = ...` under an isinstance test, in a function or a module's
  // loop). With `stop_at_first`, returns at the first one (the chunks after it unread): whether
  // there is one.
  bool mark_triggers(bool stop_at_first) {
    bool any = false;
    for (std::size_t k = 0; k < chunks_.size(); ++k) {
      read_chunk(k);
      const bool rebinds = std::any_of(ids_[k].begin(), ids_[k].end(),
                                       [](std::string_view w) { return w == "global" || w == "nonlocal"; });
      if (names_a_trigger_in(text_of(k), ids_[k]) || rebinds ||
          assigns_attribute(text_of(k), attributes_)) {
        relevant_[k] = Relevance::Yes;
        any = true;
        if (stop_at_first) return true;
      }
    }
    return any;
  }

  // ---- phase 3: word pairs ----------------------------------------------------------------------

  // Which halves each word stands for (bit 2p: pair p's first half, 2p+1: its second), the module
  // constants holding a small float, the classes standing for a second half, and each chunk's bits.
  void index_pairs() {
    if (pairs_.empty()) return;
    // Module constants holding a small float (`EPS = 1e-12`) stand for the literal where used.
    for (std::size_t k = 0; k < chunks_.size(); ++k)
      if (kinds_[k] == Kind::Simple && has_small_float_literal(text_of(k))) {
        std::vector<std::string_view> bound;
        bound_names(text_of(k), bound, [](std::string_view) { return true; });
        small_constants_.insert(bound.begin(), bound.end());
      }
    small_literal_.assign(chunks_.size(), SmallLiteral::Unknown);
    for (std::size_t p = 0; p < pairs_.size(); ++p) {
      for (const auto& word : pairs_[p].first) half_bits_[word] |= first_bit(p);
      for (const auto& word : pairs_[p].second) {
        if (word == kSmallFloatLiteral) small_bits_ |= second_bit(p);
        else if (pairs_[p].second_only_through_classes) class_marker_bits_[word] |= second_bit(p);
        else half_bits_[word] |= second_bit(p);
      }
    }
    index_import_aliases();
    // Definitions standing for a pair's second half (`class Net` building nn.Conv2d), by pair: the
    // classes naming a word of it, the module-level functions naming one (`make_layers` building
    // nn.Conv2d, whose stack a class's __init__ takes), and the classes and functions naming one of
    // those, three calls deep.
    second_classes_.assign(pairs_.size(), {});
    // Each named definition's second halves, for all pairs at once: one lookup per identifier, not
    // one per identifier and pair.
    std::vector<std::uint64_t> second_bits_of;
    if (std::any_of(pairs_.begin(), pairs_.end(), [](const WordPair& pair) { return pair.second_classes; })) {
      second_bits_of.assign(chunks_.size(), 0);
      for (std::size_t k = 0; k < chunks_.size(); ++k) {
        if (!chunks_[k].is_definition || chunks_[k].name.empty()) continue;
        for (const std::string_view w : ids_[k]) {
          if (const auto it = half_bits_.find(w); it != half_bits_.end()) {
            const std::uint64_t halves = it->second & kSecondBits;
            if ((halves & ~second_bits_of[k]) != 0 && names_in_code(w)) second_bits_of[k] |= halves;
          }
          if (const auto marker = class_marker_bits_.find(w); marker != class_marker_bits_.end())
            second_bits_of[k] |= marker->second;
        }
      }
    }
    for (std::size_t p = 0; p < pairs_.size(); ++p) {
      if (!pairs_[p].second_classes) continue;
      std::vector<bool> stands(chunks_.size(), false);
      for (std::size_t k = 0; k < chunks_.size(); ++k) stands[k] = (second_bits_of[k] & second_bit(p)) != 0;
      for (int round = 0; round < 3; ++round) {
        WordSetView names;
        for (std::size_t k = 0; k < chunks_.size(); ++k)
          if (stands[k]) names.insert(chunks_[k].name);
        bool grew = false;
        for (std::size_t k = 0; k < chunks_.size() && !names.empty(); ++k)
          if (!stands[k] && chunks_[k].is_definition && !chunks_[k].name.empty() &&
              std::any_of(ids_[k].begin(), ids_[k].end(), [&](std::string_view w) { return names.count(w) > 0; }))
            stands[k] = grew = true;
        if (!grew) break;
      }
      for (std::size_t k = 0; k < chunks_.size(); ++k)
        if (stands[k]) second_classes_[p].push_back(k);
      for (const std::size_t k : second_classes_[p]) half_bits_[chunks_[k].name] |= second_bit(p);
    }
    // Per pair, whether its first half may sit anywhere and the file holds it.
    first_in_file_.assign(pairs_.size(), false);
    for (std::size_t p = 0; p < pairs_.size(); ++p)
      first_in_file_[p] = pairs_[p].first_anywhere && mentions_any(source_, pairs_[p].first);
    chunk_bits_.assign(chunks_.size(), 0);
    for (std::size_t k = 0; k < chunks_.size(); ++k) {
      // The module's statements a trigger made relevant still hold their halves for the module's
      // statements together (`model = keras.Sequential()` with `input_shape=` in an add naming Conv2D).
      if (relevant_[k] != Relevance::No && chunks_[k].is_definition) continue;
      for (const auto word : ids_[k])
        if (const auto it = half_bits_.find(word); it != half_bits_.end() && names_in_code(word))
          chunk_bits_[k] |= it->second;
    }
  }

  // A name an import binds to a half's word stands for it (`from torch.nn import Sequential as Seq`):
  // each name a plain import binds takes the halves of the words it names (over-collecting, for an
  // import binding several names, only costs speed).
  void index_import_aliases() {
    for (std::size_t k = 0; k < chunks_.size(); ++k) {
      if (kinds_[k] != Kind::PlainImport) continue;
      std::uint64_t bits = 0, marker_bits = 0;
      for (const auto word : ids_[k]) {
        if (const auto it = half_bits_.find(word); it != half_bits_.end()) bits |= it->second;
        if (const auto it = class_marker_bits_.find(word); it != class_marker_bits_.end()) marker_bits |= it->second;
      }
      if (bits == 0 && marker_bits == 0) continue;
      if (const auto bound = import_names(text_of(k)))
        for (const auto name : *bound) {
          if (bits != 0) half_bits_[name] |= bits;
          if (marker_bits != 0) class_marker_bits_[name] |= marker_bits;
        }
    }
  }

  // Whether chunk k holds a small float literal or names a module constant holding one.
  bool holds_small_literal(std::size_t k) {
    if (small_literal_[k] == SmallLiteral::Unknown) {
      const bool holds = has_small_float_literal(text_of(k)) ||
                         std::any_of(ids_[k].begin(), ids_[k].end(),
                                     [&](std::string_view w) { return small_constants_.count(w) > 0; });
      small_literal_[k] = holds ? SmallLiteral::Yes : SmallLiteral::No;
    }
    return small_literal_[k] == SmallLiteral::Yes;
  }

  // Whether a member of a definition (its text and code identifiers) holds both halves of pair p.
  bool member_holds_pair(std::string_view text, std::span<const std::string_view> member_ids, std::size_t p) const {
    const bool second_called = pairs_[p].second_called_in_methods;
    // A method holds a half through the module functions it calls too (called_function_bits).
    std::uint64_t bits = bits_of_calls(member_ids, "");
    for (const auto word : member_ids)
      if (const auto it = half_bits_.find(word); it != half_bits_.end() && names_in_code(word))
        bits |= second_called && !called_in(source_, word) ? it->second & ~second_bit(p) : it->second;
    if (!first_in_file_[p] && (bits & first_bit(p)) == 0) return false;
    if ((bits & second_bit(p)) != 0) return true;
    return (small_bits_ & second_bit(p)) != 0 &&
           (has_small_float_literal(text) || std::any_of(member_ids.begin(), member_ids.end(), [&](std::string_view w) {
              return small_constants_.count(w) > 0;
            }));
  }

  bool holds_a_pair(std::string_view text, std::span<const std::string_view> code_ids) const {
    for (std::size_t p = 0; p < pairs_.size(); ++p)
      if (member_holds_pair(text, code_ids, p)) return true;
    return false;
  }

  // The code identifiers of `all` that lie in [from, to) (identifiers are in text order).
  static std::span<const std::string_view> ids_within(std::span<const std::string_view> all, const char* from,
                                                     const char* to) {
    const auto first = std::lower_bound(all.begin(), all.end(), from,
                                        [](std::string_view w, const char* at) { return w.data() < at; });
    const auto last = std::lower_bound(first, all.end(), to,
                                       [](std::string_view w, const char* at) { return w.data() < at; });
    return {first, last};
  }

  // A pair a class may not hold as a whole (most are read from one function's statements) is still
  // held by one of its methods: the class is relevant, and that method kept (include_class_members).
  bool a_method_holds_pair(std::size_t k, std::size_t p) {
    if (!pairs_[p].methods) return false;
    // Asked again for each class standing for the pair's second half (mark_pair): answered once.
    if (method_pair_memo_.empty()) method_pair_memo_.assign(chunks_.size() * pairs_.size(), MemoAnswer::Unknown);
    MemoAnswer& memo = method_pair_memo_[k * pairs_.size() + p];
    if (memo == MemoAnswer::Unknown) memo = a_method_may_hold_pair(k, p) ? MemoAnswer::Yes : MemoAnswer::No;
    return memo == MemoAnswer::Yes;
  }
  bool a_method_may_hold_pair(std::size_t k, std::size_t p) {
    // Each class's body is split once, whatever the number of pairs that ask.
    auto [at, fresh] = bodies_.try_emplace(k);
    if (fresh) at->second = split_body(source_, chunks_[k]);
    const std::optional<Body>& body = at->second;
    if (!body) return true;  // the lexer cannot tell: keep the class (a parse costs only speed)
    return std::any_of(body->members.begin(), body->members.end(), [&](const TopLevelChunk& member) {
      if (!member.is_definition || (!pairs_[p].init_counts && member.name == "__init__")) return false;
      const std::string_view text = member_text(member);
      return member_holds_pair(text, ids_within(ids_[k], text.data(), text.data() + text.size()), p);
    });
  }

  // The halves named by the module-level functions that chunk k (module statements, or a function)
  // calls: a script's statements or its `main()` glue helpers together (`images = load_images()`, a
  // uint8 array, then `model_fn(images)`, which builds a Conv2D), and hold a pair through them.
  std::uint64_t called_function_bits(std::size_t k) {
    index_function_bits();
    // A class: what its methods call (a trainer's `run()` calling `load_data()`).
    return function_bits_->empty() ? 0 : bits_of_calls(ids_[k], chunks_[k].is_definition ? chunks_[k].name : "");
  }

  // function_bits_ and function_chunks_, made once (mark_pairs makes them before any method is
  // asked whether it holds a pair).
  void index_function_bits() {
    if (!function_bits_) {
      function_bits_.emplace();
      std::uint64_t first_halves = 0;
      for (std::size_t p = 0; p < pairs_.size(); ++p) first_halves |= first_bit(p);
      for (std::size_t c = 0; c < chunks_.size(); ++c) {
        if (!chunks_[c].is_definition || chunks_[c].name.empty()) continue;
        // A small class gives first halves where it is instantiated (a dataset's __getitem__
        // returning uint8 volumes); a model class's second half is second_classes' business.
        if (chunks_[c].is_class && chunks_[c].end - chunks_[c].begin > kMaxDataClass) continue;
        std::uint64_t bits = 0;
        for (const auto word : ids_[c])
          if (const auto it = half_bits_.find(word); it != half_bits_.end()) bits |= it->second;
        if (chunks_[c].is_class) bits &= first_halves;
        if (bits != 0) {
          (*function_bits_)[chunks_[c].name] |= bits;
          function_chunks_[chunks_[c].name].push_back(c);
        }
      }
    }
  }

  // The halves of the module-level functions that `code_ids` call (`own`: a def's own name).
  std::uint64_t bits_of_calls(std::span<const std::string_view> code_ids, std::string_view own) const {
    std::uint64_t bits = 0;
    if (!function_bits_) return bits;
    for (const auto word : code_ids)
      if (word != own)
        if (const auto it = function_bits_->find(word); it != function_bits_->end() && called_in(source_, word))
          bits |= it->second;
    return bits;
  }

  // The module-level functions holding a half of pair p that chunk k calls: relevant, read whole, and
  // made relevant by this pair (the classes they build are read where they use them).
  void include_glued_helpers(std::size_t k, std::size_t p, std::vector<bool>& now_relevant) {
    if (!function_bits_) return;
    const std::uint64_t halves = first_bit(p) | second_bit(p);
    for (const auto word : ids_[k]) {
      if ((chunks_[k].is_definition && word == chunks_[k].name) || !called_in(source_, word)) continue;
      const auto bits = function_bits_->find(word);
      if (bits == function_bits_->end() || (bits->second & halves) == 0) continue;
      for (const std::size_t f : function_chunks_[word]) {
        relevant_[f] = Relevance::Yes;
        whole_[f] = true;
        if (!now_relevant.empty()) now_relevant[f] = true;
      }
    }
  }

  // A definition holding both halves of a pair is relevant; the module's own statements are read as
  // one script (`x = torch.randint(...)` on one line, `model(x)` on another), and each of them
  // naming a half is relevant when the script holds both.
  void mark_pairs() {
    index_function_bits();
    for (std::size_t p = 0; p < pairs_.size(); ++p) mark_pair(p);
  }

  void mark_pair(std::size_t p) {
    const WordPair& pair = pairs_[p];
    if (pair.first_anywhere && !first_in_file_[p]) return;
    bool script_first = false, script_second = false;
    std::vector<std::size_t> script_chunks;
    std::vector<bool> now_relevant(second_classes_[p].empty() ? 0 : chunks_.size(), false);
    std::vector<std::size_t> glued;  // chunks holding the pair through helpers they call
    for (std::size_t k = 0; k < chunks_.size(); ++k) {
      if (relevant_[k] != Relevance::No) {
        // A module statement relevant already (a trigger) still holds its halves for the module's
        // statements together: `model = keras.Sequential()`, then `model.add(Conv2D(..., input_shape=...))`.
        if (!chunks_[k].is_definition) {
          const std::uint64_t bits = chunk_bits_[k] | called_function_bits(k);
          const bool first = first_in_file_[p] || (bits & first_bit(p)) != 0;
          const bool second = (bits & second_bit(p)) != 0;
          script_first |= first;
          script_second |= second;
          // It feeds the pair's first half to a class's instance like any other (script_feeds_first).
          if (first || second) script_chunks.push_back(k);
        }
        continue;
      }
      const std::uint64_t bits = chunk_bits_[k] | called_function_bits(k);
      const bool first = first_in_file_[p] || (bits & first_bit(p)) != 0;
      // The small-literal test reads the chunk's text: only where the other half is there.
      const bool second = (bits & second_bit(p)) != 0 ||
                          ((small_bits_ & second_bit(p)) != 0 && (first || !chunks_[k].is_definition) &&
                           holds_small_literal(k));
      if (chunks_[k].is_definition) {
        if (first && second && (pair.classes || !chunks_[k].is_class || a_method_holds_pair(k, p))) {
          relevant_[k] = Relevance::Yes;
          if (!now_relevant.empty()) now_relevant[k] = true;
          if ((chunk_bits_[k] & (first_bit(p) | second_bit(p))) != (first_bit(p) | second_bit(p)))
            glued.push_back(k);  // it holds a half only through the helpers it calls
        }
      } else if (first || second) {
        script_first |= first;
        script_second |= second;
        script_chunks.push_back(k);
      }
    }
    const bool script_holds_pair = script_first && script_second;
    if (script_holds_pair)
      for (const std::size_t k : script_chunks) {
        if (relevant_[k] == Relevance::No) relevant_[k] = Relevance::Yes;
        glued.push_back(k);
      }
    for (const std::size_t k : glued) include_glued_helpers(k, p, now_relevant);
    // A class standing for the second half is read where a chunk made relevant by this pair uses it,
    // or a chunk relevant for other reasons that holds the first half.
    for (const std::size_t c : second_classes_[p]) {
      const std::string_view name = chunks_[c].name;
      for (std::size_t k = 0; k < chunks_.size() && !whole_[c]; ++k)
        if (relevant_[k] != Relevance::No && k != c &&
            std::find(ids_[k].begin(), ids_[k].end(), name) != ids_[k].end() &&
            (pair.classes || !chunks_[k].is_class || a_method_holds_pair(k, p)) &&
            (now_relevant[k] || holds_first_or_calls_it(k, p) ||
             (script_holds_pair && script_feeds_first(k, p, script_chunks)))) {
          relevant_[c] = Relevance::Yes;
          whole_[c] = true;
        }
    }
    // What a definition read whole this way uses of the others (a model class's `make_layers(cfg)`,
    // a helper's helper) is read whole too.
    for (bool grew = true; grew;) {
      grew = false;
      for (const std::size_t c : second_classes_[p]) {
        if (whole_[c]) continue;
        const std::string_view name = chunks_[c].name;
        for (const std::size_t k : second_classes_[p])
          if (k != c && whole_[k] && std::find(ids_[k].begin(), ids_[k].end(), name) != ids_[k].end()) {
            relevant_[c] = Relevance::Yes;
            whole_[c] = grew = true;
            break;
          }
      }
    }
  }

  // Or through the module-level functions it calls (`images, labels = load_data()`, a helper
  // returning uint8 arrays: called_function_bits).
  bool holds_first_or_calls_it(std::size_t k, std::size_t p) {
    return holds_first(k, p) || (called_function_bits(k) & first_bit(p)) != 0;
  }

  bool holds_first(std::size_t k, std::size_t p) const {
    if (first_in_file_[p]) return true;
    return std::any_of(ids_[k].begin(), ids_[k].end(), [&](std::string_view w) {
      const auto it = half_bits_.find(w);
      return it != half_bits_.end() && (it->second & first_bit(p)) != 0;
    });
  }

  // A module statement naming the class feeds the first half when a statement holding the first
  // half uses a name it binds (`net = Net()`, then `net(torch.randn(...))`).
  bool script_feeds_first(std::size_t k, std::size_t p, std::span<const std::size_t> script_chunks) {
    if (chunks_[k].is_definition) return false;
    std::vector<std::string_view> binds;
    bound_names(text_of(k), binds, [](std::string_view) { return true; });
    if (binds.empty()) return false;
    const WordSetView bound(binds.begin(), binds.end());
    for (const std::size_t j : script_chunks)
      if (j != k && holds_first_or_calls_it(j, p) &&
          std::any_of(ids_[j].begin(), ids_[j].end(), [&](std::string_view w) { return bound.count(w) > 0; }))
        return true;
    // Or through module statements that use what the first half's statements bind: `X =
    // torch.rand(...)`, then `for layer in net: X = layer(X)` (which names neither half); a dataset,
    // the loader over it, then `for x, y in loader: net(x)`. Followed kFeedHops statements deep.
    std::vector<std::string_view> first_binds;
    for (const std::size_t i : script_chunks)
      if (i != k && holds_first_or_calls_it(i, p))
        bound_names(text_of(i), first_binds, [](std::string_view) { return true; });
    std::vector<bool> derived(chunks_.size(), false);  // binds a name made from the first half
    for (int hop = 0; hop < kFeedHops && !first_binds.empty(); ++hop) {
      const WordSetView from_first(first_binds.begin(), first_binds.end());
      std::vector<std::string_view> next;
      for (std::size_t j = 0; j < chunks_.size(); ++j) {
        if (j == k || chunks_[j].is_definition || derived[j]) continue;
        if (!std::any_of(ids_[j].begin(), ids_[j].end(), [&](std::string_view w) { return from_first.count(w) > 0; }))
          continue;
        if (std::any_of(ids_[j].begin(), ids_[j].end(), [&](std::string_view w) { return bound.count(w) > 0; }))
          return true;
        derived[j] = true;
        bound_names(text_of(j), next, [](std::string_view) { return true; });
      }
      first_binds = std::move(next);
    }
    return false;
  }

  // ---- phase 4: relevance spreads through the names relevant chunks bind ------------------------

  // Marks chunk k harvested and adds the names it binds (a class its name; a module statement the
  // names it binds to something relevant) to the interesting words; whether any was new.
  bool harvest(std::size_t k) {
    relevant_[k] = Relevance::Harvested;
    const TopLevelChunk& chunk = chunks_[k];
    bool added = false;
    auto add = [&](std::string_view word) {
      if (!interesting_.insert(word).second) return;
      fresh_words_.push_back(word);
      added = true;
    };
    if (chunk.is_definition) {
      if (chunk.is_class && (class_uses_count_ || derives_from_an_api(k))) {
        add(chunk.name);
        class_words_.insert(chunk.name);
      }
    } else {
      std::vector<std::string_view> binds;
      bound_names(text_of(k), binds, [&](std::string_view word) {
        return words_.count(word) > 0 || (file_has_quoted_ && quoted_.in(word)) || interesting_.count(word) > 0;
      });
      for (const auto word : binds) add(word);
    }
    return added;
  }

  // Whether the mention `w` of an interesting name makes chunk k relevant. A function naming a
  // relevant class only as a keyword argument's value (timm's hundred `@register_model` variants:
  // `dict(block=BasicBlock, layers=(2, 2, 2, 2))`) neither builds it nor binds its parameters: no
  // extractor follows a class handed on as an argument (both parse modes agree, the bench checks).
  // Without class_uses_count_, only a class deriving from an API spreads, and only to the classes
  // deriving from it (`class Leaf(Base)` with `class Base(nn.BatchNorm2d)`, whose
  // `super().__init__(c, eps=0)` calls the API). The calls of a relevant class's methods are
  // include_callers'; the other families reach a model's uses through their pairs' classes and the
  // project step's callables (a class forwarding its parameter to an API is one). Every use of every
  // relevant class, and every subclass of transformers' PreTrainedModels, made two-fifths of what
  // transformers + timm parsed, for no fact of theirs.
  bool spreads_to(std::size_t k, std::string_view w) {
    if (!names_in_code(w)) return false;
    if (class_words_.count(w) == 0) return true;
    if (!class_uses_count_)
      return chunks_[k].is_class && static_cast<std::size_t>(w.data() - source_.data()) < class_header_end(k);
    if (!chunks_[k].is_definition || chunks_[k].is_class) return true;
    return !keyword_argument_value(source_, static_cast<std::size_t>(w.data() - source_.data()), w.size());
  }

  // Whether class chunk k's header names an API or a class of the module deriving from one.
  bool derives_from_an_api(std::size_t k) const {
    const std::string_view header = source_.substr(chunks_[k].begin, class_header_end(k) - chunks_[k].begin);
    const auto header_ids = ids_within(ids_[k], header.data(), header.data() + header.size());
    return names_a_trigger_in(header, header_ids) ||
           std::any_of(header_ids.begin(), header_ids.end(),
                       [&](std::string_view w) { return w != chunks_[k].name && class_words_.count(w) > 0; });
  }

  // Where the header of class chunk k ends: its first ':' outside brackets after the `class`
  // keyword (decorators come before it).
  std::size_t class_header_end(std::size_t k) const {
    const std::string_view text = text_of(k);
    std::size_t at = 0;
    while (at < text.size() && !(starts_with_keyword(text.substr(at), "class") && (at == 0 || text[at - 1] == '\n')))
      at = text.find('\n', at) == std::string_view::npos ? text.size() : text.find('\n', at) + 1;
    int depth = 0;
    for (; at < text.size(); ++at) {
      const char c = text[at];
      if (c == '(' || c == '[' || c == '{') ++depth;
      else if (c == ')' || c == ']' || c == '}') --depth;
      else if (c == ':' && depth == 0) break;
    }
    return chunks_[k].begin + at;
  }

  // How many times the module's code names each of `names` (the other identifiers are not counted:
  // a map of every name of a large module cost more than the rest of this phase).
  WordMap<std::size_t> mention_counts(std::span<const std::string_view> names) const {
    WordMap<std::size_t> counts;
    for (const std::string_view name : names) counts[name] = 0;
    for (const auto& ids : ids_)
      for (const auto word : ids)
        if (const auto it = counts.find(word); it != counts.end()) ++it->second;
    return counts;
  }

  void spread() {
    bool grew = true;
    for (int sweep = 0; grew && sweep < kMaxSweeps; ++sweep) {
      grew = false;
      fresh_words_.clear();
      for (std::size_t k = 0; k < chunks_.size(); ++k) {
        if (relevant_[k] == Relevance::No && !interesting_.empty() &&
            std::any_of(ids_[k].begin(), ids_[k].end(),
                        [&](std::string_view w) { return interesting_.count(w) > 0 && spreads_to(k, w); }))
          relevant_[k] = Relevance::Yes;
        if (relevant_[k] == Relevance::Yes) grew |= harvest(k);
      }
    }
    if (!grew) return;
    // Words added in the last sweep may make chunks above them relevant: follow every interesting
    // word (and what it leads to) through an index of who mentions each word.
    WordMap<std::vector<std::size_t>> mentioned_by;
    for (std::size_t k = 0; k < chunks_.size(); ++k)
      if (relevant_[k] == Relevance::No)
        for (const auto word : ids_[k]) mentioned_by[word].push_back(k);
    std::vector<std::string_view> pending(interesting_.begin(), interesting_.end());
    fresh_words_.clear();
    while (!pending.empty()) {
      const std::string_view word = pending.back();
      pending.pop_back();
      const auto it = mentioned_by.find(word);
      if (it == mentioned_by.end()) continue;
      for (const std::size_t k : it->second) {
        if (relevant_[k] != Relevance::No) continue;
        if (std::none_of(ids_[k].begin(), ids_[k].end(), [&](std::string_view w) { return w == word && spreads_to(k, w); }))
          continue;
        harvest(k);
        pending.insert(pending.end(), fresh_words_.begin(), fresh_words_.end());
        fresh_words_.clear();
      }
    }
  }

  // ---- phase 5: what is kept --------------------------------------------------------------------

  // Kept: relevant chunks, imports and compound statements, and the simple statements and plain
  // imports that bind a name kept code uses (and theirs in turn).
  // A module-level function a relevant chunk calls that names a word of a pair's half (a helper
  // returning the tensor or the stack the relevant code uses: `torch.from_numpy(load_images())`,
  // `self.features = make_layers(cfg)`) is parsed whole: the extractors follow calls into
  // module-level functions (python/extract/layer_stacks.h, tensor_dtype.cpp's project_return).
  // Three calls deep.
  // Also a function that loops over one of its parameters (`def validate(data, model): for x in
  // data: model(x)`): the loader reader follows a loader, and the model beside it, into the function
  // that runs the loop (python/extract/single_sample_consumer.cpp).
  // A small class naming a helper word (numpy) and holding a first half and no second half of a
  // pair (a replay buffer keeping uint8 frames, `self.obs = np.zeros(..., dtype=np.uint8)`): what its methods return
  // feeds what a relevant chunk holds (include_called_helpers reads it whole where one uses it).
  bool data_class(std::size_t k, const std::unordered_set<std::string_view>& helper_words) const {
    if (chunks_[k].end - chunks_[k].begin > kMaxDataClass ||
        std::none_of(ids_[k].begin(), ids_[k].end(), [&](std::string_view w) { return helper_words.count(w) > 0; }))
      return false;
    for (std::size_t p = 0; p < pairs_.size(); ++p)
      if ((chunk_bits_[k] & first_bit(p)) != 0 && (chunk_bits_[k] & second_bit(p)) == 0) return true;
    return false;
  }
  static constexpr std::uint32_t kMaxDataClass = 4096;

  // A small class defining `__len__` (a dataset): a loader over an instance of it reads its length
  // (local_values.cpp dataset_class_length).
  bool sized_class(std::size_t k) const {
    return chunks_[k].end - chunks_[k].begin <= kMaxDataClass &&
           mentions_identifier(text_of(k), "__len__");
  }

  void include_called_helpers() {
    const bool pairs = chunk_bits_.size() == chunks_.size();
    std::unordered_set<std::string_view> helper_words, class_helper_words;
    for (const WordPair& pair : pairs_) {
      helper_words.insert(pair.helper_words.begin(), pair.helper_words.end());
      if (pair.helper_classes) class_helper_words.insert(pair.helper_words.begin(), pair.helper_words.end());
    }
    auto names_class_helper = [&](std::size_t k) {
      return std::any_of(ids_[k].begin(), ids_[k].end(), [&](std::string_view w) { return class_helper_words.count(w) > 0; });
    };
    for (int round = 0; round < 3; ++round) {
      std::unordered_set<std::string_view> used;
      for (std::size_t k = 0; k < chunks_.size(); ++k)
        if (relevant_[k] != Relevance::No) used.insert(ids_[k].begin(), ids_[k].end());
      bool grew = false;
      for (std::size_t k = 0; k < chunks_.size(); ++k)
        if (relevant_[k] == Relevance::No && chunks_[k].is_definition && !chunks_[k].name.empty() &&
            used.count(chunks_[k].name) > 0 &&
            (!chunks_[k].is_class || (pairs && (data_class(k, helper_words) || names_class_helper(k)))) &&
            ((pairs && chunk_bits_[k] != 0) ||
             std::any_of(ids_[k].begin(), ids_[k].end(), [&](std::string_view w) { return helper_words.count(w) > 0; }) ||
             loops_over_parameter(text_of(k)))) {
          relevant_[k] = Relevance::Yes;
          whole_[k] = grew = true;
        }
      // A dataset class a relevant chunk uses, relevant already or not (`class Data(Dataset)` names
      // an API): read whole, for its __len__ and what that reads.
      for (std::size_t k = 0; k < chunks_.size(); ++k)
        if (chunks_[k].is_class && !whole_[k] && !chunks_[k].name.empty() && used.count(chunks_[k].name) > 0 &&
            sized_class(k)) {
          relevant_[k] = Relevance::Yes;
          whole_[k] = grew = true;
        }
      // A method bound to a module-level name (`validate = Validator().validate`) and called by it:
      // its class, read whole, with the binding statement.
      for (std::size_t k = 0; k < chunks_.size(); ++k) {
        if (kinds_[k] != Kind::Simple) continue;
        const auto bound = bound_method_statement(text_of(k));
        if (!bound || used.count(bound->alias) == 0) continue;
        for (std::size_t c = 0; c < chunks_.size(); ++c) {
          if (!chunks_[c].is_class || chunks_[c].name != bound->owner || whole_[c]) continue;
          const std::string_view text = text_of(c);
          const std::size_t def = text.find("def " + std::string(bound->method) + "(");
          if (def == std::string_view::npos) continue;
          if (!((pairs && chunk_bits_[c] != 0) ||
                std::any_of(ids_[c].begin(), ids_[c].end(), [&](std::string_view w) { return helper_words.count(w) > 0; }) ||
                loops_over_parameter(text.substr(def))))
            continue;
          relevant_[c] = Relevance::Yes;
          whole_[c] = grew = true;
          if (relevant_[k] == Relevance::No) relevant_[k] = Relevance::Yes;
        }
      }
      if (!grew) break;
    }
  }

  // Whether a function's text holds `for ... in <name>` (or `in enumerate(<name>)`, `tqdm(<name>)`)
  // with <name> one of its parameters, read from the header `def f(a, b=1, *, c):`.
  static bool loops_over_parameter(std::string_view text) {
    const std::size_t open = text.find('(');
    const std::size_t close = text.find("):");
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
    const std::string_view header = text.substr(open + 1, close - open - 1);
    const std::string_view body = text.substr(close);
    for (std::size_t at = body.find("for "); at != std::string_view::npos; at = body.find("for ", at + 4)) {
      if (at > 0 && is_identifier_char(body[at - 1])) continue;
      const std::size_t line_end = std::min(body.find('\n', at), body.size());
      const std::size_t in = body.substr(0, line_end).find(" in ", at);
      if (in == std::string_view::npos) continue;
      std::size_t begin = in + 4;
      for (int wrappers = 0; wrappers < 2; ++wrappers) {  // enumerate(tqdm(data))
        std::size_t end = begin;
        while (end < line_end && is_identifier_char(body[end])) ++end;
        if (end < line_end && body[end] == '(') {
          begin = end + 1;
          continue;
        }
        break;
      }
      std::size_t end = begin;
      while (end < line_end && is_identifier_char(body[end])) ++end;
      if (end > begin && mentions_identifier(header, body.substr(begin, end - begin))) return true;
    }
    return false;
  }

  // A module function that builds the command line and returns it (`def get_opt(): ... return
  // parser.parse_args()`), in a file with something relevant: parsed whole, with its calls
  // (include_callers), for the constant folder reads its argparse defaults through `opt =
  // get_opt()` (python/const_eval.cpp returned_parse_args), and its parameters from those calls.
  bool command_line_builder(std::size_t k) const {
    // A class holding such a method (`class Options: def parse(self): ...`) is kept whole too.
    return chunks_[k].is_definition && !chunks_[k].name.empty() &&
           mentions_identifier(text_of(k), "parse_args") && mentions_identifier(text_of(k), "add_argument");
  }

  void include_command_line_builders() {
    if (std::none_of(relevant_.begin(), relevant_.end(), [](Relevance r) { return r != Relevance::No; })) return;
    for (std::size_t k = 0; k < chunks_.size(); ++k)
      if (relevant_[k] == Relevance::No && command_line_builder(k)) {
        relevant_[k] = Relevance::Yes;
        whole_[k] = true;
      }
  }

  // The module statements and functions that call a relevant module-level function, two calls up: the
  // constant folder reads a parameter used in arithmetic (`batch_size // world_size`), and a config
  // object's members (`args.bs_mult`), from every call of its function in the module, and answers
  // only when it sees them all (python/const_eval.h call_sites). The callers are parsed whole; the
  // callee's name does not become interesting, which would keep every statement naming it in the
  // other large definitions. A class whose methods call one is relevant: the methods naming it are
  // kept, and in them the statements naming it (called_names_), as in a relevant function.
  static constexpr std::size_t kMaxCallSites = 4;  // python/const_eval.cpp's
  void include_callers() {
    std::vector<std::string_view> callees;
    for (std::size_t k = 0; k < chunks_.size(); ++k)
      if (relevant_[k] != Relevance::No && chunks_[k].is_definition && !chunks_[k].name.empty()) {
        if (!chunks_[k].is_class) callees.push_back(chunks_[k].name);
        else if (!class_uses_count_) methods_naming_a_trigger(k, callees);
      }
    // The folder reads no function called more than kMaxCallSites times (each a mention here; the
    // folder counts comments and strings too): timm's `_create_model`, called by a hundred
    // registered variants, brings none of them.
    for (int round = 0; round < 2 && !callees.empty(); ++round) {
      WordMap<std::size_t> mentions = mention_counts(callees);
      WordSetView names;
      for (const std::string_view name : callees)
        if (mentions[name] <= kMaxCallSites + 1) names.insert(name);
      if (names.empty()) break;
      called_names_.insert(names.begin(), names.end());
      std::vector<std::string_view> callers;
      for (std::size_t k = 0; k < chunks_.size(); ++k) {
        if (!std::any_of(ids_[k].begin(), ids_[k].end(), [&](std::string_view w) { return names.count(w) > 0; }))
          continue;
        // A class's methods that call one are callers in turn (`trainer.setup()`, `self.setup()`:
        // the folder reads a method's parameters at those calls), whether or not the class was
        // relevant already; include_class_members keeps them by called_names_.
        if (chunks_[k].is_class) methods_naming(k, names, callers);
        if (relevant_[k] != Relevance::No) continue;
        relevant_[k] = Relevance::Yes;  // a function, a class, or a module statement (`build(data, None)`)
        if (chunks_[k].is_class) caller_classes_.insert(chunks_[k].begin);  // relevant for its calls only
        if (!chunks_[k].is_definition || chunks_[k].is_class) continue;
        whole_[k] = true;  // parsed whole: its statements name no trigger the statement split keeps
        if (!chunks_[k].name.empty() && takes_arguments(text_of(k), false)) callers.push_back(chunks_[k].name);
      }
      callees = std::move(callers);
    }
  }

  // Whether a def's header lists a parameter (beside a method's first): the folder reads the calls
  // of a function only for what they bind to its parameters, so one without any needs no callers.
  // True where the lexer cannot tell.
  static bool takes_arguments(std::string_view def, bool method) {
    std::size_t at = def.find("def ");
    if (at == std::string_view::npos) return true;
    at = def.find('(', at);
    if (at == std::string_view::npos) return true;
    auto skip_blanks_from = [&](std::size_t i) {
      while (i < def.size() && (def[i] == ' ' || def[i] == '\t' || def[i] == '\n' || def[i] == '\r')) ++i;
      return i;
    };
    std::size_t i = skip_blanks_from(at + 1);
    if (method) {
      while (i < def.size() && is_identifier_char(def[i])) ++i;
      i = skip_blanks_from(i);
      if (i < def.size() && def[i] == ',') i = skip_blanks_from(i + 1);
    }
    return i >= def.size() || def[i] != ')';
  }

  // The names of class k's methods that take arguments (dunders aside: `__init__`'s calls are the
  // class's) and whose text and code identifiers satisfy `wanted`, appended to `out`.
  template <class Wanted>
  void methods_taking_arguments(std::size_t k, std::vector<std::string_view>& out, Wanted&& wanted) {
    auto [at, fresh] = bodies_.try_emplace(k);
    if (fresh) at->second = split_body(source_, chunks_[k]);
    if (!at->second) return;
    for (const TopLevelChunk& member : at->second->members) {
      if (!member.is_definition || member.is_class || member.name.empty() || member.name.starts_with("__") ||
          !takes_arguments(member_text(member), true))
        continue;
      const std::string_view text = member_text(member);
      if (wanted(text, ids_within(ids_[k], text.data(), text.data() + text.size()))) out.push_back(member.name);
    }
  }

  // Where the uses of a relevant class are not all relevant (class_uses_count_), the calls of its
  // methods that name a trigger are (`Trainer().train()`, `trainer.train(4)`): their names.
  void methods_naming_a_trigger(std::size_t k, std::vector<std::string_view>& out) {
    methods_taking_arguments(k, out, [&](std::string_view text, std::span<const std::string_view> ids) {
      return names_a_trigger_in(text, ids);
    });
  }

  // The names of the methods of class k whose code names one of `names`, appended to `out`.
  void methods_naming(std::size_t k, const WordSetView& names, std::vector<std::string_view>& out) {
    methods_taking_arguments(k, out, [&](std::string_view, std::span<const std::string_view> ids) {
      return std::any_of(ids.begin(), ids.end(), [&](std::string_view w) { return names.count(w) > 0; });
    });
  }

  void keep_bound_statements() {
    WordSetView kept_words;  // every code identifier of the kept chunks
    auto note_kept = [&](std::size_t k) {
      keep_[k] = true;
      kept_words.insert(ids_[k].begin(), ids_[k].end());
    };
    // Simple statements, plain imports and classes without methods (a config: `class cfg: bs = 2`,
    // whose attributes the constant folder reads) not kept yet.
    std::vector<std::size_t> candidates;
    auto data_class = [&](std::size_t k) {
      // Small ones only (const_eval.cpp reads classes of at most 1 KiB): a library's method-less
      // classes are output records with long docstrings, named by every function returning one.
      return chunks_[k].is_class && !chunks_[k].name.empty() && chunks_[k].end - chunks_[k].begin <= 2048 &&
             !mentions_identifier(text_of(k), "def");
    };
    // A small dataset class (sized_class), which a kept statement may instantiate for a loader
    // (`ds = Custom()` then `DataLoader(ds, ...)`): kept whole, for its __len__.
    auto dataset_class = [&](std::size_t k) { return chunks_[k].is_class && !chunks_[k].name.empty() && sized_class(k); };
    for (std::size_t k = 0; k < chunks_.size(); ++k) {
      if (relevant_[k] != Relevance::No || kinds_[k] == Kind::Compound) note_kept(k);
      else if (kinds_[k] != Kind::Definition || data_class(k) || dataset_class(k)) candidates.push_back(k);
    }
    std::vector<std::vector<std::string_view>> binds(chunks_.size());
    for (const std::size_t k : candidates) {
      if (kinds_[k] == Kind::PlainImport) binds[k] = *import_names(text_of(k));
      else if (kinds_[k] == Kind::Definition) binds[k].push_back(chunks_[k].name);
      else bound_names(text_of(k), binds[k], [](std::string_view) { return true; });
      // A method called on a name (`parser.add_argument(...)`, `cfg.merge_from_file(...)`) may set
      // what a kept reader of the name reads (python/const_eval.cpp reads argparse defaults).
      if (kinds_[k] == Kind::Simple && binds[k].empty())
        if (const auto receiver = method_call_receiver(text_of(k))) binds[k].push_back(*receiver);
    }
    bool grew = true;
    for (int sweep = 0; grew && sweep < kMaxSweeps && !candidates.empty(); ++sweep) {
      grew = false;
      std::size_t left = 0;
      for (const std::size_t k : candidates) {
        if (std::any_of(binds[k].begin(), binds[k].end(), [&](std::string_view w) { return kept_words.count(w) > 0; })) {
          note_kept(k);
          if (dataset_class(k)) whole_[k] = true;
          grew = true;
        } else {
          candidates[left++] = k;
        }
      }
      candidates.resize(left);
    }
    if (!grew || candidates.empty()) return;
    // The rest through an index of which candidates bind each word.
    WordMap<std::vector<std::size_t>> bound_by;
    for (const std::size_t k : candidates)
      for (const auto word : binds[k]) bound_by[word].push_back(k);
    std::vector<std::string_view> pending(kept_words.begin(), kept_words.end());
    while (!pending.empty()) {
      const std::string_view word = pending.back();
      pending.pop_back();
      const auto it = bound_by.find(word);
      if (it == bound_by.end()) continue;
      for (const std::size_t k : it->second) {
        if (keep_[k]) continue;
        keep_[k] = true;
        if (dataset_class(k)) whole_[k] = true;
        for (const auto w : ids_[k])
          if (kept_words.insert(w).second) pending.push_back(w);
      }
    }
  }

  // ---- phase 6: the ranges to parse -------------------------------------------------------------

  // A statement naming a half of one of the file's pairs (`x = torch.randint(...)`,
  // `model = nn.Sequential(...)`) or holding the small literal a pair asks for, in a function parsed
  // statement by statement: the pair made the function relevant, and its halves must be parsed
  // wherever they sit in it (what uses them follows through the names they bind).
  void index_pair_words() {
    for (const WordPair& pair : pairs_)
      for (const auto* half : {&pair.first, &pair.second}) {
        if (half == &pair.second && pair.second_only_through_classes) continue;
        for (const auto& word : *half) {
          if (word == kSmallFloatLiteral) pair_small_literal_ = true;
          else pair_words_.insert(word);
        }
      }
  }

  // Whether a member names a function include_callers follows the calls of.
  bool names_a_called(std::span<const std::string_view> code_ids) const {
    return !called_names_.empty() &&
           std::any_of(code_ids.begin(), code_ids.end(), [&](std::string_view w) { return called_names_.count(w) > 0; });
  }

  bool names_a_pair_half(std::string_view text, std::span<const std::string_view> code_ids) const {
    return std::any_of(code_ids.begin(), code_ids.end(), [&](std::string_view w) { return pair_words_.count(w) > 0; }) ||
           (pair_small_literal_ && has_small_float_literal(text));
  }

  bool relevant_text(std::string_view text, std::span<const std::string_view> code_ids) const {
    return names_a_trigger_in(text, code_ids) || assigns_attribute(text, attributes_) ||
           std::any_of(code_ids.begin(), code_ids.end(), [&](std::string_view w) {
             return w == "global" || w == "nonlocal" || (interesting_.count(w) > 0 && names_in_code(w));
           });
  }

  void include_kept(ParsePlan& plan) {
    index_pair_words();
    RangeBuilder included(source_);
    for (std::size_t k = 0; k < chunks_.size(); ++k) {
      const TopLevelChunk& chunk = chunks_[k];
      if (!keep_[k]) {
        if (!chunk.name.empty()) plan.skipped_names.push_back(chunk.name);
        continue;
      }
      if (chunk.is_definition && !whole_[k]) include_definition(included, chunk, 0, false, {}, ids_[k]);
      else included.add(chunk.begin, chunk.end);
    }
    plan.ranges = std::move(included.ranges);
    plan.parsed_bytes = included.bytes;
  }

  // A large relevant definition is parsed in parts: a class by its members, a function by its
  // statements (include_class_members, include_function_statements); nested classes and functions
  // down to three levels.
  //  `in_api_class`: the definition is a method of a class whose header names an API, where
  //  `super().__init__(...)` and `Base.__init__(self, ...)` are calls of that API.
  //  `self_needed`: for a method, the self attributes the kept parts of its class read or assign.
  //  `chunk_ids`: the chunk's code identifiers, in order; a member's are the slice of them that lies
  //  in its text (the same words a scan of the member alone reads: a member starts at a line start,
  //  outside brackets, strings and def headers).
  void include_definition(RangeBuilder& included, const TopLevelChunk& chunk, int depth, bool in_api_class,
                          const std::vector<std::string_view>& self_needed, std::span<const std::string_view> chunk_ids) {
    std::optional<Body> body;
    if (chunk.end - chunk.begin > kSplitAbove && depth < 3) body = split_body(source_, chunk);
    if (!body) {
      included.add(chunk.begin, chunk.end);
      return;
    }
    Members members{*body, {}, {}, {}};
    members.kept.assign(body->members.size(), false);
    for (const TopLevelChunk& member : body->members) {
      const std::string_view text = member_text(member);
      members.ids.push_back(ids_within(chunk_ids, text.data(), text.data() + text.size()));
    }
    code_identifiers(source_.substr(chunk.begin, body->header_end - chunk.begin), members.header_ids);
    bool header_names_api = false;
    std::vector<std::string_view> needed;  // a class's kept members' self attributes
    if (chunk.is_class) header_names_api = include_class_members(chunk, members, needed);
    else include_function_statements(chunk, members, in_api_class, self_needed);
    // A body needs a statement.
    if (std::find(members.kept.begin(), members.kept.end(), true) == members.kept.end()) members.kept[0] = true;
    included.add(chunk.begin, body->header_end);
    for (std::size_t m = 0; m < body->members.size(); ++m) {
      if (!members.kept[m]) continue;
      if (chunk.is_class && body->members[m].is_definition)
        include_definition(included, body->members[m], depth + 1, header_names_api, needed, members.ids[m]);
      else included.add(body->members[m].begin, body->members[m].end);
    }
  }

  // A definition's body as include_definition reads it.
  struct Members {
    const Body& body;
    std::vector<bool> kept;
    std::vector<std::span<const std::string_view>> ids;
    std::vector<std::string_view> header_ids;
  };

  // A class: its header and class-level statements, the methods relevant by the same tests as
  // top-level definitions (or holding a pair), __init__ when the header names an API (the class may
  // be a subclass of one: whether it has an __init__, and what that passes on, decides how calls
  // of it bind), and the methods that assign a self attribute a kept method reads or assigns (so
  // that `self.eps` means in the parsed part what it means in the whole class). Fills `needed`
  // with the kept members' self attributes; returns whether the header names an API.
  bool include_class_members(const TopLevelChunk& chunk, Members& members, std::vector<std::string_view>& needed) {
    const std::vector<TopLevelChunk>& list = members.body.members;
    const std::string_view header = source_.substr(chunk.begin, members.body.header_end - chunk.begin);
    const bool header_names_api =
        names_a_trigger_in(header, members.header_ids) ||
        std::any_of(members.header_ids.begin(), members.header_ids.end(),
                    [&](std::string_view w) { return interesting_.count(w) > 0; });
    // A class relevant only for the calls its methods make (include_callers) keeps those methods.
    const bool for_calls = caller_classes_.count(chunk.begin) > 0;
    for (std::size_t m = 0; m < list.size(); ++m) {
      const TopLevelChunk& member = list[m];
      const std::string_view text = member_text(member);
      if (!member.is_definition || names_a_called(members.ids[m]) ||
          (!for_calls && ((member.name == "__init__" && header_names_api) || relevant_text(text, members.ids[m]) ||
                          holds_a_pair(text, members.ids[m]))))
        members.kept[m] = true;
    }
    // Kept members' self attributes are needed; a member that assigns a needed one is kept.
    WordMap<std::vector<std::size_t>> assigned_by;
    for (std::size_t m = 0; m < list.size(); ++m) {
      if (members.kept[m]) continue;
      std::vector<std::string_view> own;
      self_assignments(member_text(list[m]), own);
      for (const auto name : own) assigned_by[name].push_back(m);
    }
    WordSetView needed_set;
    std::vector<std::size_t> pending;
    for (std::size_t m = 0; m < list.size(); ++m)
      if (members.kept[m]) pending.push_back(m);
    while (!pending.empty()) {
      const std::size_t m = pending.back();
      pending.pop_back();
      std::vector<std::string_view> mentions;
      self_mentions(member_text(list[m]), mentions, /*reads_only=*/true);
      for (const auto name : mentions) {
        if (!needed_set.insert(name).second) continue;
        needed.push_back(name);
        if (const auto it = assigned_by.find(name); it != assigned_by.end())
          for (const std::size_t other : it->second)
            if (!members.kept[other]) {
              members.kept[other] = true;
              pending.push_back(other);
            }
      }
    }
    return header_names_api;
  }

  // A function: its header and the statements that are relevant, that bind or rebind a name kept
  // statements use, or that assign a self attribute kept code reads; compound statements (if, for,
  // with, try, nested defs) are kept whole when they mention such a name at all.
  void include_function_statements(const TopLevelChunk& chunk, Members& members, bool in_api_class,
                                   const std::vector<std::string_view>& self_needed) {
    const std::vector<TopLevelChunk>& list = members.body.members;
    const std::size_t count = list.size();
    WordSetView used(members.header_ids.begin(), members.header_ids.end());
    std::vector<std::string_view> self_used = self_needed;
    self_mentions(source_.substr(chunk.begin, members.body.header_end - chunk.begin), self_used);
    // A statement is relevant when it names an API or a name a relevant statement bound (a local
    // alias `norm = nn.BatchNorm2d` makes `norm(c, eps=0.0)` a call of the API).
    WordSetView local_interesting;
    std::vector<Relevance> relevant(count, Relevance::No);
    for (std::size_t m = 0; m < count; ++m) {
      const std::string_view text = member_text(list[m]);
      if (relevant_text(text, members.ids[m]) || names_a_pair_half(text, members.ids[m]) ||
          names_a_called(members.ids[m]) ||
          (in_api_class && std::any_of(members.ids[m].begin(), members.ids[m].end(),
                                       [](std::string_view w) { return w == "__init__"; })))
        relevant[m] = Relevance::Yes;
    }
    for (bool grew = true; grew;) {
      grew = false;
      for (std::size_t m = 0; m < count; ++m) {
        if (relevant[m] == Relevance::No &&
            std::any_of(members.ids[m].begin(), members.ids[m].end(),
                        [&](std::string_view w) { return local_interesting.count(w) > 0; }))
          relevant[m] = Relevance::Yes;
        if (relevant[m] != Relevance::Yes) continue;
        relevant[m] = Relevance::Harvested;
        members.kept[m] = true;
        std::vector<std::string_view> binds;
        bound_names(member_text(list[m]), binds, [](std::string_view) { return true; });
        for (const auto word : binds) grew |= local_interesting.insert(word).second;
      }
    }
    // Kept statements use names and self attributes; a statement that binds a used name (a compound
    // one: that mentions it anywhere) or assigns a used self attribute is kept too.
    WordMap<std::vector<std::size_t>> kept_if_used, kept_if_self_used;
    for (std::size_t m = 0; m < count; ++m) {
      if (members.kept[m]) continue;
      const std::string_view text = member_text(list[m]);
      if (list[m].is_definition || !is_simple_statement(text)) {
        for (const auto w : members.ids[m]) kept_if_used[w].push_back(m);
      } else {
        std::vector<std::string_view> binds;
        bound_names(text, binds, [](std::string_view) { return true; });
        for (const auto w : binds) kept_if_used[w].push_back(m);
        std::vector<std::string_view> self_set;
        self_assignments(text, self_set);
        for (const auto w : self_set) kept_if_self_used[w].push_back(m);
      }
    }
    WordSetView self_used_set;
    std::vector<std::size_t> pending;
    auto trigger = [&](const WordMap<std::vector<std::size_t>>& index, std::string_view w) {
      if (const auto it = index.find(w); it != index.end())
        for (const std::size_t other : it->second)
          if (!members.kept[other]) {
            members.kept[other] = true;
            pending.push_back(other);
          }
    };
    auto use_name = [&](std::string_view w) {
      if (used.insert(w).second) trigger(kept_if_used, w);
    };
    auto use_self = [&](std::string_view w) {
      if (self_used_set.insert(w).second) trigger(kept_if_self_used, w);
    };
    for (const auto w : members.header_ids) trigger(kept_if_used, w);
    for (const auto w : self_used) use_self(w);
    for (std::size_t m = 0; m < count; ++m)
      if (members.kept[m]) pending.push_back(m);
    while (!pending.empty()) {
      const std::size_t m = pending.back();
      pending.pop_back();
      for (const auto w : members.ids[m]) use_name(w);
      std::vector<std::string_view> mentions;
      self_mentions(member_text(list[m]), mentions, /*reads_only=*/true);
      for (const auto w : mentions) use_self(w);
    }
  }

  // ---- state ------------------------------------------------------------------------------------

  enum class SmallLiteral : std::uint8_t { Unknown, No, Yes };

  std::string_view source_;
  const WordSetView words_;
  // The quoted triggers ('BN', "SyncBN"), found from the file's quotes: most files hold none, and
  // then no chunk is searched for them.
  const QuotedTriggers quoted_;
  const bool file_has_quoted_;
  const std::vector<std::string>& attributes_;
  const std::vector<WordPair>& pairs_;
  const bool own_names_count_;
  const bool class_uses_count_;

  std::vector<TopLevelChunk> chunks_;
  std::vector<std::vector<std::string_view>> ids_;  // each chunk's code identifiers, in order
  std::vector<Kind> kinds_;
  std::vector<Relevance> relevant_;
  std::vector<bool> keep_;
  // Classes read as a whole where they are used (a model class standing for a pair's half: its
  // __init__ and forward are read together, whatever they name).
  std::vector<bool> whole_;
  WordSetView interesting_;                   // names relevant chunks bind
  WordSetView class_words_;                   // those of them that name a relevant class
  WordSetView called_names_;                  // functions whose calls include_callers keeps
  std::unordered_set<std::uint32_t> caller_classes_;  // by start: classes relevant for those calls only
  std::vector<std::string_view> fresh_words_;  // interesting words the index has not followed yet

  // Pairs (phase 3).
  WordSetView small_constants_;
  std::vector<SmallLiteral> small_literal_;  // per chunk, computed when first asked
  WordMap<std::uint64_t> half_bits_;
  WordMap<std::uint64_t> class_marker_bits_;  // second halves that count only through classes
  std::uint64_t small_bits_ = 0;
  std::vector<std::vector<std::size_t>> second_classes_;  // by pair: classes standing for its second half
  std::vector<bool> first_in_file_;                       // by pair
  std::vector<std::uint64_t> chunk_bits_;                 // by chunk: the halves it names
  // By module-level function name: the halves it names (called_function_bits), made on first use.
  std::optional<std::unordered_map<std::string_view, std::uint64_t>> function_bits_;
  std::unordered_map<std::string_view, std::vector<std::size_t>> function_chunks_;  // their chunks, by name
  std::unordered_map<std::size_t, std::optional<Body>> bodies_;  // classes split for a_method_holds_pair
  enum class MemoAnswer : std::uint8_t { Unknown, Yes, No };
  std::vector<MemoAnswer> method_pair_memo_;  // a_method_holds_pair by chunk * pairs + pair
  // Phase 6.
  WordSetView pair_words_;
  bool pair_small_literal_ = false;
};

}  // namespace

std::optional<ParsePlan> plan_parse(std::string_view source, const std::vector<std::string>& trigger_tokens,
                                    const std::vector<std::string>& trigger_words,
                                    const std::vector<std::string>& attributes, const std::vector<WordPair>& pairs,
                                    bool own_names_count, bool class_uses_count) {
  return RegionPlanner(source, trigger_tokens, trigger_words, attributes, pairs, own_names_count, class_uses_count)
      .plan();
}

bool nothing_relevant(std::string_view source, const std::vector<std::string>& trigger_tokens,
                      const std::vector<std::string>& trigger_words, const std::vector<std::string>& attributes,
                      const std::vector<WordPair>& pairs, bool own_names_count) {
  const auto relevant =
      RegionPlanner(source, trigger_tokens, trigger_words, attributes, pairs, own_names_count).anything_relevant();
  return relevant && !*relevant;
}

bool a_method_may_hold(std::string_view source, const TopLevelChunk& chunk, const WordPair& pair, bool first_elsewhere,
                       bool second_elsewhere, std::span<const std::string> second_words) {
  const auto body = split_body(source, chunk);
  if (!body) return true;
  // Each method's every identifier is looked up: in sets behind a filter, not in the word lists.
  const WordSetView first_words(pair.first.begin(), pair.first.end());
  WordSetView second_set(pair.second.begin(), pair.second.end());
  second_set.insert(second_words.begin(), second_words.end());
  const bool first_small = first_words.count(kSmallFloatLiteral) > 0, second_small = second_set.count(kSmallFloatLiteral) > 0;
  std::vector<std::string_view> ids;
  for (const TopLevelChunk& member : body->members) {
    if (!member.is_definition || (!pair.init_counts && member.name == "__init__")) continue;
    const std::string_view text = source.substr(member.begin, member.end - member.begin);
    ids.clear();
    code_identifiers(text, ids);
    bool first = first_elsewhere || (first_small && has_small_float_literal(text));
    bool second = second_elsewhere || (second_small && has_small_float_literal(text));
    for (const auto w : ids) {
      first = first || first_words.count(w) > 0;
      if (!second && second_set.count(w) > 0) second = !pair.second_called_in_methods || called_in(source, w);
      if (first && second) return true;
    }
  }
  return false;
}

}  // namespace cudnnlint::python

namespace cudnnlint::python {

namespace {

// Whether a chunk is a plain import statement (`import a.b as c`, `from .x import (y, z)`, a star
// or `__future__` import): one that binds names and does nothing else.
bool is_plain_import(std::string_view text) {
  const std::string_view rest = text.substr(code_start(text));
  if (!starts_with_keyword(rest, "from") && !starts_with_keyword(rest, "import")) return false;
  return rest.find(';') == std::string_view::npos;
}

}  // namespace

std::size_t code_start(std::string_view chunk) {
  std::size_t at = 0;
  for (;;) {
    const std::size_t code = skip_blanks(chunk, at);
    if (code >= chunk.size()) return chunk.size();
    if (chunk[code] != '#' && chunk[code] != '\n' && chunk[code] != '\r') return at;
    const std::size_t newline = chunk.find('\n', code);
    if (newline == std::string_view::npos) return chunk.size();
    at = newline + 1;
  }
}

std::optional<ModuleParts> split_into_parts(std::string_view source) {
  // A lone CR ends a line for Python but not for tree-sitter's row count (as in plan_parse).
  for (std::size_t at = source.find('\r'); at != std::string_view::npos; at = source.find('\r', at + 1))
    if (at + 1 >= source.size() || source[at + 1] != '\n') return std::nullopt;
  auto chunks = split_top_level(source);
  if (!chunks) return std::nullopt;
  ModuleParts parts;
  parts.chunks = std::move(*chunks);
  const std::size_t count = parts.chunks.size();
  std::vector<std::vector<std::string_view>> binds(count);  // the module names each chunk binds
  std::vector<std::size_t> leader(count);
  for (std::size_t k = 0; k < count; ++k) leader[k] = k;
  auto find = [&](std::size_t k) {
    while (leader[k] != k) k = leader[k] = leader[leader[k]];
    return k;
  };
  auto join = [&](std::size_t a, std::size_t b) {
    a = find(a), b = find(b);
    if (a != b) leader[std::max(a, b)] = std::min(a, b);
  };
  std::vector<std::vector<std::string_view>> ids(count);
  std::vector<char> shared(count, 0);
  std::optional<std::size_t> script;  // the first module statement: every other one joins it
  WordMap<std::vector<std::size_t>> binders;
  for (std::size_t k = 0; k < count; ++k) {
    const TopLevelChunk& chunk = parts.chunks[k];
    const std::string_view text = source.substr(chunk.begin, chunk.end - chunk.begin);
    code_identifiers(text, ids[k]);
    if (!chunk.is_definition && is_plain_import(text)) {
      shared[k] = 1;
      continue;
    }
    const bool rebinds_from_inside =
        std::any_of(ids[k].begin(), ids[k].end(), [](std::string_view w) { return w == "global" || w == "nonlocal"; });
    if (chunk.is_definition && !rebinds_from_inside) {
      if (!chunk.name.empty()) binds[k].push_back(chunk.name);
    } else {
      // A module statement, or a def that rebinds module names (`global X`): part of the script.
      bound_names(text, binds[k], [](std::string_view) { return true; });
      // bound_names leaves plain imports to its caller (`import torch` binds torch): a statement
      // holding an import (`try: import apex`, `import a; import b`) binds every word it names.
      if (std::find(ids[k].begin(), ids[k].end(), std::string_view("import")) != ids[k].end())
        binds[k].insert(binds[k].end(), ids[k].begin(), ids[k].end());
      if (chunk.is_definition && !chunk.name.empty()) binds[k].push_back(chunk.name);
      if (script) join(*script, k);
      else script = k;
    }
    for (const auto name : binds[k]) binders[name].push_back(k);
  }
  for (const auto& [name, chunks_binding] : binders)
    for (const std::size_t k : chunks_binding) join(chunks_binding.front(), k);
  for (std::size_t k = 0; k < count; ++k) {
    if (shared[k]) continue;
    for (const auto w : ids[k])
      if (const auto it = binders.find(w); it != binders.end()) join(k, it->second.front());
  }
  std::vector<std::size_t> part_of(count, static_cast<std::size_t>(-1));
  for (std::size_t k = 0; k < count; ++k) {
    if (shared[k]) {
      parts.shared.push_back(k);
      continue;
    }
    const std::size_t root = find(k);
    if (part_of[root] == static_cast<std::size_t>(-1)) {
      part_of[root] = parts.parts.size();
      parts.parts.emplace_back();
    }
    parts.parts[part_of[root]].push_back(k);
  }
  return parts;
}

std::optional<ModuleStatementsPlan> plan_module_statements(std::string_view source) {
  // A lone CR ends a line for Python but not for tree-sitter's row count (RegionPlanner::split).
  for (std::size_t at = source.find('\r'); at != std::string_view::npos; at = source.find('\r', at + 1))
    if (at + 1 >= source.size() || source[at + 1] != '\n') return std::nullopt;
  const auto chunks = split_top_level(source);
  if (!chunks || chunks->size() < 2) return std::nullopt;
  const auto text_of = [&](const TopLevelChunk& chunk) { return source.substr(chunk.begin, chunk.end - chunk.begin); };
  // The module's statements, and the definitions they name (a class attribute a constant reads:
  // `EPS = Config.EPS`) or that rebind a module name.
  std::vector<bool> kept(chunks->size(), false);
  std::unordered_set<std::string_view> named;
  std::vector<std::string_view> ids;
  for (std::size_t k = 0; k < chunks->size(); ++k) {
    const TopLevelChunk& chunk = (*chunks)[k];
    if (chunk.is_definition) {
      // A definition the lexer found no name for is kept: its name could not be bound otherwise.
      kept[k] = chunk.name.empty() || mentions_word(text_of(chunk), "global");
      continue;
    }
    kept[k] = true;
    ids.clear();
    code_identifiers(text_of(chunk), ids);
    named.insert(ids.begin(), ids.end());
  }
  ModuleStatementsPlan plan;
  RangeBuilder included(source);
  for (std::size_t k = 0; k < chunks->size(); ++k) {
    const TopLevelChunk& chunk = (*chunks)[k];
    if (kept[k] || named.count(chunk.name) > 0) {
      included.add(chunk.begin, chunk.end);
    } else {
      plan.definition_names.push_back(chunk.name);
    }
  }
  if (plan.definition_names.empty() || included.ranges.empty()) return std::nullopt;  // nothing to gain
  plan.ranges = std::move(included.ranges);
  return plan;
}

std::vector<TSRange> ranges_of(std::string_view source, const ModuleParts& parts, std::span<const std::size_t> chunks) {
  RangeBuilder included(source);
  for (const std::size_t k : chunks) included.add(parts.chunks[k].begin, parts.chunks[k].end);
  return std::move(included.ranges);
}

}  // namespace cudnnlint::python
