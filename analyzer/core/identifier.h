// What counts as a Python identifier, byte by byte: the one definition the scanners, the region
// planner's lexers, the import reader, the module index, the config readers and the log scanner
// share, so that no two of them disagree on where a name ends.
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace cudnnlint {

// Identifier bytes: ASCII letters, digits, '_' and every byte of a multi-byte UTF-8 character
// (Python 3 names may hold any of them). A table: the lexers ask this of nearly every byte.
inline constexpr std::array<bool, 256> kIdentifierByte = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c)
    table[static_cast<std::size_t>(c)] =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
  return table;
}();

inline bool is_identifier_char(char c) { return kIdentifierByte[static_cast<unsigned char>(c)]; }

// A whole identifier: identifier bytes only, not empty, not starting with a digit.
inline bool is_identifier(std::string_view text) {
  return !text.empty() && !(text[0] >= '0' && text[0] <= '9') &&
         std::all_of(text.begin(), text.end(), is_identifier_char);
}

}  // namespace cudnnlint
