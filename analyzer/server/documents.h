// The documents a client has open: their text as the client holds it (unsaved edits included),
// kept in step with didChange's incremental edits. LSP positions count a line's characters in
// the negotiated encoding: UTF-16 code units by default, UTF-8 bytes when both sides agree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudnnlint::server {

enum class PositionEncoding { Utf8, Utf16 };

struct LspPosition {
  std::uint32_t line = 0;       // 0-based
  std::uint32_t character = 0;  // 0-based, in the encoding's units
  bool operator==(const LspPosition&) const = default;
};

struct LspRange {
  LspPosition start, end;
};

class Document {
 public:
  Document(std::string uri, std::string path, std::int64_t version, std::string text);

  const std::string& uri() const { return uri_; }
  const std::string& path() const { return path_; }
  std::int64_t version() const { return version_; }
  const std::string& text() const { return text_; }
  void set_version(std::int64_t version) { version_ = version; }

  // One element of didChange's contentChanges: `range` replaced by `text`, or (no range) the whole
  // text. Positions past a line's end stand for its end, lines past the last for the text's end.
  void apply(const std::optional<LspRange>& range, std::string_view text, PositionEncoding encoding);

  // The bytes [first, second) a range covers, in order.
  std::pair<std::size_t, std::size_t> byte_range(const LspRange& range, PositionEncoding encoding) const;
  std::size_t offset_of(LspPosition position, PositionEncoding encoding) const;
  LspPosition position_of(std::size_t byte_offset, PositionEncoding encoding) const;

 private:
  void index_lines();
  std::string uri_, path_;
  std::int64_t version_;
  std::string text_;
  std::vector<std::size_t> line_starts_;
};

// file:///a%20b/c.py -> /a b/c.py (core/uri.h's file_uri the other way); nullopt for a URI that
// is not a local file.
std::optional<std::string> path_of_uri(std::string_view uri);

}  // namespace cudnnlint::server
