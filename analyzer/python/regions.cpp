#include "python/regions.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <unordered_set>

namespace cudnnlint::python {

namespace {

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

std::optional<std::vector<TopLevelChunk>> split_top_level(std::string_view source) {
  std::vector<std::uint32_t> starts;
  const std::size_t n = source.size();
  int depth = 0;
  bool at_line_start = true;
  bool continued = false;
  std::size_t i = 0;
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
        while (first < n && source[first] == '\f') ++first;
        const char c = first < n ? source[first] : ' ';
        if (c != ' ' && c != '\t' && c != '#' && c != '\n' && c != '\r')
          starts.push_back(static_cast<std::uint32_t>(i));
      }
      continued = false;
    }
    const char c = source[i];
    if (c == '#') {
      while (i < n && !newline_at(i)) ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      const bool triple = i + 2 < n && source[i + 1] == c && source[i + 2] == c;
      i += triple ? 3 : 1;
      bool closed = false;
      while (i < n) {
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
    const std::uint32_t begin = (k == 0) ? 0 : starts[k];
    const std::uint32_t end = (k + 1 < starts.size()) ? starts[k + 1] : static_cast<std::uint32_t>(n);
    const std::string_view text = source.substr(starts[k], end - starts[k]);
    const bool clause = starts_with_keyword(text, "else") || starts_with_keyword(text, "elif") ||
                        starts_with_keyword(text, "except") || starts_with_keyword(text, "finally");
    if (clause && !chunks.empty()) {
      chunks.back().end = end;  // continues the if/try/for/while above it
      continue;
    }
    TopLevelChunk chunk{begin, end, false, false, {}};
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
  if (decorators_begin != kNoDecorators) merged.push_back(TopLevelChunk{decorators_begin, static_cast<std::uint32_t>(n), false, false, {}});
  return merged;
}

std::optional<ParsePlan> plan_parse(std::string_view source, const std::vector<std::string>& trigger_tokens,
                                    const std::vector<std::string>& trigger_words,
                                    const std::vector<std::string>& attributes) {
  auto names_a_trigger = [&](std::string_view text) {
    return mentions_any(text, trigger_tokens) ||
           std::any_of(trigger_words.begin(), trigger_words.end(), [&](const std::string& w) { return mentions_word(text, w); });
  };
  // A lone CR ends a line for Python but not for tree-sitter's row count: keep such files simple.
  for (std::size_t at = source.find('\r'); at != std::string_view::npos; at = source.find('\r', at + 1))
    if (at + 1 >= source.size() || source[at + 1] != '\n') return std::nullopt;
  auto chunks = split_top_level(source);
  if (!chunks || chunks->size() < 2) return std::nullopt;
  // A chunk matters when it names an API, sets an instance attribute the table names, rebinds module
  // names from outside (global/nonlocal), or uses a name that something relevant bound (an
  // alias, a partial, a subclass). Module statements are always parsed (constants live there);
  // a relevant one contributes every name it binds. Repeat until nothing changes.
  std::vector<char> keep(chunks->size(), 0);
  std::vector<char> relevant(chunks->size(), 0);
  std::vector<std::string_view> interesting;
  auto text_of = [&](std::size_t k) {
    return source.substr((*chunks)[k].begin, (*chunks)[k].end - (*chunks)[k].begin);
  };
  for (std::size_t k = 0; k < chunks->size(); ++k) {
    const TopLevelChunk& chunk = (*chunks)[k];
    const std::string_view text = text_of(k);
    if (!chunk.is_definition) keep[k] = 1;
    if (names_a_trigger(text) ||
        (chunk.is_definition && (mentions_word(text, "global") || mentions_word(text, "nonlocal") ||
                                 assigns_attribute(text, attributes))))
      relevant[k] = 1;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t k = 0; k < chunks->size(); ++k) {
      if (!relevant[k]) {
        const std::string_view text = text_of(k);
        if (!std::any_of(interesting.begin(), interesting.end(), [&](std::string_view w) { return mentions_word(text, w); }))
          continue;
        relevant[k] = 1;
      } else if (relevant[k] == 2) {
        continue;  // already harvested
      }
      relevant[k] = 2;
      keep[k] = 1;
      changed = true;
      const TopLevelChunk& chunk = (*chunks)[k];
      if (chunk.is_definition) {
        if (chunk.is_class) interesting.push_back(chunk.name);
      } else {
        bound_names(text_of(k), interesting, [&](std::string_view word) {
          return names_a_trigger(word) ||
                 std::find(interesting.begin(), interesting.end(), word) != interesting.end();
        });
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
  for (std::size_t k = 0; k < chunks->size(); ++k) {
    const TopLevelChunk& chunk = (*chunks)[k];
    if (!keep[k]) {
      if (!chunk.name.empty()) plan.skipped_names.push_back(chunk.name);
      continue;
    }
    // Extend the previous range when chunks are adjacent: fewer, larger ranges.
    advance_rows(chunk.begin);
    const TSPoint start = point_at(source, chunk.begin, row);
    advance_rows(chunk.end);
    const TSPoint end = point_at(source, chunk.end, row);
    if (!plan.ranges.empty() && plan.ranges.back().end_byte == chunk.begin) {
      plan.ranges.back().end_byte = chunk.end;
      plan.ranges.back().end_point = end;
    } else {
      plan.ranges.push_back(TSRange{start, end, chunk.begin, chunk.end});
    }
    plan.parsed_bytes += chunk.end - chunk.begin;
  }
  if (plan.skipped_names.empty() || plan.ranges.empty()) return std::nullopt;  // nothing to gain
  return plan;
}

}  // namespace cudnnlint::python
