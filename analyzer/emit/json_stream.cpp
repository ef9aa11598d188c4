#include "emit/json_stream.h"

#include <stdexcept>
#include <string>

namespace cudnnlint {

namespace {

std::string dump(const nlohmann::json& value) {
  return value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

// dump(2) of `value` as it appears nested `depth` levels deep: every line after the first indented.
void write_nested(std::ostream& out, const std::string& text, const std::string& indent) {
  std::size_t begin = 0;
  for (std::size_t newline; (newline = text.find('\n', begin)) != std::string::npos; begin = newline + 1) {
    out.write(text.data() + begin, static_cast<std::streamsize>(newline + 1 - begin));
    out << indent;
  }
  out.write(text.data() + begin, static_cast<std::streamsize>(text.size() - begin));
}

}  // namespace

void write_with_streamed_array(std::ostream& out, const nlohmann::json& document, std::string_view key, int depth,
                               std::size_t count, const std::function<nlohmann::json(std::size_t)>& element) {
  const std::string text = dump(document);
  // dump() escapes every newline inside a string, so a raw newline and the indentation before the
  // key can only be the member itself.
  const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
  const std::string member = "\n" + indent + dump(nlohmann::json(std::string(key))) + ": " +
                             dump(nlohmann::json(std::string(kStreamedArrayMarker)));
  const std::size_t at = text.find(member);
  if (at == std::string::npos || text.find(member, at + 1) != std::string::npos)
    throw std::logic_error("write_with_streamed_array: the marker for \"" + std::string(key) + "\" is not there once");
  const std::size_t value_at = at + member.size() - dump(nlohmann::json(std::string(kStreamedArrayMarker))).size();
  out.write(text.data(), static_cast<std::streamsize>(value_at));
  if (count == 0) {
    out << "[]";
  } else {
    const std::string element_indent = indent + "  ";
    out << "[\n" << element_indent;
    for (std::size_t i = 0; i < count; ++i) {
      if (i > 0) out << ",\n" << element_indent;
      write_nested(out, dump(element(i)), element_indent);
    }
    out << '\n' << indent << ']';
  }
  const std::size_t rest = at + member.size();
  out.write(text.data() + rest, static_cast<std::streamsize>(text.size() - rest));
  out << '\n';
}

}  // namespace cudnnlint
