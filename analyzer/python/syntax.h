// Thin RAII and lookup helpers over the tree-sitter C API for the Python grammar. The rest
// of the front-end speaks in these terms; no other part of cudnnlint sees tree-sitter.
#pragma once

#include <tree_sitter/api.h>

#include <memory>
#include <span>
#include <vector>
#include <string_view>

extern "C" const TSLanguage* tree_sitter_python(void);

namespace cudnnlint::python {

struct TreeDeleter {
  void operator()(TSTree* tree) const { ts_tree_delete(tree); }
};
struct ParserDeleter {
  void operator()(TSParser* parser) const { ts_parser_delete(parser); }
};
using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;
using ParserPtr = std::unique_ptr<TSParser, ParserDeleter>;

// Symbol and field ids of the node kinds the front-end looks at, resolved once per process.
struct Grammar {
  TSSymbol module, import_statement, import_from_statement, aliased_import, dotted_name, wildcard_import,
      identifier, attribute, call, argument_list, keyword_argument, list_splat, dictionary_splat, integer,
      float_, unary_operator, binary_operator, parenthesized_expression, assignment, augmented_assignment,
      function_definition, class_definition, lambda, if_statement, elif_clause, boolean_operator, comment,
      string, tuple, true_, false_, for_statement, with_statement, as_pattern, global_statement,
      nonlocal_statement, default_parameter, typed_default_parameter, decorated_definition,
      expression_statement, block, subscript, for_in_clause, else_clause, while_statement, try_statement,
      except_clause, finally_clause, with_clause, with_item, match_statement, case_clause,
      except_group_clause, list_comprehension, set_comprehension, dictionary_comprehension,
      generator_expression, typed_parameter, list_splat_pattern, dictionary_splat_pattern, keyword_separator,
      comparison_operator, dictionary, pair, list, none, return_statement, concatenated_string, string_content,
      named_expression, case_pattern, pattern_list, tuple_pattern, list_pattern;
  TSFieldId f_name, f_alias, f_module_name, f_function, f_arguments, f_object, f_attribute, f_left, f_right,
      f_operator, f_argument, f_value, f_condition, f_superclasses, f_parameters, f_consequence, f_body, f_key,
      f_subscript, f_type;

  static const Grammar& get();
};

// A parser bound to the Python grammar. Not thread-safe: use one per thread.
class Parser {
 public:
  Parser();
  // Parses `text`; byte offsets in the tree are relative to `text`. With `ranges`, only those
  // parts of `text` are parsed (tree-sitter included ranges).
  TreePtr parse(std::string_view text, std::span<const TSRange> ranges = {}) const;
  // Parses `text` again, reusing every subtree of `old` (a tree already told of the edits, with
  // ts_tree_edit) that the edits did not reach.
  TreePtr reparse(std::string_view text, const TSTree* old) const;

 private:
  ParserPtr parser_;
};

inline std::string_view node_text(TSNode node, std::string_view source) {
  const auto begin = ts_node_start_byte(node);
  const auto end = ts_node_end_byte(node);
  if (begin >= source.size() || end > source.size() || end < begin) return {};
  return source.substr(begin, end - begin);
}

inline bool is(TSNode node, TSSymbol symbol) { return !ts_node_is_null(node) && ts_node_symbol(node) == symbol; }

inline TSNode field(TSNode node, TSFieldId id) { return ts_node_child_by_field_id(node, id); }

// The named children of `node`, in order, in one pass of a cursor. ts_node_named_child(node, i)
// walks from the first child on every call, so a loop over i is quadratic: on timm's model files
// (dictionaries of hundreds of configurations, calls of dozens of arguments) that loop was a
// tenth of the analysis.
std::vector<TSNode> named_children(TSNode node);

}  // namespace cudnnlint::python

namespace cudnnlint::python {

// Depth-first walk over every node under `root` with a single cursor (no per-node
// allocation, no O(n) child indexing). `visit(node, cursor)` returns true to descend (the
// cursor is there to ask for the node's field only when that matters: it is not free);
// `leave(node)` runs after the children of every node whose visit returned true.
template <class Visit, class Leave>
void walk_tree(TSNode root, Visit&& visit, Leave&& leave) {
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  struct CursorGuard {
    TSTreeCursor* cursor;
    ~CursorGuard() { ts_tree_cursor_delete(cursor); }
  } guard{&cursor};
  std::vector<char> entered;
  entered.push_back(visit(root, static_cast<const TSTreeCursor*>(&cursor)) ? 1 : 0);
  for (;;) {
    if (entered.back() && ts_tree_cursor_goto_first_child(&cursor)) {
      entered.push_back(visit(ts_tree_cursor_current_node(&cursor), static_cast<const TSTreeCursor*>(&cursor)) ? 1 : 0);
      continue;
    }
    for (;;) {
      if (entered.back()) leave(ts_tree_cursor_current_node(&cursor));
      entered.pop_back();
      if (entered.empty()) return;
      if (ts_tree_cursor_goto_next_sibling(&cursor)) {
        entered.push_back(visit(ts_tree_cursor_current_node(&cursor), static_cast<const TSTreeCursor*>(&cursor)) ? 1 : 0);
        break;
      }
      ts_tree_cursor_goto_parent(&cursor);
    }
  }
}

}  // namespace cudnnlint::python
