#include "python/syntax.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace cudnnlint::python {

namespace {

TSSymbol symbol(const TSLanguage* lang, const char* name, bool named = true) {
  const TSSymbol id = ts_language_symbol_for_name(lang, name, static_cast<uint32_t>(std::strlen(name)), named);
  if (id == 0) throw std::logic_error(std::string("tree-sitter-python has no node kind '") + name + "'");
  return id;
}

TSFieldId field_id(const TSLanguage* lang, const char* name) {
  const TSFieldId id = ts_language_field_id_for_name(lang, name, static_cast<uint32_t>(std::strlen(name)));
  if (id == 0) throw std::logic_error(std::string("tree-sitter-python has no field '") + name + "'");
  return id;
}

}  // namespace

const Grammar& Grammar::get() {
  static const Grammar grammar = [] {
    const TSLanguage* l = tree_sitter_python();
    Grammar g{};
    g.module = symbol(l, "module");
    g.import_statement = symbol(l, "import_statement");
    g.import_from_statement = symbol(l, "import_from_statement");
    g.aliased_import = symbol(l, "aliased_import");
    g.dotted_name = symbol(l, "dotted_name");
    g.wildcard_import = symbol(l, "wildcard_import");
    g.identifier = symbol(l, "identifier");
    g.attribute = symbol(l, "attribute");
    g.call = symbol(l, "call");
    g.argument_list = symbol(l, "argument_list");
    g.keyword_argument = symbol(l, "keyword_argument");
    g.list_splat = symbol(l, "list_splat");
    g.dictionary_splat = symbol(l, "dictionary_splat");
    g.integer = symbol(l, "integer");
    g.float_ = symbol(l, "float");
    g.unary_operator = symbol(l, "unary_operator");
    g.binary_operator = symbol(l, "binary_operator");
    g.parenthesized_expression = symbol(l, "parenthesized_expression");
    g.assignment = symbol(l, "assignment");
    g.augmented_assignment = symbol(l, "augmented_assignment");
    g.function_definition = symbol(l, "function_definition");
    g.class_definition = symbol(l, "class_definition");
    g.lambda = symbol(l, "lambda");
    g.if_statement = symbol(l, "if_statement");
    g.elif_clause = symbol(l, "elif_clause");
    g.boolean_operator = symbol(l, "boolean_operator");
    g.comment = symbol(l, "comment");
    g.string = symbol(l, "string");
    g.tuple = symbol(l, "tuple");
    g.true_ = symbol(l, "true");
    g.false_ = symbol(l, "false");
    g.for_statement = symbol(l, "for_statement");
    g.with_statement = symbol(l, "with_statement");
    g.as_pattern = symbol(l, "as_pattern");
    g.global_statement = symbol(l, "global_statement");
    g.nonlocal_statement = symbol(l, "nonlocal_statement");
    g.default_parameter = symbol(l, "default_parameter");
    g.typed_default_parameter = symbol(l, "typed_default_parameter");
    g.decorated_definition = symbol(l, "decorated_definition");
    g.expression_statement = symbol(l, "expression_statement");
    g.block = symbol(l, "block");
    g.subscript = symbol(l, "subscript");
    g.for_in_clause = symbol(l, "for_in_clause");
    g.else_clause = symbol(l, "else_clause");
    g.while_statement = symbol(l, "while_statement");
    g.try_statement = symbol(l, "try_statement");
    g.except_clause = symbol(l, "except_clause");
    g.finally_clause = symbol(l, "finally_clause");
    g.with_clause = symbol(l, "with_clause");
    g.with_item = symbol(l, "with_item");
    g.match_statement = symbol(l, "match_statement");
    g.case_clause = symbol(l, "case_clause");
    g.except_group_clause = symbol(l, "except_group_clause");
    g.list_comprehension = symbol(l, "list_comprehension");
    g.set_comprehension = symbol(l, "set_comprehension");
    g.dictionary_comprehension = symbol(l, "dictionary_comprehension");
    g.generator_expression = symbol(l, "generator_expression");
    g.typed_parameter = symbol(l, "typed_parameter");
    g.list_splat_pattern = symbol(l, "list_splat_pattern");
    g.dictionary_splat_pattern = symbol(l, "dictionary_splat_pattern");
    g.keyword_separator = symbol(l, "keyword_separator");
    g.comparison_operator = symbol(l, "comparison_operator");
    g.dictionary = symbol(l, "dictionary");
    g.pair = symbol(l, "pair");
    g.list = symbol(l, "list");
    g.none = symbol(l, "none");
    g.return_statement = symbol(l, "return_statement");
    g.concatenated_string = symbol(l, "concatenated_string");
    g.string_content = symbol(l, "string_content");
    g.named_expression = symbol(l, "named_expression");
    g.case_pattern = symbol(l, "case_pattern");
    g.pattern_list = symbol(l, "pattern_list");
    g.tuple_pattern = symbol(l, "tuple_pattern");
    g.list_pattern = symbol(l, "list_pattern");
    g.expression_list = symbol(l, "expression_list");
    g.conditional_expression = symbol(l, "conditional_expression");
    g.f_name = field_id(l, "name");
    g.f_alias = field_id(l, "alias");
    g.f_module_name = field_id(l, "module_name");
    g.f_function = field_id(l, "function");
    g.f_arguments = field_id(l, "arguments");
    g.f_object = field_id(l, "object");
    g.f_attribute = field_id(l, "attribute");
    g.f_left = field_id(l, "left");
    g.f_right = field_id(l, "right");
    g.f_operator = field_id(l, "operator");
    g.f_argument = field_id(l, "argument");
    g.f_value = field_id(l, "value");
    g.f_condition = field_id(l, "condition");
    g.f_superclasses = field_id(l, "superclasses");
    g.f_parameters = field_id(l, "parameters");
    g.f_consequence = field_id(l, "consequence");
    g.f_body = field_id(l, "body");
    g.f_key = field_id(l, "key");
    g.f_subscript = field_id(l, "subscript");
    g.f_type = field_id(l, "type");
    return g;
  }();
  return grammar;
}

Parser::Parser() : parser_(ts_parser_new()) {
  if (!parser_ || !ts_parser_set_language(parser_.get(), tree_sitter_python()))
    throw std::runtime_error("tree-sitter-python: the grammar's ABI does not match the tree-sitter runtime");
}

TreePtr Parser::parse(std::string_view text, std::span<const TSRange> ranges) const {
  if (!ranges.empty() &&
      !ts_parser_set_included_ranges(parser_.get(), ranges.data(), static_cast<uint32_t>(ranges.size())))
    throw std::logic_error("tree-sitter rejected the included ranges (not ordered?)");
  TreePtr tree(ts_parser_parse_string(parser_.get(), nullptr, text.data(), static_cast<uint32_t>(text.size())));
  if (!ranges.empty()) ts_parser_set_included_ranges(parser_.get(), nullptr, 0);  // back to whole documents
  return tree;
}

TreePtr Parser::reparse(std::string_view text, const TSTree* old) const {
  return TreePtr(ts_parser_parse_string(parser_.get(), old, text.data(), static_cast<uint32_t>(text.size())));
}

namespace {

// Whether a block is a lone `raise` (bare, or of an exception), comments aside.
bool only_reraises(TSNode block, std::string_view source) {
  const Grammar& g = Grammar::get();
  int statements = 0;
  bool raises = false;
  for (const TSNode statement : named_children(block)) {
    if (is(statement, g.comment)) continue;
    ++statements;
    raises = node_text(statement, source).starts_with("raise");
  }
  return statements == 1 && raises;
}

// `for <name> in range(1):`, its loop variable a plain name: the body runs exactly once.
bool runs_once(TSNode for_statement, std::string_view source) {
  const Grammar& g = Grammar::get();
  if (!is(field(for_statement, g.f_left), g.identifier)) return false;
  const TSNode iterable = field(for_statement, g.f_right);
  if (!is(iterable, g.call) || node_text(field(iterable, g.f_function), source) != "range") return false;
  const auto args = named_children(field(iterable, g.f_arguments));
  return args.size() == 1 && is(args[0], g.integer) && node_text(args[0], source) == "1";
}

void append_straight_line(TSNode block, std::string_view source, int depth, std::vector<TSNode>& out) {
  const Grammar& g = Grammar::get();
  auto follow = [&](TSNode inner) {
    if (depth >= 4) return false;
    append_straight_line(inner, source, depth + 1, out);
    return true;
  };
  for (const TSNode statement : named_children(block)) {
    if (is(statement, g.with_statement)) {
      if (!follow(field(statement, g.f_body))) out.push_back(statement);
    } else if (is(statement, g.try_statement)) {
      bool reraises = true;
      std::vector<TSNode> after;  // else and finally blocks
      for (const TSNode clause : named_children(statement)) {
        if (is(clause, g.except_clause) || is(clause, g.except_group_clause)) {
          const auto parts = named_children(clause);
          reraises = reraises && !parts.empty() && is(parts.back(), g.block) && only_reraises(parts.back(), source);
        } else if (is(clause, g.else_clause) || is(clause, g.finally_clause)) {
          const auto parts = named_children(clause);
          if (!parts.empty() && is(parts.back(), g.block)) after.push_back(parts.back());
        }
      }
      if (!reraises || depth >= 4) {
        out.push_back(statement);
        continue;
      }
      follow(field(statement, g.f_body));
      for (const TSNode inner : after) follow(inner);
    } else if (is(statement, g.for_statement) && runs_once(statement, source) && depth < 4) {
      follow(field(statement, g.f_body));
      for (const TSNode clause : named_children(statement))
        if (is(clause, g.else_clause))
          if (const auto parts = named_children(clause); !parts.empty() && is(parts.back(), g.block))
            follow(parts.back());
    } else {
      out.push_back(statement);
    }
  }
}

}  // namespace

bool block_runs_once(TSNode block, std::string_view source) {
  const Grammar& g = Grammar::get();
  if (ts_node_is_null(block)) return false;
  const TSNode owner = ts_node_parent(block);
  if (ts_node_is_null(owner)) return false;
  if (is(owner, g.with_statement)) return ts_node_eq(field(owner, g.f_body), block);
  if (is(owner, g.for_statement)) return ts_node_eq(field(owner, g.f_body), block) && runs_once(owner, source);
  if (!is(owner, g.try_statement) || !ts_node_eq(field(owner, g.f_body), block)) return false;
  for (const TSNode clause : named_children(owner)) {
    if (!is(clause, g.except_clause) && !is(clause, g.except_group_clause)) continue;
    const auto parts = named_children(clause);
    if (parts.empty() || !is(parts.back(), g.block) || !only_reraises(parts.back(), source)) return false;
  }
  return true;
}

std::vector<TSNode> function_statements(TSNode function_definition, std::string_view source) {
  const Grammar& g = Grammar::get();
  // Comments are named nodes where the tree keeps them: not statements.
  auto code_statements = [&](TSNode block) {
    std::vector<TSNode> out = straight_line_statements(block, source);
    std::erase_if(out, [&](TSNode n) { return is(n, g.comment); });
    return out;
  };
  std::vector<TSNode> statements = code_statements(field(function_definition, g.f_body));
  for (int depth = 0; depth < 4 && statements.size() == 2; ++depth) {
    const TSNode closure = statements[0];
    const TSNode returned = statements[1];
    if (!is(closure, g.function_definition) || !is(returned, g.return_statement) ||
        ts_node_named_child_count(returned) != 1 || ts_node_named_child_count(field(closure, g.f_parameters)) != 0)
      break;
    const TSNode call = ts_node_named_child(returned, 0);
    if (!is(call, g.call) || node_text(field(call, g.f_function), source) != node_text(field(closure, g.f_name), source) ||
        ts_node_named_child_count(field(call, g.f_arguments)) != 0)
      break;
    statements = code_statements(field(closure, g.f_body));
  }
  return statements;
}

std::vector<TSNode> straight_line_statements(TSNode block, std::string_view source) {
  std::vector<TSNode> out;
  if (!ts_node_is_null(block)) append_straight_line(block, source, 0, out);
  return out;
}

std::vector<TSNode> named_children(TSNode node) {
  std::vector<TSNode> children;
  if (ts_node_is_null(node)) return children;
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      const TSNode child = ts_tree_cursor_current_node(&cursor);
      if (ts_node_is_named(child)) children.push_back(child);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return children;
}

namespace {

// The first range that ends past byte `at` (the only one that may hold it), or end.
std::span<const TSRange>::iterator first_ending_after(std::span<const TSRange> ranges, std::uint32_t at) {
  return std::upper_bound(ranges.begin(), ranges.end(), at,
                          [](std::uint32_t byte, const TSRange& range) { return byte < range.end_byte; });
}

}  // namespace

RegionFilter::Overlap RegionFilter::overlap(TSNode node) const {
  if (ranges.empty()) return Overlap::Inside;
  const std::uint32_t begin = ts_node_start_byte(node), end = ts_node_end_byte(node);
  const auto it = first_ending_after(ranges, begin);
  if (it == ranges.end() || it->start_byte >= std::max(end, begin + 1)) return Overlap::Outside;
  return it->start_byte <= begin && end <= it->end_byte ? Overlap::Inside : Overlap::Straddles;
}

bool cuts_between_statements(TSNode root, std::span<const TSRange> ranges) {
  const Grammar& g = Grammar::get();
  const RegionFilter region{ranges};
  std::vector<TSNode> straddling{root};
  while (!straddling.empty()) {
    const TSNode node = straddling.back();
    straddling.pop_back();
    const TSSymbol sym = ts_node_symbol(node);
    if (sym != g.module && sym != g.block && sym != g.decorated_definition && sym != g.function_definition &&
        sym != g.class_definition)
      return false;
    for (const TSNode child : named_children(node))
      if (ts_node_symbol(child) != g.comment && region.overlap(child) == RegionFilter::Overlap::Straddles)
        straddling.push_back(child);
  }
  return true;
}

}  // namespace cudnnlint::python
