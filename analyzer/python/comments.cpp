#include "python/comments.h"

#include "core/suppression.h"
#include "python/lexing.h"

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
      i = string_literal_end(source, i);
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
