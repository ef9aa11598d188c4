#include "python/regions.h"

#include <algorithm>
#include <array>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cctype>
#include <climits>
#include <functional>
#include <optional>
#include <cstdint>
#include <unordered_set>
#include <string>

namespace cudnnlint::python {

namespace {

// The first position in [i, n) holding one of `set`'s bytes (n when none): sixteen bytes at a
// time where SSE2 is there. The lexers below spend most of their time between such bytes.
template <std::size_t N>
std::size_t skip_to_any(std::string_view text, std::size_t i, std::size_t n, const std::array<char, N>& set) {
#if defined(__SSE2__)
  __m128i wanted[N];
  for (std::size_t k = 0; k < N; ++k) wanted[k] = _mm_set1_epi8(set[k]);
  while (i + 16 <= n) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    __m128i hits = _mm_cmpeq_epi8(block, wanted[0]);
    for (std::size_t k = 1; k < N; ++k) hits = _mm_or_si128(hits, _mm_cmpeq_epi8(block, wanted[k]));
    const int mask = _mm_movemask_epi8(hits);
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    i += 16;
  }
#endif
  for (; i < n; ++i)
    for (const char c : set)
      if (text[i] == c) return i;
  return n;
}

constexpr std::array<char, 12> kLexerBytes{'#', '\'', '"', '(', ')', '[', ']', '{', '}', '\\', '\n', '\r'};


bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         (static_cast<unsigned char>(c) >= 0x80);
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

// Every name a module-level statement binds, wherever in it: assignment targets at the start of a
// logical line (`a = ...`, `a: T = ...`, `a, b = ...`, inside if/try/with blocks too), `as` names
// (import, with, except), imported names, and the names of nested defs and classes. Over-collecting
// only costs speed; missing one would drop facts, so the scan follows strings and brackets.
template <class IsRelevant>
void bound_names(std::string_view text, std::vector<std::string_view>& out, IsRelevant is_relevant) {
  const std::size_t n = text.size();
  int depth = 0;
  bool line_start = true;
  bool in_import = false;
  std::string_view previous_word;
  std::size_t i = 0;
  while (i < n) {
    const char c = text[i];
    if (line_start && depth == 0) {
      line_start = false;
      i = skip_blanks(text, i);
      if (i >= n) break;
      std::string_view rest = text.substr(i);
      in_import = starts_with_keyword(rest, "import") || starts_with_keyword(rest, "from");
      for (std::string_view keyword : {"def", "class", "async"}) {
        if (!starts_with_keyword(rest, keyword)) continue;
        std::size_t at = skip_blanks(text, i + keyword.size());
        if (keyword == "async" && starts_with_keyword(text.substr(at), "def")) at = skip_blanks(text, at + 3);
        const auto name = identifier_at(text, at);
        if (!name.empty()) out.push_back(name);
      }
      // Targets before a single '=' (augmented assignments too): `a = `, `a, b = `, `a: T = `.
      std::size_t at = i;
      std::vector<std::string_view> targets;
      for (;;) {
        at = skip_blanks(text, at);
        const auto name = identifier_at(text, at);
        if (name.empty()) break;
        targets.push_back(name);
        at = skip_blanks(text, at + name.size());
        if (at < n && text[at] == ',') {
          ++at;
          continue;
        }
        break;
      }
      if (!targets.empty() && at < n) {
        const bool annotated = text[at] == ':';
        const bool assigns = text[at] == '=' && !(at + 1 < n && text[at + 1] == '=');
        const bool augmented = at + 1 < n && text[at + 1] == '=' && std::string_view("+-*/%&|^@").find(text[at]) != std::string_view::npos;
        if (assigns || annotated || augmented) out.insert(out.end(), targets.begin(), targets.end());
      }
      continue;
    }
    if (c == '#') {
      while (i < n && text[i] != '\n' && text[i] != '\r') ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      const bool triple = i + 2 < n && text[i + 1] == c && text[i + 2] == c;
      i += triple ? 3 : 1;
      while (i < n) {
        if (text[i] == '\\') {
          i += 2;
          continue;
        }
        if (text[i] == c && (!triple || (i + 2 < n && text[i + 1] == c && text[i + 2] == c))) {
          i += triple ? 3 : 1;
          break;
        }
        ++i;
      }
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    else if (c == '\\' && i + 1 < n && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      i += 2;
      continue;
    } else if (c == '\n' || c == '\r') {
      line_start = true;
      in_import = false;
    } else if (is_identifier_char(c) && (i == 0 || !is_identifier_char(text[i - 1]))) {
      const auto word = identifier_at(text, i);
      if (word == "as") {
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

// The identifiers of `text` where it is code: outside comments and plain string literals (an
// f-string's text is scanned too: its braces hold code).
void code_identifiers(std::string_view text, std::vector<std::string_view>& out) {
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
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
      if (formatted) {
        ++i;
        continue;
      }
      const bool triple = i + 2 < n && text[i + 1] == c && text[i + 2] == c;
      std::size_t j = i + (triple ? 3 : 1);
      while (j < n) {
        if (text[j] == '\\') {
          j += 2;
          continue;
        }
        if (!triple && (text[j] == '\n' || text[j] == '\r')) break;
        if (text[j] == c && (!triple || (j + 2 < n && text[j + 1] == c && text[j + 2] == c))) {
          j += triple ? 3 : 1;
          break;
        }
        ++j;
      }
      i = std::min(j, n);
      continue;
    }
    if (is_identifier_char(c) && !(c >= '0' && c <= '9')) {
      const auto word = identifier_at(text, i);
      out.push_back(word);
      i += word.size();
      continue;
    }
    if (c >= '0' && c <= '9') {
      while (i < n && is_identifier_char(text[i])) ++i;  // a number: no name inside
      continue;
    }
    ++i;
  }
}

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
      const std::array<char, 4> string_bytes{'\\', c, '\n', '\r'};
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

// Attribute names a method assigns on self (`self.eps = ...`, `self.n += 1`).
void self_assignments(std::string_view text, std::vector<std::string_view>& out) {
  for (std::size_t at = text.find("self."); at != std::string_view::npos; at = text.find("self.", at + 1)) {
    if (at > 0 && is_identifier_char(text[at - 1])) continue;
    const auto name = identifier_at(text, at + 5);
    if (name.empty()) continue;
    std::size_t op = skip_blanks(text, at + 5 + name.size());
    if (op < text.size() && std::string_view("+-*/%&|^@").find(text[op]) != std::string_view::npos) ++op;
    if (op < text.size() && text[op] == '=' && !(op + 1 < text.size() && text[op + 1] == '=')) out.push_back(name);
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
  const std::size_t list = rest.find("import", from ? 4 : 0);
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
void self_mentions(std::string_view text, std::vector<std::string_view>& out) {
  for (std::size_t at = text.find("self."); at != std::string_view::npos; at = text.find("self.", at + 1)) {
    if (at > 0 && is_identifier_char(text[at - 1])) continue;
    const auto name = identifier_at(text, at + 5);
    if (!name.empty()) out.push_back(name);
  }
}

}  // namespace

std::optional<std::vector<TopLevelChunk>> split_top_level(std::string_view source) {
  return split_statements(source, 0, source.size(), "");
}

std::optional<ParsePlan> plan_parse(std::string_view source, const std::vector<std::string>& trigger_tokens,
                                    const std::vector<std::string>& trigger_words,
                                    const std::vector<std::string>& attributes) {
  // A trigger counts where it is code: in a docstring or a comment it cannot make a call. Words
  // count as whole identifiers (`use_batch_norm` is not `batch_norm`); quoted triggers ('BN',
  // mmcv's registry names) are strings by nature and count anywhere.
  const std::unordered_set<std::string_view> words(trigger_words.begin(), trigger_words.end());
  // A lone CR ends a line for Python but not for tree-sitter's row count: keep such files simple.
  for (std::size_t at = source.find('\r'); at != std::string_view::npos; at = source.find('\r', at + 1))
    if (at + 1 >= source.size() || source[at + 1] != '\n') return std::nullopt;
  auto chunks = split_top_level(source);
  if (!chunks || chunks->size() < 2) return std::nullopt;
  // A chunk matters when it names an API in code, sets an instance attribute the table names,
  // rebinds module names from outside (global/nonlocal), or uses a name that something relevant
  // bound (an alias, a partial, a subclass); a relevant statement contributes every name it binds.
  // Imports and compound statements are always parsed. A simple module statement (an assignment
  // or an expression) is parsed when it is relevant or binds a name that parsed code mentions, so
  // constants read by kept code keep exactly the bindings a full parse gives them. Repeat until
  // nothing changes. Each chunk's code identifiers are read once.
  std::vector<char> keep(chunks->size(), 0);
  std::vector<char> relevant(chunks->size(), 0);
  std::vector<char> simple(chunks->size(), 0);
  std::vector<std::vector<std::string_view>> ids(chunks->size());
  std::vector<std::string_view> interesting;
  std::unordered_set<std::string_view> interesting_set;
  std::unordered_set<std::string_view> kept_words;  // every code identifier of the parsed chunks
  auto text_of = [&](std::size_t k) {
    return source.substr((*chunks)[k].begin, (*chunks)[k].end - (*chunks)[k].begin);
  };
  auto names_a_trigger_in = [&](std::string_view text, const std::vector<std::string_view>& code_ids) {
    if (mentions_any(text, trigger_tokens)) return true;
    return std::any_of(code_ids.begin(), code_ids.end(), [&](std::string_view w) { return words.count(w) > 0; });
  };
  auto add_interesting = [&](std::string_view word) {
    if (interesting_set.insert(word).second) interesting.push_back(word);
  };
  auto note_kept = [&](std::size_t k) {
    if (keep[k]) return false;
    keep[k] = 1;
    kept_words.insert(ids[k].begin(), ids[k].end());
    return true;
  };
  for (std::size_t k = 0; k < chunks->size(); ++k) {
    const TopLevelChunk& chunk = (*chunks)[k];
    const std::string_view text = text_of(k);
    code_identifiers(text, ids[k]);
    // A plain import is parsed, like a simple statement, when it names an API or binds a name that
    // parsed code uses; `simple` is 2 for it.
    if (!chunk.is_definition) simple[k] = is_simple_statement(text) ? 1 : import_names(text) ? 2 : 0;
    if (!chunk.is_definition && !simple[k]) note_kept(k);
    const bool rebinds = std::any_of(ids[k].begin(), ids[k].end(),
                                     [](std::string_view w) { return w == "global" || w == "nonlocal"; });
    if (names_a_trigger_in(text, ids[k]) || rebinds || (chunk.is_definition && assigns_attribute(text, attributes)))
      relevant[k] = 1;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t k = 0; k < chunks->size(); ++k) {
      const TopLevelChunk& chunk = (*chunks)[k];
      if (!relevant[k]) {
        const std::string_view text = text_of(k);
        if (!interesting_set.empty() &&
            std::any_of(ids[k].begin(), ids[k].end(), [&](std::string_view w) { return interesting_set.count(w) > 0; })) {
          relevant[k] = 1;
        } else if (simple[k] && !keep[k]) {
          // A constant, alias or import some parsed code mentions.
          std::vector<std::string_view> binds;
          if (simple[k] == 2) binds = *import_names(text);
          else bound_names(text, binds, [](std::string_view) { return true; });
          if (std::any_of(binds.begin(), binds.end(), [&](std::string_view w) { return kept_words.count(w) > 0; }))
            changed |= note_kept(k);
          continue;
        } else {
          continue;
        }
      } else if (relevant[k] == 2) {
        continue;  // already harvested
      }
      relevant[k] = 2;
      note_kept(k);
      changed = true;
      if (chunk.is_definition) {
        if (chunk.is_class) add_interesting(chunk.name);
      } else {
        std::vector<std::string_view> binds;
        bound_names(text_of(k), binds, [&](std::string_view word) {
          return words.count(word) > 0 || mentions_any(word, trigger_tokens) || interesting_set.count(word) > 0;
        });
        for (const auto word : binds) add_interesting(word);
      }
    }
  }
  ParsePlan plan;
  std::uint32_t row = 0;
  std::uint32_t scanned = 0;
  auto advance_rows = [&](std::uint32_t to) {
    for (; scanned < to; ++scanned) {
      const char c = source[scanned];
      if (c == '\n') ++row;
    }
  };
  auto include = [&](std::uint32_t begin, std::uint32_t end) {
    if (begin >= end) return;
    // Extend the previous range when pieces are adjacent: fewer, larger ranges.
    advance_rows(begin);
    const TSPoint start = point_at(source, begin, row);
    advance_rows(end);
    const TSPoint stop = point_at(source, end, row);
    if (!plan.ranges.empty() && plan.ranges.back().end_byte == begin) {
      plan.ranges.back().end_byte = end;
      plan.ranges.back().end_point = stop;
    } else {
      plan.ranges.push_back(TSRange{start, stop, begin, end});
    }
    plan.parsed_bytes += end - begin;
  };
  // A large relevant definition is parsed in parts.
  //  - A class: its header and class-level statements, the methods that are relevant by the same
  //    tests as top-level definitions, __init__ when the header names an API (the class may be a
  //    subclass of one: whether it has an __init__, and what that passes on, decides how calls
  //    of it bind), and the methods that assign a self attribute a kept method reads or assigns
  //    (so that `self.eps` means in the parsed part what it means in the whole class).
  //  - A function: its header and the statements that are relevant, that bind or rebind a name
  //    kept statements use, or that assign a self attribute kept code reads; compound statements
  //    (if, for, with, try, nested defs) are kept whole when they mention such a name at all.
  constexpr std::uint32_t kSplitAbove = 768;
  auto relevant_text = [&](std::string_view text, const std::vector<std::string_view>& code_ids) {
    return names_a_trigger_in(text, code_ids) || assigns_attribute(text, attributes) ||
           std::any_of(code_ids.begin(), code_ids.end(), [&](std::string_view w) {
             return w == "global" || w == "nonlocal" || interesting_set.count(w) > 0;
           });
  };
  // `in_api_class`: the definition is a method of a class whose header names an API, where
  // `super().__init__(...)` and `Base.__init__(self, ...)` are calls of that API.
  // `self_needed`: for a method, the self attributes the kept parts of its class read or assign.
  std::function<void(const TopLevelChunk&, int, bool, const std::vector<std::string_view>&)> include_definition =
      [&](const TopLevelChunk& chunk, int depth, bool in_api_class, const std::vector<std::string_view>& self_needed) {
    std::optional<Body> body;
    if (chunk.end - chunk.begin > kSplitAbove && depth < 3) body = split_body(source, chunk);
    if (!body) {
      include(chunk.begin, chunk.end);
      return;
    }
    const std::size_t count = body->members.size();
    std::vector<char> kept(count, 0);
    std::vector<std::vector<std::string_view>> member_ids(count);
    auto member_text = [&](std::size_t m) {
      return source.substr(body->members[m].begin, body->members[m].end - body->members[m].begin);
    };
    std::vector<std::string_view> header_ids;
    const std::string_view header = source.substr(chunk.begin, body->header_end - chunk.begin);
    code_identifiers(header, header_ids);
    for (std::size_t m = 0; m < count; ++m) code_identifiers(member_text(m), member_ids[m]);
    bool header_names_api = false;
    std::vector<std::string_view> needed;  // a class's kept members' self attributes
    if (chunk.is_class) {
      header_names_api =
          names_a_trigger_in(header, header_ids) ||
          std::any_of(header_ids.begin(), header_ids.end(), [&](std::string_view w) { return interesting_set.count(w) > 0; });
      for (std::size_t m = 0; m < count; ++m) {
        const TopLevelChunk& member = body->members[m];
        if (!member.is_definition || (member.name == "__init__" && header_names_api) ||
            relevant_text(member_text(m), member_ids[m]))
          kept[m] = 1;
      }
      for (bool grew = true; grew;) {
        grew = false;
        needed.clear();
        for (std::size_t m = 0; m < count; ++m)
          if (kept[m]) self_mentions(member_text(m), needed);
        for (std::size_t m = 0; m < count; ++m) {
          if (kept[m]) continue;
          std::vector<std::string_view> own;
          self_assignments(member_text(m), own);
          if (std::any_of(own.begin(), own.end(), [&](std::string_view name) {
                return std::find(needed.begin(), needed.end(), name) != needed.end();
              })) {
            kept[m] = 1;
            grew = true;
          }
        }
      }
    } else {
      std::unordered_set<std::string_view> used(header_ids.begin(), header_ids.end());
      std::vector<std::string_view> self_used = self_needed;
      self_mentions(header, self_used);
      for (std::size_t m = 0; m < count; ++m)
        if (relevant_text(member_text(m), member_ids[m]) ||
            (in_api_class && std::any_of(member_ids[m].begin(), member_ids[m].end(),
                                         [](std::string_view w) { return w == "__init__"; })))
          kept[m] = 1;
      for (bool grew = true; grew;) {
        grew = false;
        for (std::size_t m = 0; m < count; ++m)
          if (kept[m]) {
            used.insert(member_ids[m].begin(), member_ids[m].end());
            self_mentions(member_text(m), self_used);
          }
        for (std::size_t m = 0; m < count; ++m) {
          if (kept[m]) continue;
          const std::string_view text = member_text(m);
          bool keep_it;
          if (body->members[m].is_definition || !is_simple_statement(text)) {
            // A compound statement may bind names anywhere inside (loops, with, except).
            keep_it = std::any_of(member_ids[m].begin(), member_ids[m].end(),
                                  [&](std::string_view w) { return used.count(w) > 0; });
          } else {
            std::vector<std::string_view> binds;
            bound_names(text, binds, [](std::string_view) { return true; });
            std::vector<std::string_view> self_set;
            self_assignments(text, self_set);
            keep_it = std::any_of(binds.begin(), binds.end(), [&](std::string_view w) { return used.count(w) > 0; }) ||
                      std::any_of(self_set.begin(), self_set.end(), [&](std::string_view w) {
                        return std::find(self_used.begin(), self_used.end(), w) != self_used.end();
                      });
          }
          if (keep_it) {
            kept[m] = 1;
            grew = true;
          }
        }
      }
    }
    if (std::find(kept.begin(), kept.end(), 1) == kept.end()) kept[0] = 1;  // a body needs a statement
    include(chunk.begin, body->header_end);
    for (std::size_t m = 0; m < count; ++m) {
      if (!kept[m]) continue;
      if (chunk.is_class && body->members[m].is_definition)
        include_definition(body->members[m], depth + 1, header_names_api, needed);
      else include(body->members[m].begin, body->members[m].end);
    }
  };
  for (std::size_t k = 0; k < chunks->size(); ++k) {
    const TopLevelChunk& chunk = (*chunks)[k];
    if (!keep[k]) {
      if (!chunk.name.empty()) plan.skipped_names.push_back(chunk.name);
      continue;
    }
    if (chunk.is_definition) include_definition(chunk, 0, false, {});
    else include(chunk.begin, chunk.end);
  }
  if (plan.parsed_bytes >= source.size() || plan.ranges.empty()) return std::nullopt;  // nothing to gain
  return plan;
}

}  // namespace cudnnlint::python
