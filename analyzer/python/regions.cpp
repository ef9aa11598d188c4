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

std::size_t skip_blanks(std::string_view text, std::size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  return at;
}

// Fills in is_definition / is_class / name from the statement text (after decorators).
void classify(TopLevelChunk& chunk, std::string_view text) {
  std::size_t at = skip_blanks(text, 0);
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

// Names a module statement binds with `a = ...`, `a: T = ...` or `a, b = ...`.
void assigned_names(std::string_view text, std::vector<std::string_view>& out) {
  std::size_t at = 0;
  for (;;) {
    at = skip_blanks(text, at);
    const std::string_view name = identifier_at(text, at);
    if (name.empty()) return;
    out.push_back(name);
    at = skip_blanks(text, at + name.size());
    if (at < text.size() && text[at] == ',') {
      ++at;
      continue;
    }
    return;
  }
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
        const char c = source[i];
        if (c != ' ' && c != '\t' && c != '\f' && c != '#' && c != '\n' && c != '\r')
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

std::optional<ParsePlan> plan_parse(std::string_view source, const std::vector<std::string>& trigger_tokens) {
  // A lone CR ends a line for Python but not for tree-sitter's row count: keep such files simple.
  for (std::size_t at = source.find('\r'); at != std::string_view::npos; at = source.find('\r', at + 1))
    if (at + 1 >= source.size() || source[at + 1] != '\n') return std::nullopt;
  auto chunks = split_top_level(source);
  if (!chunks || chunks->size() < 2) return std::nullopt;
  std::vector<char> keep(chunks->size(), 0);
  std::vector<std::string_view> interesting;
  for (std::size_t k = 0; k < chunks->size(); ++k) {
    const TopLevelChunk& chunk = (*chunks)[k];
    const std::string_view text = source.substr(chunk.begin, chunk.end - chunk.begin);
    if (!chunk.is_definition) {
      keep[k] = 1;  // imports, constants, aliases, partials, module-level control flow
      if (mentions_any(text, trigger_tokens)) {
        const std::size_t first = source.find_first_not_of(" \t\f\r\n", chunk.begin);
        assigned_names(source.substr(first, chunk.end - first), interesting);
      }
    } else if (mentions_any(text, trigger_tokens) || mentions_word(text, "global") ||
               mentions_word(text, "nonlocal")) {
      keep[k] = 1;
      if (chunk.is_class) interesting.push_back(chunk.name);
    }
  }
  // Definitions that use a name bound to a batch-norm API (an alias, a partial, a subclass)
  // matter too, and may bind further such names: repeat until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t k = 0; k < chunks->size(); ++k) {
      if (keep[k]) continue;
      const TopLevelChunk& chunk = (*chunks)[k];
      const std::string_view text = source.substr(chunk.begin, chunk.end - chunk.begin);
      if (std::any_of(interesting.begin(), interesting.end(), [&](std::string_view w) { return mentions_word(text, w); })) {
        keep[k] = 1;
        changed = true;
        if (chunk.is_class) interesting.push_back(chunk.name);
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
