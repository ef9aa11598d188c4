#include "python/const_eval.h"

#include <cerrno>
#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <string>

namespace cudnnlint::python {

namespace {

constexpr int kMaxDepth = 48;  // names defined through names: deep enough for real code, bounded for cycles

std::optional<double> parse_integer(std::string_view digits, int base) {
  if (digits.empty()) return std::nullopt;
  double value = 0.0;
  for (char c : digits) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return std::nullopt;
    if (d >= base) return std::nullopt;
    value = value * base + d;
  }
  return value;
}

}  // namespace

std::optional<double> parse_python_number(std::string_view literal) {
  std::string text;
  text.reserve(literal.size());
  for (char c : literal)
    if (c != '_') text.push_back(c);
  if (text.empty()) return std::nullopt;
  const char last = text.back();
  if (last == 'j' || last == 'J') return std::nullopt;          // imaginary
  if (last == 'l' || last == 'L') text.pop_back();               // Python 2 long
  if (text.size() > 2 && text[0] == '0') {
    const char kind = static_cast<char>(text[1] | 0x20);
    if (kind == 'x') return parse_integer(std::string_view(text).substr(2), 16);
    if (kind == 'o') return parse_integer(std::string_view(text).substr(2), 8);
    if (kind == 'b') return parse_integer(std::string_view(text).substr(2), 2);
  }
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  // Python reads 1e-400 as 0.0 and 5e-324 as the smallest subnormal: an underflow is a value.
  if (errno == ERANGE && std::isinf(value)) return std::nullopt;
  return value;
}

std::optional<ConstantValue> ConstantFolder::fold(TSNode expression, const Scope* scope,
                                                  std::span<const std::string_view> shadowed) const {
  auto value = fold_at_depth(expression, scope, 0, shadowed);
  if (value) value->spelling = std::string(node_text(expression, locator_.source));
  return value;
}

std::optional<ConstantValue> ConstantFolder::fold_at_depth(TSNode node, const Scope* scope, int depth,
                                                           std::span<const std::string_view> shadowed) const {
  if (ts_node_is_null(node) || depth > kMaxDepth) return std::nullopt;
  const Grammar& g = Grammar::get();
  const TSSymbol sym = ts_node_symbol(node);
  const std::string_view source = locator_.source;

  if (sym == g.integer || sym == g.float_) {
    const auto number = parse_python_number(node_text(node, source));
    if (!number) return std::nullopt;
    return ConstantValue{*number, {}, {}};
  }
  if (sym == g.parenthesized_expression) {
    return fold_at_depth(ts_node_named_child(node, 0), scope, depth + 1, shadowed);
  }
  if (sym == g.unary_operator) {
    auto operand = fold_at_depth(field(node, g.f_argument), scope, depth + 1, shadowed);
    if (!operand) return std::nullopt;
    const auto op = node_text(field(node, g.f_operator), source);
    if (op == "-") operand->value = -operand->value;
    else if (op != "+") return std::nullopt;
    return operand;
  }
  if (sym == g.binary_operator) {
    auto left = fold_at_depth(field(node, g.f_left), scope, depth + 1, shadowed);
    if (!left) return std::nullopt;
    auto right = fold_at_depth(field(node, g.f_right), scope, depth + 1, shadowed);
    if (!right) return std::nullopt;
    const auto op = node_text(field(node, g.f_operator), source);
    const double a = left->value;
    const double b = right->value;
    double result;
    if (op == "+") result = a + b;
    else if (op == "-") result = a - b;
    else if (op == "*") result = a * b;
    else if (op == "/") {
      if (b == 0.0) return std::nullopt;  // ZeroDivisionError at run time, not a value
      result = a / b;
    } else if (op == "//") {
      if (b == 0.0) return std::nullopt;
      result = std::floor(a / b);
    } else if (op == "**") {
      result = std::pow(a, b);
    } else {
      return std::nullopt;
    }
    if (!std::isfinite(result)) return std::nullopt;
    left->value = result;
    left->provenance.insert(left->provenance.end(), right->provenance.begin(), right->provenance.end());
    return left;
  }
  if (sym == g.call) {
    // float(x) and int(x) of a constant are that constant (int truncates).
    const TSNode callee = field(node, g.f_function);
    const auto name = node_text(callee, source);
    if (!is(callee, g.identifier) || (name != "float" && name != "int")) return std::nullopt;
    if (scopes_.lookup(scope, name).second != nullptr) return std::nullopt;  // shadowed builtin
    const TSNode args = field(node, g.f_arguments);
    if (!is(args, g.argument_list) || ts_node_named_child_count(args) != 1) return std::nullopt;
    auto inner = fold_at_depth(ts_node_named_child(args, 0), scope, depth + 1, shadowed);
    if (inner && name == "int") inner->value = std::trunc(inner->value);
    return inner;
  }
  if (sym == g.identifier) {
    const auto name = node_text(node, source);
    if (std::find(shadowed.begin(), shadowed.end(), name) != shadowed.end()) return std::nullopt;
    const auto [defining_scope, binding] = scopes_.lookup(scope, name);
    if (binding == nullptr || !binding->simple()) return std::nullopt;
    // The definition is read in its own scope, where the use site's lambdas do not reach.
    auto value = fold_at_depth(binding->value, defining_scope, depth + 1, {});
    if (!value) return std::nullopt;
    // The assignment statement is the definition a user wants to see.
    TSNode statement = ts_node_parent(binding->target);
    if (ts_node_is_null(statement)) statement = binding->target;
    value->provenance.push_back(ProvenanceStep{
        locator_.locate(statement),
        std::string(name) + " = " + std::string(node_text(binding->value, source)) + " is defined here"});
    return value;
  }
  return std::nullopt;
}

}  // namespace cudnnlint::python
