// Reading one source file exactly once, rejecting what cannot be analysed (missing,
// unreadable, too large, binary, invalid UTF-8) with a message that names the problem,
// and mapping byte offsets to line/column positions.
#pragma once

#include "core/location.h"
#include "core/notebook.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cudnnlint {

class SourceFile {
 public:
  SourceFile(std::string path, std::string text);

  const std::string& path() const { return path_; }
  // The whole file as read, BOM included.
  const std::string& text() const { return text_; }
  // Offset of the first byte after a UTF-8 byte-order mark (0 or 3).
  std::size_t content_offset() const { return content_offset_; }

  Position position_at(std::size_t byte_offset) const;
  SourceRange range(std::size_t begin_byte, std::size_t end_byte) const;
  // The text of 1-based line `line`, without its terminator.
  std::string_view line_text(std::uint32_t line) const;
  std::size_t line_count() const;
  // A notebook's code cells read as this module (path ends with .ipynb): where its lines are in the
  // notebook. Null for every other file.
  const NotebookIndex* notebook() const { return notebook_.get(); }
  void set_notebook(std::shared_ptr<const NotebookIndex> index) { notebook_ = std::move(index); }

 private:
  const std::vector<std::size_t>& line_starts() const;
  std::string path_;
  std::string text_;
  std::size_t content_offset_ = 0;
  // Byte offset of each line's first byte, built on first use. A SourceFile is used by one
  // thread at a time.
  mutable std::vector<std::size_t> line_starts_;
  std::shared_ptr<const NotebookIndex> notebook_;
};

struct LoadError {
  std::string message;  // e.g. "invalid UTF-8 at line 3, byte 17"
};

struct LoadLimits {
  std::uintmax_t max_bytes = 4u * 1024u * 1024u;
  bool require_utf8 = true;  // Python source must be UTF-8; C++ need not be (clang reads bytes)
  // Texts that stand for files on disk, by path as the run spells it: an editor's unsaved buffers
  // (the language server). Read instead of the file, with the same checks.
  std::shared_ptr<const std::map<std::string, std::string, std::less<>>> overlay;
};

std::variant<SourceFile, LoadError> load_source_file(const std::string& path, const LoadLimits& limits);

// A file's bytes as they are, with no limits or checks; nullopt when it cannot be opened or read.
std::optional<std::string> read_file_bytes(const std::string& path);

// Returns the byte offset of the first invalid UTF-8 sequence, or npos when the text is valid.
std::size_t find_invalid_utf8(std::string_view text);

// Where a TOML text has a non-ASCII character outside its strings and comments (TOML 1.0 allows
// none there), or npos. toml++ 3.3 reaches __builtin_unreachable on such input (found by
// tests/fuzz/fuzz_config.cpp), so readers refuse it first.
std::size_t find_toml_non_ascii_outside_strings(std::string_view text);
// `text` with every non-ASCII byte made 'x', byte for byte (lines and columns stay): what toml++ 3.3
// can read safely, since it also reaches __builtin_unreachable on non-ASCII bytes where it expects
// whitespace, in valid and invalid documents alike.
std::string toml_ascii_copy(std::string_view text);

// `text` with every byte that is not part of valid UTF-8 replaced by U+FFFD: what leaves the tool
// (file names, clang's messages quoting source bytes) is always valid UTF-8.
std::string valid_utf8(std::string_view text);

// Number of UTF-16 code units and of code points in a valid UTF-8 string.
std::size_t utf16_length(std::string_view utf8);
std::size_t codepoint_length(std::string_view utf8);

} // namespace cudnnlint
