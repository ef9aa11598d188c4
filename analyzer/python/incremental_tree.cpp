#include "python/incremental_tree.h"

#include "python/module_parts.h"

#include <algorithm>

namespace cudnnlint::python {

namespace {

// tree-sitter's point of a byte offset: its row, and its column in bytes.
TSPoint point_at(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view head = text.substr(0, offset);
  const auto rows = static_cast<std::uint32_t>(std::count(head.begin(), head.end(), '\n'));
  const std::size_t line_start = head.rfind('\n') == std::string_view::npos ? 0 : head.rfind('\n') + 1;
  return TSPoint{rows, static_cast<std::uint32_t>(offset - line_start)};
}

// The point reached from `start` after `inserted`.
TSPoint advance(TSPoint start, std::string_view inserted) {
  const std::size_t last_newline = inserted.rfind('\n');
  if (last_newline == std::string_view::npos)
    return TSPoint{start.row, start.column + static_cast<std::uint32_t>(inserted.size())};
  const auto rows = static_cast<std::uint32_t>(std::count(inserted.begin(), inserted.end(), '\n'));
  return TSPoint{start.row + rows, static_cast<std::uint32_t>(inserted.size() - last_newline - 1)};
}

}  // namespace

ParsedSource::ParsedSource(std::string source, TreePtr edited, std::shared_ptr<ModulePartsCache> cache)
    : text(std::move(source)), parts(std::move(cache)), edited_(std::move(edited)) {}

const TSTree* ParsedSource::tree() const {
  std::call_once(once_, [this] {
    thread_local const Parser parser;
    tree_ = edited_ ? parser.reparse(text, edited_.get()) : parser.parse(text);
    edited_.reset();
    parsed_ = true;
  });
  return tree_.get();
}

bool ParsedSource::parsed() const { return parsed_; }

void IncrementalTree::adopt_parsed_snapshot() {
  if (current_ && current_->parsed() && current_->tree() != nullptr) tree_ = TreePtr(ts_tree_copy(current_->tree()));
}

void IncrementalTree::edit(std::string_view before, std::size_t begin, std::size_t old_end, std::string_view inserted) {
  adopt_parsed_snapshot();
  current_.reset();
  if (!tree_) return;  // nothing parsed yet: the next parse is whole anyway
  begin = std::min(begin, before.size());
  old_end = std::clamp(old_end, begin, before.size());
  TSInputEdit edit{};
  edit.start_byte = static_cast<std::uint32_t>(begin);
  edit.old_end_byte = static_cast<std::uint32_t>(old_end);
  edit.new_end_byte = static_cast<std::uint32_t>(begin + inserted.size());
  edit.start_point = point_at(before, begin);
  edit.old_end_point = point_at(before, old_end);
  edit.new_end_point = advance(edit.start_point, inserted);
  ts_tree_edit(tree_.get(), &edit);
}

void IncrementalTree::reset() {
  current_.reset();
  tree_.reset();
}

std::shared_ptr<const ParsedSource> IncrementalTree::parse(std::string_view text) {
  if (current_ && current_->text == text) return current_;
  adopt_parsed_snapshot();
  last_incremental_ = tree_ != nullptr;
  if (!parts_) parts_ = std::make_shared<ModulePartsCache>();
  // The snapshot gets its own copy (a reference count: cheap), so that the next edit, which
  // changes tree_ in place, cannot reach a tree an analysis still reads.
  current_ = std::make_shared<ParsedSource>(std::string(text), tree_ ? TreePtr(ts_tree_copy(tree_.get())) : nullptr,
                                            parts_);
  return current_;
}

}  // namespace cudnnlint::python
