#include "core/printable.h"

#include "core/source_file.h"

namespace cudnnlint {

namespace {

bool is_c0_or_del(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; }

// In valid UTF-8, U+0080..U+009F are 0xC2 followed by 0x80..0x9F.
bool is_c1_at(std::string_view text, std::size_t i) {
  return static_cast<unsigned char>(text[i]) == 0xC2 && i + 1 < text.size() &&
         static_cast<unsigned char>(text[i + 1]) < 0xA0;
}

void append_hex(std::string& out, const char* prefix, unsigned char value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out += prefix;
  out += kDigits[value >> 4];
  out += kDigits[value & 0xF];
}

// Appends the printable form of the code point at `i` (valid UTF-8); returns its length in bytes.
std::size_t append_printable(std::string& out, std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (is_c1_at(text, i)) {
    append_hex(out, "\\u00", static_cast<unsigned char>(text[i + 1]));
    return 2;
  }
  if (c == '\n') out += "\\n";
  else if (c == '\r') out += "\\r";
  else if (is_c0_or_del(c)) append_hex(out, "\\x", c);
  else out += text[i];
  return 1;
}

}  // namespace

bool is_printable(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (is_c0_or_del(static_cast<unsigned char>(text[i])) || is_c1_at(text, i)) return false;
  return find_invalid_utf8(text) == std::string_view::npos;
}

std::string printable(std::string_view text) {
  if (is_printable(text)) return std::string(text);
  const std::string valid = valid_utf8(text);
  std::string out;
  out.reserve(valid.size() + 16);
  for (std::size_t i = 0; i < valid.size();) i += append_printable(out, valid, i);
  return out;
}

std::size_t printable_columns(std::string_view text, std::size_t code_points) {
  // What append_printable() writes, counted without writing it: this runs once per finding on
  // its source line, which may be long.
  std::size_t columns = 0;
  std::size_t i = 0;
  for (; code_points > 0 && i < text.size(); --code_points) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_c1_at(text, i)) columns += 6;            // \u00NN
    else if (c == '\n' || c == '\r') columns += 2;  // \n, \r
    else columns += is_c0_or_del(c) ? 4 : 1;       // \xNN
    for (++i; i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;) ++i;
  }
  return columns + code_points;
}

}  // namespace cudnnlint
