#include "core/uri.h"

namespace cudnnlint {

namespace {

// Bytes a path keeps as they are. ASCII by hand: std::isalnum follows the locale.
bool is_unreserved_path_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~' || c == '/';
}

}  // namespace

std::string percent_encode_path(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(path.size());
  for (const char byte : path) {
    const auto c = static_cast<unsigned char>(byte);
    if (is_unreserved_path_byte(c)) {
      out.push_back(byte);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

std::string file_uri(std::string_view absolute_path) { return "file://" + percent_encode_path(absolute_path); }

}  // namespace cudnnlint
