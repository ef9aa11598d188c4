// Where a Python string literal ends, for the text scanners that run before (or instead of) a
// parse: the region planner and the comment scan.
#pragma once

#include "core/identifier.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint::python {

// `quote` indexes the literal's first quote character (after any prefix: r, b, f, u do not change
// where a literal ends, and a backslash never ends one). Returns the index just past its closing
// quotes; for a single-quoted literal left open, the index of the line end that stops it; for a
// triple-quoted one left open, the text's size.
inline std::size_t string_literal_end(std::string_view text, std::size_t quote) {
  const std::size_t n = text.size();
  const char c = text[quote];
  const bool triple = quote + 2 < n && text[quote + 1] == c && text[quote + 2] == c;
  std::size_t i = quote + (triple ? 3 : 1);
  while (i < n) {
    if (text[i] == '\\') {
      i += 2;
      continue;
    }
    if (!triple && (text[i] == '\n' || text[i] == '\r')) return i;
    if (text[i] == c && (!triple || (i + 2 < n && text[i + 1] == c && text[i + 2] == c))) return i + (triple ? 3 : 1);
    ++i;
  }
  return n;
}

// `text` with every comment blanked, byte for byte (strings kept: a name in one may still be called,
// through getattr): positions in it are the text's.
inline std::string blank_comments(std::string_view text) {
  std::string out(text);
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '#') {
      while (i < text.size() && text[i] != '\n') out[i++] = ' ';
    } else if (text[i] == '"' || text[i] == '\'') {
      i = string_literal_end(text, i);
    } else {
      ++i;
    }
  }
  return out;
}

// Where `name` stands in `source` as a whole identifier; `dotted`: only after a '.' (an attribute),
// else only not after one (a plain name).
inline std::vector<std::size_t> name_positions(std::string_view source, std::string_view name, bool dotted) {
  std::vector<std::size_t> out;
  if (name.empty()) return out;
  for (std::size_t at = source.find(name); at != std::string_view::npos; at = source.find(name, at + 1)) {
    if (at > 0 && is_identifier_char(source[at - 1])) continue;
    const std::size_t end = at + name.size();
    if (end < source.size() && is_identifier_char(source[end])) continue;
    std::size_t before = at;
    while (before > 0 && (source[before - 1] == ' ' || source[before - 1] == '\t')) --before;
    const bool after_dot = before > 0 && source[before - 1] == '.';
    if (after_dot == dotted) out.push_back(at);
  }
  return out;
}

// `alias = Owner(...).method` on one line (a module statement binding a method of a new instance):
// its three names, as views into `line`, which starts at the alias; nullopt for anything else.
struct BoundMethodStatement {
  std::string_view alias, owner, method;
};
inline std::optional<BoundMethodStatement> bound_method_statement(std::string_view line) {
  std::size_t at = 0;
  const auto identifier = [&] {
    const std::size_t begin = at;
    while (at < line.size() && is_identifier_char(line[at])) ++at;
    const std::string_view name = line.substr(begin, at - begin);
    return is_identifier(name) ? name : std::string_view{};
  };
  const auto blanks = [&] {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
  };
  BoundMethodStatement out;
  out.alias = identifier();
  blanks();
  if (out.alias.empty() || at >= line.size() || line[at] != '=' || (at + 1 < line.size() && line[at + 1] == '='))
    return std::nullopt;
  ++at;
  blanks();
  out.owner = identifier();
  if (out.owner.empty() || at >= line.size() || line[at] != '(') return std::nullopt;
  for (int depth = 0; at < line.size(); ++at) {
    if (line[at] == '\n') return std::nullopt;
    if (line[at] == '(') ++depth;
    if (line[at] == ')' && --depth == 0) break;
  }
  if (at >= line.size()) return std::nullopt;
  ++at;
  blanks();
  if (at >= line.size() || line[at] != '.') return std::nullopt;
  ++at;
  blanks();
  out.method = identifier();
  blanks();
  if (out.method.empty() || (at < line.size() && line[at] != '\n' && line[at] != '\r' && line[at] != '#'))
    return std::nullopt;
  return out;
}

}  // namespace cudnnlint::python
