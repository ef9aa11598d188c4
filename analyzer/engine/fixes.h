// Fixes (README: "Fixes"): a rule attaches edits to a finding; the engine checks them against the
// file, and --fix / --diff apply them in memory, re-parse the result and write it atomically.
#pragma once

#include "core/finding.h"
#include "core/source_file.h"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint {

// Checks each edit of `finding.fix` against the file's `text`: the bytes it expects, or for a new
// argument the call's ')' (and writes the separator the text before it needs). Drops the fix when
// the file says otherwise.
void settle_fix(Finding& finding, const SourceFile& file);

// One file's fixes, applied in memory.
struct FileFix {
  std::string path;
  std::string before, after;
  std::vector<std::string> applied;  // "line:column rule-id: description", in file order
  std::string error;                 // why the file is left alone; "" when it is (to be) written
};

struct FixPlan {
  std::vector<FileFix> files;    // in path order
  std::size_t unsafe_left = 0;   // fixes not applied because they are unsafe and --unsafe-fixes is off
  std::size_t overlapping = 0;   // fixes left for a later run: they overlap one applied before them
};

// The fixes of `findings` (the safe ones; with `unsafe`, all), per file, applied in memory to the
// file as it is on disk now. A file whose result no longer parses keeps its text, with an error.
// A file is refused, with an error, unless it is a regular file inside one of the `analysed`
// paths (links resolved) whose bytes hash as every fix's `file_hash` says: a finding that came
// from elsewhere (a cache entry, a stale run) cannot make --fix write anywhere else.
FixPlan plan_fixes(std::span<const Finding> findings, bool unsafe, std::span<const std::string> analysed);

// Writes each planned file that changes: a temporary file in the same folder, then rename, so a
// reader sees the old file or the new one, never a part. The file must still hold what the plan was
// made from. It is read back and re-parsed after the rename, and restored if either check fails.
void write_fixes(FixPlan& plan);

// Whether `text` of `path` parses after a fix (Python: tree-sitter; other languages have no fixes).
bool fixed_text_parses(std::string_view path, std::string_view text);

}  // namespace cudnnlint
