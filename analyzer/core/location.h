// Source positions shared by every stage of the pipeline. Front-ends fill them; emitters
// only format them. Columns are kept in two units because consumers disagree: text output
// and humans count code points, SARIF (columnKind utf16CodeUnits) and LSP count UTF-16 units.
#pragma once

#include <cstdint>
#include <string>

namespace cudnnlint {

struct Position {
  std::uint32_t line = 0;         // 1-based
  std::uint32_t column = 0;       // 1-based, in Unicode code points
  std::uint32_t column_utf16 = 0; // 1-based, in UTF-16 code units
  std::uint32_t byte_offset = 0;  // 0-based offset into the file
};

struct SourceRange {
  Position begin;
  Position end; // exclusive
};

// A range in a named file. `path` is the path as the user gave it or discovery found it.
struct Location {
  std::string path;
  SourceRange range;
};

} // namespace cudnnlint
