// A Python text's syntax tree kept across edits, for the language server: each edit is told to
// the old tree (ts_tree_edit), and the next parse reuses every subtree the edits did not reach,
// so a keystroke in a 5,000-line file costs a reparse of a few statements, not of the file.
#pragma once

#include "python/syntax.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace cudnnlint::python {

// A text and its tree, handed to the analysis (PythonOptions::parsed), which uses the tree when
// the file it reads is this text, byte for byte.
class ModulePartsCache;  // python/module_parts.h

struct ParsedSource {
  std::string text;
  TreePtr tree;
  // The facts of the document's parts from its last analysis, kept across edits (shared by every
  // snapshot of one document).
  std::shared_ptr<ModulePartsCache> parts;
};

class IncrementalTree {
 public:
  // Bytes [begin, old_end) of `before` (the text as it was before this edit, after the earlier
  // ones) were replaced by `inserted`.
  void edit(std::string_view before, std::size_t begin, std::size_t old_end, std::string_view inserted);
  // The whole text was replaced: the next parse starts from nothing.
  void reset();
  // The tree of `text`, the text after every edit told: reparsed incrementally when edits came
  // since the last call. Each call after an edit returns a new snapshot; earlier ones stay valid.
  std::shared_ptr<const ParsedSource> parse(std::string_view text);
  // Whether the last parse reused an earlier tree (false for the first, and after reset()).
  bool last_parse_was_incremental() const { return last_incremental_; }

 private:
  Parser parser_;
  TreePtr tree_;                                 // the last tree, with the edits since told
  std::shared_ptr<const ParsedSource> current_;  // the last snapshot; null after an edit
  std::shared_ptr<ModulePartsCache> parts_;
  bool last_incremental_ = false;
};

}  // namespace cudnnlint::python
