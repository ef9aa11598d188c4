#include "python/comments.h"

#include "core/suppression.h"

namespace cudnnlint::python {

void for_each_comment(std::string_view source, const std::function<void(std::size_t, std::string_view)>& on_comment) {
  const std::size_t n = source.size();
  std::size_t i = 0;
  while (i < n) {
    const char c = source[i];
    if (c == '#') {
      std::size_t end = i;
      while (end < n && source[end] != '\n' && source[end] != '\r') ++end;
      on_comment(i, source.substr(i, end - i));
      i = end;
      continue;
    }
    if (c == '\'' || c == '"') {
      // Prefixes (r, b, f, u) do not change where a literal ends, only what a backslash means
      // inside it, and a backslash never ends one.
      const bool triple = i + 2 < n && source[i + 1] == c && source[i + 2] == c;
      i += triple ? 3 : 1;
      while (i < n) {
        if (source[i] == '\\') {
          i += 2;
          continue;
        }
        if (!triple && (source[i] == '\n' || source[i] == '\r')) break;  // unterminated: the line ends it
        if (source[i] == c && (!triple || (i + 2 < n && source[i + 1] == c && source[i + 2] == c))) {
          i += triple ? 3 : 1;
          break;
        }
        ++i;
      }
      continue;
    }
    ++i;
  }
}

std::vector<SuppressionComment> suppression_comments(std::string_view source,
                                                     const std::function<std::uint32_t(std::size_t)>& line_of) {
  std::vector<SuppressionComment> out;
  // Most files hold none: skip the scan unless a marker is there at all.
  if (source.find("cudnnlint:") == std::string_view::npos && source.find("noqa:") == std::string_view::npos) return out;
  for_each_comment(source, [&](std::size_t offset, std::string_view text) {
    if (auto s = parse_suppression(text, line_of(offset))) out.push_back(std::move(*s));
  });
  return out;
}

}  // namespace cudnnlint::python
