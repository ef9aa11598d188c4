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
      named_expression, case_pattern, pattern_list, tuple_pattern, list_pattern, expression_list,
      conditional_expression;
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

// The statements of `block` that run once each, in order, when it runs to its end, as readers of
// straight-line code (a model's forward, its __init__) want them: a `with` block's own statements
// (the context managers enter before them and leave after), a `try` block's when every except
// clause re-raises (then its else and finally blocks'), and the body of `for _ in range(1):` (then
// its else block's). Any other compound statement is in the list as it is: a reader stops there,
// as it would at a branch. Nesting is followed four levels deep; deeper blocks stay whole.
std::vector<TSNode> straight_line_statements(TSNode block, std::string_view source);
// Whether a block runs exactly once whenever the statement owning it runs, as
// straight_line_statements follows it: a `with` body, the body of a `try` whose handlers only
// re-raise, a `for _ in range(1)` body.
bool block_runs_once(TSNode block, std::string_view source);
// The straight-line statements of a function's body (straight_line_statements), comments left out; when the body only
// defines a closure without parameters and returns its call (`def inner(): ...` then `return
// inner()`), the closure's, up to four closures deep.
std::vector<TSNode> function_statements(TSNode function_definition, std::string_view source);

}  // namespace cudnnlint::python

namespace cudnnlint::python {

// What of a whole module's tree a walk enters: the nodes that overlap one of `ranges` (a region
// plan's, sorted), or every node when `ranges` is empty. The language server keeps its document's
// whole tree and walks in it only what a command-line run's region parse holds: the statements
// left out of the parse are neither visited nor left.
struct RegionFilter {
  std::span<const TSRange> ranges;
  enum class Overlap { Outside, Straddles, Inside };
  Overlap overlap(TSNode node) const;
};

// Whether `ranges` cut the module `root` the way a region parse of it would: every node that
// straddles a range's edge is the module, a definition or a block, and the others lie inside one
// range or outside all (comments aside). A plan whose small lexer misread the text cuts elsewhere;
// the tree is then walked whole.
bool cuts_between_statements(TSNode root, std::span<const TSRange> ranges);

// Depth-first walk over every node under `root` with a single cursor (no per-node
// allocation, no O(n) child indexing). `visit(node, cursor)` returns true to descend (the
// cursor is there to ask for the node's field only when that matters: it is not free);
// `leave(node)` runs after the children of every node whose visit returned true. The nodes that
// `region` leaves out are neither visited nor left.
template <class Visit, class Leave>
void walk_tree(TSNode root, Visit&& visit, Leave&& leave, RegionFilter region = {}) {
  // A missing field (`x: int` has no right-hand side) is nothing to walk, not a cursor to make.
  if (ts_node_is_null(root)) return;
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  struct CursorGuard {
    TSTreeCursor* cursor;
    ~CursorGuard() { ts_tree_cursor_delete(cursor); }
  } guard{&cursor};
  // kInside: entered, and inside one range (its children need no test).
  enum : char { kPassed, kEntered, kInside, kSkipped };
  std::vector<char> entered;
  auto step_in = [&](bool test) {
    const TSNode node = ts_tree_cursor_current_node(&cursor);
    auto overlap = RegionFilter::Overlap::Inside;
    if (test) {
      overlap = region.overlap(node);
      if (overlap == RegionFilter::Overlap::Outside) {
        entered.push_back(kSkipped);
        return;
      }
    }
    const bool enter = visit(node, static_cast<const TSTreeCursor*>(&cursor));
    entered.push_back(!enter ? kPassed : overlap == RegionFilter::Overlap::Inside ? kInside : kEntered);
  };
  step_in(!region.ranges.empty());
  for (;;) {
    const char state = entered.back();
    if ((state == kEntered || state == kInside) && ts_tree_cursor_goto_first_child(&cursor)) {
      step_in(state == kEntered);
      continue;
    }
    for (;;) {
      if (entered.back() == kEntered || entered.back() == kInside) leave(ts_tree_cursor_current_node(&cursor));
      entered.pop_back();
      if (entered.empty()) return;
      if (ts_tree_cursor_goto_next_sibling(&cursor)) {
        // The siblings of a node are tested when their parent straddles.
        step_in(entered.back() == kEntered);
        break;
      }
      ts_tree_cursor_goto_parent(&cursor);
    }
  }
}

}  // namespace cudnnlint::python
