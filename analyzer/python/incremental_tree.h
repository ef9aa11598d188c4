// A Python text's syntax tree kept across edits, for the language server: each edit is told to
// the old tree (ts_tree_edit), and the next parse reuses every subtree the edits did not reach,
// so a keystroke in a 5,000-line file costs a reparse of a few statements, not of the file.
// The parse is made when an analysis first asks for the tree: an analysis by parts
// (python/module_parts.h) parses only the parts an edit touched, and never asks. (tree-sitter 0.20
// reparses half of a 5,000-line file when an edit undoes the one before it: 28 ms, measured.)
#pragma once

#include "python/syntax.h"

#include <cstddef>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace cudnnlint::python {

class ModulePartsCache;  // python/module_parts.h

// A text and its tree, handed to the analysis (PythonOptions::parsed), which uses the tree when
// the file it reads is this text, byte for byte.
class ParsedSource {
 public:
  // `edited`: an earlier tree of the document, told of every edit since (null: parse from nothing).
  ParsedSource(std::string text, TreePtr edited, std::shared_ptr<ModulePartsCache> parts);
  explicit ParsedSource(std::string text) : ParsedSource(std::move(text), nullptr, nullptr) {}

  const std::string text;
  // The facts of the document's parts from its last analysis, kept across edits (shared by every
  // snapshot of one document); null outside the server.
  const std::shared_ptr<ModulePartsCache> parts;

  // The tree of `text`, parsed on the first call (from any thread); null if the parser gave up.
  const TSTree* tree() const;
  // Whether tree() has been parsed.
  bool parsed() const;

 private:
  mutable std::once_flag once_;  // tree_ is written once, under it
  mutable TreePtr edited_;
  mutable TreePtr tree_;
  mutable std::atomic<bool> parsed_ = false;
};

class IncrementalTree {
 public:
  // Bytes [begin, old_end) of `before` (the text as it was before this edit, after the earlier
  // ones) were replaced by `inserted`.
  void edit(std::string_view before, std::size_t begin, std::size_t old_end, std::string_view inserted);
  // The whole text was replaced: the next parse starts from nothing.
  void reset();
  // A snapshot of `text`, the text after every edit told, whose tree is reparsed incrementally
  // when first asked for. Each call after an edit returns a new snapshot; earlier ones stay valid.
  std::shared_ptr<const ParsedSource> parse(std::string_view text);
  // Whether the last snapshot's tree comes from an earlier tree (false for the first, and after
  // reset()).
  bool last_parse_was_incremental() const { return last_incremental_; }

 private:
  // The last snapshot's tree, when an analysis asked for it, is the newest tree: edits go to it.
  void adopt_parsed_snapshot();

  TreePtr tree_;                                 // the last tree known, with the edits since told
  std::shared_ptr<const ParsedSource> current_;  // the last snapshot; null after an edit
  std::shared_ptr<ModulePartsCache> parts_;
  bool last_incremental_ = false;
};

}  // namespace cudnnlint::python
