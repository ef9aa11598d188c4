#include "server/documents.h"

#include "core/uri.h"

#include <algorithm>
#include <cctype>

namespace cudnnlint::server {

namespace {

// The length of the UTF-8 sequence a lead byte starts (1 for a stray continuation byte: each
// such byte counts as one unit, as it does for clients that decode leniently).
std::size_t sequence_length(unsigned char lead) {
  if (lead >= 0xF0 && lead < 0xF8) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

}  // namespace

Document::Document(std::string uri, std::string path, std::int64_t version, std::string text)
    : uri_(std::move(uri)), path_(std::move(path)), version_(version), text_(std::move(text)) {
  index_lines();
}

void Document::index_lines() {
  line_starts_.assign(1, 0);
  for (std::size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

std::size_t Document::offset_of(LspPosition position, PositionEncoding encoding) const {
  if (position.line >= line_starts_.size()) return text_.size();
  const std::size_t start = line_starts_[position.line];
  std::size_t end = position.line + 1 < line_starts_.size() ? line_starts_[position.line + 1] - 1 : text_.size();
  if (end > start && text_[end - 1] == '\r') --end;
  std::size_t at = start;
  for (std::uint32_t units = 0; at < end && units < position.character;) {
    const std::size_t length = std::min(sequence_length(static_cast<unsigned char>(text_[at])), end - at);
    const std::uint32_t width = encoding == PositionEncoding::Utf8 ? static_cast<std::uint32_t>(length)
                                : length == 4                       ? 2u
                                                                    : 1u;
    if (units + width > position.character) break;  // inside a character: its start
    units += width;
    at += length;
  }
  return at;
}

LspPosition Document::position_of(std::size_t byte_offset, PositionEncoding encoding) const {
  byte_offset = std::min(byte_offset, text_.size());
  const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), byte_offset);
  const std::size_t line = static_cast<std::size_t>(it - line_starts_.begin()) - 1;
  LspPosition position;
  position.line = static_cast<std::uint32_t>(line);
  for (std::size_t at = line_starts_[line]; at < byte_offset;) {
    const std::size_t length = std::min(sequence_length(static_cast<unsigned char>(text_[at])), byte_offset - at);
    position.character += encoding == PositionEncoding::Utf8 ? static_cast<std::uint32_t>(length)
                          : length == 4                       ? 2u
                                                              : 1u;
    at += length;
  }
  return position;
}

std::pair<std::size_t, std::size_t> Document::byte_range(const LspRange& range, PositionEncoding encoding) const {
  std::size_t begin = offset_of(range.start, encoding), end = offset_of(range.end, encoding);
  if (end < begin) std::swap(begin, end);
  return {begin, end};
}

void Document::apply(const std::optional<LspRange>& range, std::string_view text, PositionEncoding encoding) {
  if (!range) {
    text_.assign(text);
  } else {
    const auto [begin, end] = byte_range(*range, encoding);
    text_.replace(begin, end - begin, text);
  }
  index_lines();
}

std::optional<std::string> path_of_uri(std::string_view uri) {
  constexpr std::string_view scheme = "file://";
  if (uri.size() < scheme.size() || !std::equal(scheme.begin(), scheme.end(), uri.begin(), [](char a, char b) {
        return a == std::tolower(static_cast<unsigned char>(b));
      }))
    return std::nullopt;
  std::string_view rest = uri.substr(scheme.size());
  if (rest.starts_with("localhost/")) rest.remove_prefix(9);
  if (!rest.starts_with("/")) return std::nullopt;  // another host
  return percent_decode(rest);
}

}  // namespace cudnnlint::server
