// Untrusted text on its way to a terminal or a CI log: file names, source lines, log lines,
// config keys. A newline or CR in it could start a line of cudnnlint's output that the GitHub
// runner reads as a workflow command (`::error ...`), and ESC or a C1 control could move a
// terminal's cursor or retitle its window; shown as escapes they do neither.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cudnnlint {

// `text` with its control characters as visible escapes: `\n`, `\r`, and `\xNN` for the other C0
// controls and DEL, `\u00NN` for the C1 controls (U+0080..U+009F). Tabs stay: they move nothing
// but the column. Bytes that are not valid UTF-8 become U+FFFD, as everything that leaves the
// tool (valid_utf8). Text with none of these is returned unchanged.
std::string printable(std::string_view text);

// Whether printable(text) == text, without building it.
bool is_printable(std::string_view text);

// The columns that the first `code_points` code points of `text` take once printable() escapes
// them (an escaped control is several columns wide); past the end of `text`, one column each.
// For aligning a caret under a printed excerpt.
std::size_t printable_columns(std::string_view text, std::size_t code_points);

}  // namespace cudnnlint
