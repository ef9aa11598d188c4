#include "python/const_eval.h"

#include "core/api_table.h"

#include "core/identifier.h"
#include "python/lexing.h"

#include <cerrno>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>

namespace cudnnlint::python {

namespace {

// The module-level name bound once to a method of a new instance of its class (`main =
// Runner().main`), by which the module and others call it; "" when none, or more than one.
std::string_view bound_method_name(const Scope& module, const Scope& method, std::string_view source) {
  const Grammar& g = Grammar::get();
  const Scope* owner = method.parent;
  if (owner == nullptr || owner->name.empty() || method.name.empty()) return {};
  std::string_view found;
  for (const auto& [name, binding] : module.bindings) {
    if (!binding.simple() || !is(binding.value, g.attribute)) continue;
    const TSNode object = ts_node_child_by_field_id(binding.value, g.f_object);
    if (node_text(ts_node_child_by_field_id(binding.value, g.f_attribute), source) != method.name ||
        !is(object, g.call))
      continue;
    const TSNode callee = ts_node_child_by_field_id(object, g.f_function);
    if (!is(callee, g.identifier) || node_text(callee, source) != owner->name) continue;
    if (!found.empty()) return {};
    found = name;
  }
  return found;
}

// Whether the project step follows a parameter of `function` from other modules' calls (a
// ForwardingFact, ValueEvaluator::callable_name): a module-level function's, the __init__'s of a
// module-level class, or a method's bound to a module-level name (bound_method_name).
bool followed_across_modules(const Scope& function, std::string_view source) {
  const Scope* parent = function.parent;
  if (parent == nullptr) return false;
  if (parent->kind == Scope::Kind::Module) return true;
  if (function.is_method() && parent->parent != nullptr && parent->parent->kind == Scope::Kind::Module) {
    if (function.name == "__init__") return true;
    return !bound_method_name(*parent->parent, function, source).empty();
  }
  return false;
}

constexpr int kMaxDepth = 48;  // names defined through names: deep enough for real code, bounded for cycles

// Whether `node` is `argument`, or `argument` is `node` in parentheses.
bool is_argument_itself(TSNode node, TSNode argument) {
  const Grammar& g = Grammar::get();
  for (int hops = 0; hops < 8 && is(argument, g.parenthesized_expression); ++hops) argument = ts_node_named_child(argument, 0);
  return ts_node_eq(node, argument);
}

// Whether `node` is an operand of a binary operator or an argument of max()/min() (through
// parentheses): a value computed here, not a parameter passed on as it is.
bool operand_of_arithmetic(TSNode node, std::string_view source) {
  const Grammar& g = Grammar::get();
  TSNode parent = ts_node_parent(node);
  for (int hops = 0; hops < 8 && is(parent, g.parenthesized_expression); ++hops) parent = ts_node_parent(parent);
  if (is(parent, g.argument_list) && is(ts_node_parent(parent), g.call)) {
    const TSNode callee = field(ts_node_parent(parent), g.f_function);
    const std::string_view name = node_text(callee, source);
    return is(callee, g.identifier) && (name == "max" || name == "min");
  }
  return is(parent, g.binary_operator);
}
  // names defined through names: deep enough for real code, bounded for cycles

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

// Names that hold a configuration or parsed arguments in real code: cfg, config, conf, args,
// opt/opts/options, hparams, hp, params, settings, flags/FLAGS, yacs's _C.
bool config_like(std::string_view name) {
  std::string lower;
  for (char c : name) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "c" || lower == "_c" || lower == "hp" || lower == "hps") return true;
  for (std::string_view word : {"cfg", "conf", "args", "opt", "hparam", "param", "setting", "flag"})
    if (lower.find(word) != std::string::npos) return true;
  return false;
}


// A config read as written: `cfg.model.eps` and `cfg["model"]["eps"]` are the object "cfg" with the
// key path "model.eps"; `self.cfg.MODEL.X` is the object "self.cfg" with "MODEL.X". nullopt where the
// expression is no chain of attributes and string keys off a name, or the object's name does not
// say it holds a configuration.
struct ConfigRead {
  std::string root;
  std::string path;
  std::size_t keys = 0;
};

std::optional<ConfigRead> config_read(TSNode expression, std::string_view source) {
  const Grammar& g = Grammar::get();
  std::vector<std::string> path;
  TSNode node = expression;
  for (int guard = 0; guard < 32; ++guard) {
    if (is(node, g.attribute)) {
      path.emplace_back(node_text(field(node, g.f_attribute), source));
      node = field(node, g.f_object);
    } else if (is(node, g.subscript)) {
      const auto key = string_literal(field(node, g.f_subscript), source);
      if (!key || key->empty()) return std::nullopt;
      path.push_back(*key);
      node = field(node, g.f_value);
    } else {
      break;
    }
  }
  if (path.empty() || !is(node, g.identifier)) return std::nullopt;
  ConfigRead read;
  read.root = std::string(node_text(node, source));
  // `self.cfg.MODEL.X`: the object is self's cfg.
  if (read.root == "self" && path.size() >= 2) {
    read.root += "." + path.back();
    path.pop_back();
  }
  const std::string_view last_root =
      std::string_view(read.root).substr(read.root.rfind('.') == std::string::npos ? 0 : read.root.rfind('.') + 1);
  if (!config_like(last_root)) return std::nullopt;
  read.keys = path.size();
  for (auto it = path.rbegin(); it != path.rend(); ++it) read.path += (read.path.empty() ? "" : ".") + *it;
  return read;
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
  // A float literal past DBL_MAX is inf (`1e99999`); an integer that large is exact in Python, not
  // a double.
  if (errno == ERANGE && std::isinf(value) && text.find_first_of(".eE") == std::string::npos) return std::nullopt;
  return value;
}

std::optional<double> parse_python_float_string(std::string_view text) {
  // float(str) strips whitespace; accepts [+-]nan, [+-]inf and [+-]infinity in any case, and decimals.
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  std::string lower;
  for (char c : text) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  bool negative = false;
  std::string_view body = lower;
  if (!body.empty() && (body.front() == '+' || body.front() == '-')) {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (body == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (body == "inf" || body == "infinity")
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  // A decimal: digits, one '.', an exponent; float() takes no hex, octal or binary.
  if (body.empty() || body.find_first_not_of("0123456789._e+-") != std::string_view::npos ||
      body.find_first_of("0123456789") == std::string_view::npos)
    return std::nullopt;
  const auto value = parse_python_number(body);
  if (!value) return std::nullopt;
  return negative ? -*value : *value;
}

namespace {

// The kind of `a op b` in Python: `/` and anything with a float give a float; int op int an int,
// but for `**` with a negative exponent (`10 ** -6` is 1e-06).
NumberKind result_kind(std::string_view op, NumberKind a, NumberKind b, double exponent) {
  if (op == "/") return NumberKind::Float;
  if (a == NumberKind::Float || b == NumberKind::Float) return NumberKind::Float;
  if (a == NumberKind::Unknown || b == NumberKind::Unknown) return NumberKind::Unknown;
  if (op == "**" && exponent < 0) return NumberKind::Float;
  return NumberKind::Integer;
}

}  // namespace

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
    return ConstantValue{*number, {}, {}, sym == g.integer ? NumberKind::Integer : NumberKind::Float};
  }
  if (truth_values_ && (sym == g.true_ || sym == g.false_))
    return ConstantValue{sym == g.true_ ? 1.0 : 0.0, {}, {}, NumberKind::Integer};
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
    // An inf or nan operand carries through (`-2 * math.inf`); finite operands that overflow are
    // left alone: Python raises OverflowError for `10.0 ** 400`, and ints do not overflow.
    if (!std::isfinite(result) && std::isfinite(a) && std::isfinite(b)) return std::nullopt;
    left->value = result;
    left->kind = result_kind(op, left->kind, right->kind, b);
    left->provenance.insert(left->provenance.end(), right->provenance.begin(), right->provenance.end());
    return left;
  }
  if (sym == g.call) {
    // float(x) and int(x) of a constant are that constant (int truncates).
    const TSNode callee = field(node, g.f_function);
    const auto name = node_text(callee, source);
    if (is(callee, g.identifier) && (name == "max" || name == "min")) return fold_extremum(node, scope, depth, shadowed);
    if (!is(callee, g.identifier) || (name != "float" && name != "int")) return std::nullopt;
    if (scopes_.lookup(scope, name).second != nullptr) return std::nullopt;  // shadowed builtin
    const TSNode args = field(node, g.f_arguments);
    if (!is(args, g.argument_list) || ts_node_named_child_count(args) != 1) return std::nullopt;
    const TSNode arg = ts_node_named_child(args, 0);
    if (name == "float") {
      // float('nan'), float("inf"), float(' 1e-5 ')
      if (const auto text = string_literal(arg, source)) {
        const auto parsed = parse_python_float_string(*text);
        if (!parsed) return std::nullopt;
        return ConstantValue{*parsed, {}, {}, NumberKind::Float};
      }
    }
    if (name == "int" && is(arg, g.string)) return std::nullopt;
    auto inner = fold_at_depth(arg, scope, depth + 1, shadowed);
    if (inner && name == "int" && !std::isfinite(inner->value)) return std::nullopt;  // int(inf) raises
    if (inner && name == "int") inner->value = std::trunc(inner->value);
    if (inner) inner->kind = name == "int" ? NumberKind::Integer : NumberKind::Float;
    return inner;
  }
  if (sym == g.attribute || sym == g.identifier) {
    // math.inf, np.nan, torch.inf, `from math import inf`: the constants modules export.
    if (auto constant = module_constant(node, scope, shadowed)) return constant;
  }
  if (sym == g.attribute) {
    const TSNode attribute = field(node, g.f_attribute);
    if (!is(attribute, g.identifier)) return std::nullopt;
    if (auto value = member(field(node, g.f_object), node_text(attribute, source), false, scope, depth + 1, shadowed))
      return value;
    return config_constant(node, scope, shadowed);
  }
  if (sym == g.subscript) {
    if (ts_node_named_child_count(node) != 2) return std::nullopt;  // one key, not a tuple of them
    const auto key = string_literal(field(node, g.f_subscript), source);
    if (!key) return std::nullopt;
    if (auto value = member(field(node, g.f_value), *key, true, scope, depth + 1, shadowed)) return value;
    return config_constant(node, scope, shadowed);
  }
  if (sym == g.identifier) {
    const auto name = node_text(node, source);
    if (std::find(shadowed.begin(), shadowed.end(), name) != shadowed.end()) return std::nullopt;
    const auto [defining_scope, binding] = scopes_.lookup(scope, name);
    // The bindings are of their scope's names, and of a comprehension's loop variable, which no
    // scope binds (the stack reader binds it only where no enclosing scope has the name).
    if (bindings_ != nullptr && (defining_scope == bindings_->scope || binding == nullptr))
      if (const ConstantValue* bound = bindings_->find(name)) {
        ConstantValue value = *bound;
        value.spelling = std::string(name);
        return value;
      }
    // A parameter is read from the calls of its function in this module, except one passed on as it
    // is to an argument the project step follows across modules (ParametersForwarded): that of a
    // module-level function or class. A method's or a closure's is read here all the same.
    if (binding != nullptr && binding->only_parameter() && defining_scope->kind == Scope::Kind::Function &&
        (!forwarded_ || operand_of_arithmetic(node, source) || !followed_across_modules(*defining_scope, source)))
      return at_call_sites(*defining_scope, defining_scope->parameters[static_cast<std::size_t>(binding->parameter)],
                           depth, [&](TSNode argument, const Scope* at, int d) { return fold_at_depth(argument, at, d, {}); });
    if (binding == nullptr || !binding->simple()) return std::nullopt;
    // The definition is read in its own scope, where the use site's lambdas do not reach.
    auto value = fold_at_depth(binding->value, defining_scope, depth + 1, {});
    if (!value) return std::nullopt;
    // The assignment statement is the definition a user wants to see.
    TSNode statement = binding->assignment();
    if (ts_node_is_null(statement)) statement = binding->target;
    value->provenance.push_back(ProvenanceStep{
        locator_.locate(statement),
        std::string(name) + " = " + std::string(node_text(binding->value, source)) + " is defined here"});
    return value;
  }
  return std::nullopt;
}

namespace {

constexpr std::size_t kMaxCallSites = 4;  // a parameter read through more calls than this stays unknown
constexpr std::uint32_t kMaxConfigClassBytes = 1024;

// Whether an assignment (plain or augmented, not `==`) follows `at` on its line.
bool assignment_follows(std::string_view source, std::size_t at) {
  while (at < source.size() && (source[at] == ' ' || source[at] == '\t')) ++at;
  const std::string_view rest = source.substr(std::min(at, source.size()));
  if (rest.starts_with("==")) return false;
  if (rest.starts_with("=")) return true;
  for (std::string_view op : {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", "//=", "**=", ">>=", "<<="})
    if (rest.starts_with(op)) return true;
  return false;
}


// Whether the identifier at `at` follows `word` (`def`, `self.`), spaces and tabs aside.
bool preceded_by_word(std::string_view source, std::size_t at, std::string_view word) {
  while (at > 0 && (source[at - 1] == ' ' || source[at - 1] == '\t')) --at;
  if (word.back() == '.') {
    if (at == 0 || source[at - 1] != '.') return false;
    word.remove_suffix(1);
    --at;
    while (at > 0 && (source[at - 1] == ' ' || source[at - 1] == '\t')) --at;
  }
  if (at < word.size() || source.substr(at - word.size(), word.size()) != word) return false;
  return at == word.size() || !is_identifier_char(source[at - word.size() - 1]);
}

// `alias = Owner(...).name` written at column 0, on one line, where `.name` stands at `at`: the
// alias (a bound method of a new instance, called as `alias(...)`); "" otherwise.
std::string_view bound_method_alias(std::string_view source, std::size_t at, std::string_view owner) {
  const std::size_t line = source.rfind('\n', at) == std::string_view::npos ? 0 : source.rfind('\n', at) + 1;
  const std::size_t end = std::min(source.find('\n', at), source.size());
  const auto bound = bound_method_statement(source.substr(line, end - line));
  if (!bound || bound->owner != owner || bound->method.data() != source.data() + at) return {};
  return bound->alias;
}

// `name.method(` where `.method` stands at `at` and `name` is a plain name other than `self` (an
// instance: `trainer.setup(...)`), or `...).method(` (a new one: `Trainer(cfg).setup()`): true;
// false for anything else (`self.a.method`, `name.method` not called). Which object the call
// is on is read from the parsed call (instance_calls_named).
bool called_on_an_object(std::string_view source, std::size_t at, std::size_t method_size) {
  const std::size_t next = source.find_first_not_of(" \t", at + method_size);
  if (next == std::string_view::npos || source[next] != '(') return false;
  std::size_t i = at;
  while (i > 0 && (source[i - 1] == ' ' || source[i - 1] == '\t')) --i;
  if (i == 0 || source[i - 1] != '.') return false;
  --i;
  while (i > 0 && (source[i - 1] == ' ' || source[i - 1] == '\t')) --i;
  if (i > 0 && source[i - 1] == ')') return true;
  const std::size_t name_end = i;
  while (i > 0 && is_identifier_char(source[i - 1])) --i;
  if (i == name_end || (i > 0 && source[i - 1] == '.') || source.substr(i, name_end - i) == "self") return false;
  return !(source[i] >= '0' && source[i] <= '9');
}

// Whether the text defines a class `name` at column 0 (`class Name:`, `class Name(Base):`).
bool defines_top_level_class(std::string_view source, std::string_view name) {
  for (const std::size_t at : name_positions(source, name, false)) {
    if (at < 6 || source.substr(at - 6, 6) != "class " || (at > 6 && source[at - 7] != '\n')) continue;
    const std::size_t next = source.find_first_not_of(" \t", at + name.size());
    if (next != std::string_view::npos && (source[next] == ':' || source[next] == '(')) return true;
  }
  return false;
}

// Whether every mention of `alias` in the text but its binding at `binding` (and the method's own
// `def` at `method_def`, when the alias takes the method's name) calls it: no other binding
// (`def alias`, a parameter, a loop or keyword), no other use (handed on, stored).
bool only_called(std::string_view source, std::string_view alias, std::size_t binding, std::size_t method_def,
                 std::size_t& calls) {
  calls = 0;
  for (const std::size_t at : name_positions(source, alias, false)) {
    if (at == binding || at == method_def) continue;
    if (preceded_by_word(source, at, "def") || preceded_by_word(source, at, "class")) return false;
    const std::size_t next = source.find_first_not_of(" \t", at + alias.size());
    if (next == std::string_view::npos || source[next] != '(') return false;
    ++calls;
  }
  return true;
}

// Whether the name at `at` stands in the base list of a class header (`class Sub(Base):`).
bool in_class_header(std::string_view source, std::size_t at) {
  const std::size_t line = source.rfind('\n', at) == std::string_view::npos ? 0 : source.rfind('\n', at) + 1;
  std::string_view head = source.substr(line, at - line);
  while (!head.empty() && (head.front() == ' ' || head.front() == '\t')) head.remove_prefix(1);
  return head.starts_with("class ") && head.find('(') != std::string_view::npos;
}

// Whether the text may write any attribute of any object: setattr(obj, name, value), obj.__dict__,
// vars(obj). Read from the text, comments and strings included, as attribute_writes reads it.
bool writes_attributes_dynamically(std::string_view source) {
  for (std::string_view writer : {"setattr", "vars"})
    for (const std::size_t at : name_positions(source, writer, false)) {
      std::size_t i = at + writer.size();
      while (i < source.size() && (source[i] == ' ' || source[i] == '\t')) ++i;
      if (i < source.size() && source[i] == '(') return true;
    }
  return !name_positions(source, "__dict__", true).empty();
}

// How many times the text may write the attribute `key` of any object (`x.key = ...`, `x.key += ...`).
// Read from the text, comments and strings included, so both parse modes see the same count and an
// alias's write counts too.
std::size_t attribute_writes(std::string_view source, std::string_view key) {
  std::size_t writes = 0;
  for (const std::size_t at : name_positions(source, key, true))
    if (assignment_follows(source, at + key.size())) ++writes;
  return writes;
}

// The writes attribute_writes counts but those of `self.key` outside [begin, end): another class's
// own attribute (each class's `self.samples = ...` in a project of several datasets).
std::size_t attribute_writes_within(std::string_view source, std::string_view key, std::size_t begin, std::size_t end) {
  std::size_t writes = 0;
  for (const std::size_t at : name_positions(source, key, true))
    if (assignment_follows(source, at + key.size()) &&
        ((at >= begin && at < end) || !preceded_by_word(source, at, "self.")))
      ++writes;
  return writes;
}

// Whether the text may change an item of the object named `name`: `name[...] = ...`, `del name[...]`,
// or a call of a mutating dict method on it.
bool items_may_change(std::string_view source, std::string_view name) {
  for (const std::size_t at : name_positions(source, name, false)) {
    std::size_t i = at + name.size();
    while (i < source.size() && (source[i] == ' ' || source[i] == '\t')) ++i;
    if (i >= source.size()) continue;
    if (source[i] == '.') {
      for (std::string_view method : {"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__ior__"})
        if (source.substr(i + 1).starts_with(method)) return true;
      continue;
    }
    if (source.substr(i).starts_with("|=")) return true;
    if (source[i] != '[') continue;
    std::size_t before = at;
    while (before > 0 && (source[before - 1] == ' ' || source[before - 1] == '\t')) --before;
    if (before >= 3 && source.substr(before - 3, 3) == "del") return true;
    int depth = 0;
    std::size_t close = i;
    for (; close < source.size() && close < i + 512 && source[close] != '\n'; ++close) {
      if (source[close] == '[') ++depth;
      else if (source[close] == ']' && --depth == 0) break;
    }
    if (close < source.size() && source[close] == ']' && assignment_follows(source, close + 1)) return true;
    if (close >= source.size() || source[close] != ']') return true;  // a key this scan cannot close
  }
  return false;
}

// The argument of `call` that binds `parameter`; `use_default` when the call leaves it to its default.
std::optional<TSNode> argument_for(TSNode call, const Parameter& parameter, std::string_view source,
                                   bool& use_default) {
  const Grammar& g = Grammar::get();
  use_default = false;
  const TSNode list = field(call, g.f_arguments);
  if (!is(list, g.argument_list)) return std::nullopt;
  int position = 0;
  bool splat = false;
  std::optional<TSNode> found;
  for (const TSNode argument : named_children(list)) {
    if (is(argument, g.list_splat) || is(argument, g.dictionary_splat)) {
      splat = true;
    } else if (is(argument, g.keyword_argument)) {
      if (node_text(field(argument, g.f_name), source) == parameter.name) found = field(argument, g.f_value);
    } else if (!is(argument, g.comment)) {
      if (!splat && position == parameter.index) found = argument;
      ++position;
    }
  }
  if (found) return splat ? std::nullopt : found;
  if (splat || ts_node_is_null(parameter.default_value)) return std::nullopt;
  use_default = true;
  return parameter.default_value;
}

}  // namespace

const Scope* ConstantFolder::scope_around(TSNode node) const {
  const Grammar& g = Grammar::get();
  for (TSNode at = ts_node_parent(node); !ts_node_is_null(at); at = ts_node_parent(at))
    if (is(at, g.function_definition) || is(at, g.class_definition) || is(at, g.lambda))
      if (const Scope* scope = scopes_.scope_of(at)) return scope;
  return &scopes_.module();
}

bool ConstantFolder::attributes_written_dynamically() const {
  if (!dynamic_attribute_writes_) dynamic_attribute_writes_ = writes_attributes_dynamically(locator_.source);
  return *dynamic_attribute_writes_;
}

std::string_view ConstantFolder::code_text() const {
  if (!code_text_) code_text_ = blank_comments(locator_.source);
  return *code_text_;
}

namespace {

// The module's calls by the name `key` gives their callee (nullopt: not indexed).
CallIndex index_calls(TSNode module, const std::function<std::optional<std::string_view>(TSNode)>& key) {
  CallIndex index;
  const Grammar& g = Grammar::get();
  TSTreeCursor cursor = ts_tree_cursor_new(module);
  for (bool more = true; more;) {
    const TSNode node = ts_tree_cursor_current_node(&cursor);
    if (is(node, g.call))
      if (const auto name = key(field(node, g.f_function))) index[*name].push_back(node);
    if (ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor))
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        more = false;
        break;
      }
  }
  ts_tree_cursor_delete(&cursor);
  return index;
}

const std::vector<TSNode>& calls_in(const CallIndex& index, std::string_view name) {
  static const std::vector<TSNode> none;
  const auto it = index.find(name);
  return it == index.end() ? none : it->second;
}

}  // namespace

const std::vector<TSNode>& ConstantFolder::calls_named(std::string_view name) const {
  if (!calls_)
    calls_ = index_calls(scopes_.module().node, [&](TSNode callee) -> std::optional<std::string_view> {
      if (!is(callee, Grammar::get().identifier)) return std::nullopt;
      return node_text(callee, locator_.source);
    });
  return calls_in(*calls_, name);
}

std::optional<std::vector<CallSite>> ConstantFolder::call_sites(const Scope& function,
                                                                const Parameter& parameter) const {
  if (parameter.kind != Parameter::Kind::Normal) return std::nullopt;
  const Scope* parent = function.parent;
  if (parent == nullptr) return std::nullopt;
  if (parent->kind == Scope::Kind::Class && function.name != "__init__") return method_call_sites(function, parameter);
  // A module-level def is called by its name; a module-level class's __init__ by the class's.
  const Scope* callee_scope = &function;
  if (parent->kind == Scope::Kind::Class) callee_scope = parent;
  else if (parent->kind != Scope::Kind::Module) return std::nullopt;
  if (callee_scope->parent != &scopes_.module() || callee_scope->name.empty()) return std::nullopt;
  const std::string_view callee = callee_scope->name;
  const auto [module_scope, binding] = scopes_.lookup(&scopes_.module(), callee);
  if (binding == nullptr || !binding->only_definition()) return std::nullopt;
  const std::vector<TSNode>& calls = calls_named(callee);
  if (calls.empty() || calls.size() > kMaxCallSites) return std::nullopt;
  // Every other mention of the name (passed as a value, subclassed, in a part left unparsed) may
  // call it with something else.
  // A class's own `super(Name, self)` is no call of it.
  const std::string_view code = code_text();
  const std::vector<std::size_t> mentions = name_positions(code, callee, false);
  const auto supers = static_cast<std::size_t>(std::count_if(mentions.begin(), mentions.end(), [&](std::size_t at) {
    return callee_scope != &function && preceded_by_word(code, at, "super(");
  }));
  if (mentions.size() - supers != calls.size() + 1) return std::nullopt;
  // The region planner keeps the calls of a function mentioned at most kMaxCallSites + 1 times,
  // attributes of that name included, from module statements, module functions and the methods of
  // module classes (python/regions.cpp include_callers): the same calls are read in both parse modes.
  if (mentions.size() + name_positions(code, callee, true).size() > kMaxCallSites + 1) return std::nullopt;
  std::vector<CallSite> sites;
  for (const TSNode call : calls) {
    const Scope* at = scope_around(call);
    if (scopes_.lookup(at, callee).second != binding) return std::nullopt;
    bool use_default = false;
    const auto argument = argument_for(call, parameter, locator_.source, use_default);
    if (!argument) return std::nullopt;
    // A default is evaluated where the def stands (the module, or the class body of __init__).
    sites.push_back(CallSite{call, *argument, use_default ? parent : at, use_default});
  }
  return sites;
}

ConstantFolder::HandedNode ConstantFolder::handed_config_node(std::string_view name, const Scope* scope,
                                                              int depth) const {
  using Kind = HandedNode::Kind;
  if (scope == nullptr) return HandedNode{Kind::NotAParameter, {}, {}, false};
  const auto [function, binding] = scopes_.lookup(scope, name);
  if (binding == nullptr || !binding->only_parameter() || function->kind != Scope::Kind::Function)
    return HandedNode{Kind::NotAParameter, {}, {}, false};
  const Parameter& parameter = function->parameters[static_cast<std::size_t>(binding->parameter)];
  HandedNode out;
  if (depth > 4) return HandedNode{Kind::Unknown, {}, {}, false};  // too deep to say
  if (function->parent != nullptr && function->parent->kind == Scope::Kind::Module && named_only_at_definition(*function))
    return out;  // NoCalls: nothing in the module calls it
  const auto sites = call_sites(*function, parameter);
  if (!sites) return HandedNode{Kind::Unknown, {}, {}, false};
  bool unknown = false;
  for (const CallSite& site : *sites) {
    std::optional<ConfigRead> node = site.is_default ? std::nullopt : config_read(site.argument, locator_.source);
    if (!node && !site.is_default && is(site.argument, Grammar::get().identifier)) {
      // The caller's own parameter handed on: what the caller's calls hand it.
      const HandedNode outer = handed_config_node(node_text(site.argument, locator_.source), site.scope, depth + 1);
      out.saw_node = out.saw_node || outer.saw_node;
      if (outer.kind == Kind::NoCalls) continue;
      if (outer.kind == Kind::Node) node = ConfigRead{outer.root, outer.path, 0};
    }
    if (!node) {
      unknown = true;
      continue;
    }
    if (out.kind == Kind::Node && (node->root != out.root || node->path != out.path)) unknown = true;
    out.kind = Kind::Node;
    out.saw_node = true;
    if (out.root.empty()) {
      out.root = node->root;
      out.path = node->path;
    }
  }
  if (unknown) out.kind = Kind::Unknown;
  return out;
}

bool ConstantFolder::named_only_at_definition(const Scope& function) const {
  if (function.parent != &scopes_.module() || function.kind != Scope::Kind::Function || function.name.empty())
    return false;
  const std::string_view code = code_text();
  return name_positions(code, function.name, false).size() == 1 && name_positions(code, function.name, true).empty();
}

std::optional<std::vector<CallSite>> ConstantFolder::method_call_sites(const Scope& method,
                                                                       const Parameter& parameter) const {
  // A method of a module-level class called only as `self.name(...)` from the class's own methods.
  // A dunder is called by Python itself (`__call__`), and any other mention of the name (`obj.name`,
  // a subclass's override, a string) may pass something else.
  const Scope& owner = *method.parent;
  if (owner.parent != &scopes_.module() || owner.name.empty() || method.name.empty() || method.name.starts_with("__"))
    return std::nullopt;
  if (method.parameters.empty() || method.parameters.front().kind != Parameter::Kind::Self) return std::nullopt;
  const auto own = owner.bindings.find(method.name);
  if (own == owner.bindings.end() || !own->second.only_definition()) return std::nullopt;
  // Read from the text, so that both parse modes refuse alike: the class is subclassed nowhere,
  // and the method's name stands only in `def name` and `self.name`.
  const std::string_view code = code_text();
  for (const std::size_t at : name_positions(code, owner.name, false))
    if (in_class_header(code, at)) return std::nullopt;
  std::size_t self_mentions = 0;
  std::size_t instance_mentions = 0;  // `trainer.train(...)`
  // `train = Trainer().train`, then `train()`: each alias with where its line starts.
  std::vector<std::pair<std::string_view, std::size_t>> aliases;
  for (const std::size_t at : name_positions(code, method.name, true)) {
    if (preceded_by_word(code, at, "self.")) {
      ++self_mentions;
      continue;
    }
    if (called_on_an_object(code, at, method.name.size())) {
      ++instance_mentions;
      continue;
    }
    const std::string_view alias = bound_method_alias(code, at, owner.name);
    if (alias.empty()) return std::nullopt;
    aliases.emplace_back(alias, code.rfind('\n', at) == std::string_view::npos ? 0 : code.rfind('\n', at) + 1);
  }
  const bool alias_takes_name =
      std::any_of(aliases.begin(), aliases.end(), [&](const auto& alias) { return alias.first == method.name; });
  for (const std::size_t at : name_positions(code, method.name, false))
    if (!preceded_by_word(code, at, "def") && !alias_takes_name) return std::nullopt;
  const std::vector<TSNode>& all_calls = self_calls_named(method.name);
  if (all_calls.size() != self_mentions) return std::nullopt;  // a `self.name` that is no call, or unparsed
  std::vector<CallSite> sites;
  const std::vector<TSNode>& instance_calls = instance_calls_named(method.name);
  if (instance_calls.size() != instance_mentions) return std::nullopt;
  for (const TSNode call : instance_calls) {
    // The object is made by a module class where the call can see it: `Trainer(cfg).setup()`, or
    // `trainer.setup()` with `trainer = Trainer(cfg)` bound once in that scope. Made by the owner,
    // the call is one of the method; by another class, it is not (the owner is subclassed
    // nowhere); anything else may be either.
    const Grammar& g = Grammar::get();
    const Scope* at = scope_around(call);
    TSNode made = field(field(call, g.f_function), g.f_object);
    const Scope* made_in = at;
    if (is(made, g.identifier)) {
      const auto [defining, instance] = scopes_.lookup(at, node_text(made, locator_.source));
      if (instance == nullptr || !instance->simple()) return std::nullopt;
      made = instance->value;
      made_in = defining;
    }
    const TSNode made_by = is(made, g.call) ? field(made, g.f_function) : TSNode{};
    if (!is(made_by, g.identifier)) return std::nullopt;
    // Which module class, read from the text where it is another's: the region plan may leave that
    // class out, and both parse modes must answer alike.
    const std::string_view made_by_name = node_text(made_by, locator_.source);
    const auto [class_scope, class_binding] = scopes_.lookup(made_in, made_by_name);
    if (class_scope != &scopes_.module() || class_binding == nullptr || class_binding->count != 1) return std::nullopt;
    if (made_by_name != owner.name) {
      if (!defines_top_level_class(code, made_by_name)) return std::nullopt;
      continue;  // another class's method of that name
    }
    if (sites.size() == kMaxCallSites) return std::nullopt;
    bool use_default = false;
    const auto argument = argument_for(call, parameter, locator_.source, use_default);
    if (!argument) return std::nullopt;
    sites.push_back(CallSite{call, *argument, use_default ? &owner : at, use_default});
  }
  for (const auto& [alias, binding] : aliases) {
    // Bound once, at module level; called, and only called, everywhere else, each call parsed.
    const auto bound = scopes_.module().bindings.find(alias);
    if (bound == scopes_.module().bindings.end() || bound->second.count != 1) return std::nullopt;
    const TSNode def_name = ts_node_is_null(method.node) ? TSNode{} : ts_node_child_by_field_id(method.node, Grammar::get().f_name);
    const std::size_t method_def = ts_node_is_null(def_name) ? std::string_view::npos
                                                              : std::size_t{ts_node_start_byte(def_name)};
    std::size_t calls = 0;
    if (!only_called(code, alias, binding, method_def, calls)) return std::nullopt;
    const std::vector<TSNode>& alias_calls = calls_named(alias);
    if (alias_calls.size() != calls || sites.size() + calls > kMaxCallSites) return std::nullopt;
    for (const TSNode call : alias_calls) {
      bool use_default = false;
      const auto argument = argument_for(call, parameter, locator_.source, use_default);
      if (!argument) return std::nullopt;
      sites.push_back(CallSite{call, *argument, use_default ? &owner : scope_around(call), use_default});
    }
  }
  for (const TSNode call : all_calls) {
    const Scope* at = scope_around(call);
    // The method whose `self` the call names: the call's function, or the method a closure around
    // the call stands in (`def inner(): return self.name(x)`), where no closure binds `self` itself.
    const Scope* caller = at;
    while (caller != nullptr && caller->kind != Scope::Kind::Function) caller = caller->parent;
    while (caller != nullptr && caller->parent != nullptr && caller->parent->kind == Scope::Kind::Function &&
           !caller->bindings.contains("self"))
      caller = caller->parent;
    if (caller == nullptr || caller->parent == nullptr || caller->parent->kind != Scope::Kind::Class)
      return std::nullopt;
    if (caller->parent != &owner) continue;  // another class's own method of that name
    if (sites.size() == kMaxCallSites) return std::nullopt;
    bool use_default = false;
    const auto argument = argument_for(call, parameter, locator_.source, use_default);
    if (!argument) return std::nullopt;
    sites.push_back(CallSite{call, *argument, use_default ? &owner : at, use_default});
  }
  if (sites.empty()) return std::nullopt;
  return sites;
}

namespace {

// The module's calls `object.method(...)` by method name, for the objects `accepts` takes.
template <class Accepts>
CallIndex index_method_calls(TSNode module, std::string_view source, Accepts&& accepts) {
  return index_calls(module, [&](TSNode callee) -> std::optional<std::string_view> {
    const Grammar& g = Grammar::get();
    if (!is(callee, g.attribute) || !accepts(field(callee, g.f_object))) return std::nullopt;
    return node_text(field(callee, g.f_attribute), source);
  });
}

}  // namespace

const std::vector<TSNode>& ConstantFolder::instance_calls_named(std::string_view name) const {
  const std::string_view source = locator_.source;
  if (!instance_calls_)
    instance_calls_ = index_method_calls(scopes_.module().node, source, [&](TSNode object) {
      const Grammar& g = Grammar::get();
      return (is(object, g.identifier) && node_text(object, source) != "self") ||
             (is(object, g.call) && is(field(object, g.f_function), g.identifier));
    });
  return calls_in(*instance_calls_, name);
}

const std::vector<TSNode>& ConstantFolder::self_calls_named(std::string_view name) const {
  const std::string_view source = locator_.source;
  if (!self_calls_)
    self_calls_ = index_method_calls(scopes_.module().node, source, [&](TSNode object) {
      return is(object, Grammar::get().identifier) && node_text(object, source) == "self";
    });
  return calls_in(*self_calls_, name);
}

std::string CallSite::says(std::string_view parameter, std::string_view source) const {
  // Appended piece by piece: GCC 12 warns on a chain of operator+ here (a -Wrestrict false positive).
  const Grammar& g = Grammar::get();
  std::string out = "`";
  out.append(parameter).append("` is ");
  out.append(is_default ? std::string_view("left to its default") : node_text(argument, source));
  out.append(" at this call of ").append(node_text(field(call, g.f_function), source));
  return out;
}

std::optional<ConstantValue> ConstantFolder::at_call_sites(
    const Scope& function, const Parameter& parameter, int depth,
    const std::function<std::optional<ConstantValue>(TSNode, const Scope*, int)>& read) const {
  if (depth > kMaxDepth) return std::nullopt;
  const auto sites = call_sites(function, parameter);
  if (!sites) return std::nullopt;
  std::optional<ConstantValue> agreed;
  for (const CallSite& site : *sites) {
    auto value = read(site.argument, site.scope, depth + 1);
    if (!value) return std::nullopt;
    if (agreed && !(agreed->value == value->value || (std::isnan(agreed->value) && std::isnan(value->value))))
      return std::nullopt;
    value->provenance.push_back(ProvenanceStep{locator_.locate(site.call), site.says(parameter.name, locator_.source)});
    if (!agreed) agreed = std::move(value);
  }
  return agreed;
}

std::optional<ConstantValue> ConstantFolder::fold_extremum(TSNode call, const Scope* scope, int depth,
                                                           std::span<const std::string_view> shadowed) const {
  // max(a, b, ...) and min(a, b, ...) of numbers that fold (`max(1, world_size)`); a single
  // iterable, keywords (key=, default=) or a splat are not read.
  const Grammar& g = Grammar::get();
  const TSNode callee = field(call, g.f_function);
  const auto name = node_text(callee, locator_.source);
  if (scopes_.lookup(scope, name).second != nullptr) return std::nullopt;  // shadowed builtin
  const TSNode args = field(call, g.f_arguments);
  if (!is(args, g.argument_list)) return std::nullopt;
  const std::vector<TSNode> items = named_children(args);
  if (items.size() < 2 || items.size() > 8) return std::nullopt;
  std::optional<ConstantValue> chosen;
  std::vector<ProvenanceStep> steps;
  for (const TSNode item : items) {
    if (is(item, g.keyword_argument) || is(item, g.list_splat) || is(item, g.dictionary_splat)) return std::nullopt;
    auto value = fold_at_depth(item, scope, depth + 1, shadowed);
    if (!value || std::isnan(value->value)) return std::nullopt;
    steps.insert(steps.end(), value->provenance.begin(), value->provenance.end());
    if (!chosen || (name == "max" ? value->value > chosen->value : value->value < chosen->value)) chosen = std::move(value);
  }
  chosen->provenance = std::move(steps);
  return chosen;
}

std::optional<ConstantValue> ConstantFolder::class_attribute(const Scope* class_scope, std::string_view key,
                                                             int depth) const {
  if (class_scope == nullptr || class_scope->kind != Scope::Kind::Class) return std::nullopt;
  // A config class is small; the region planner parses method-less classes of at most 2 KiB of text
  // where kept code names them (python/regions.cpp keep_bound_statements), so both modes read these.
  if (ts_node_end_byte(class_scope->node) - ts_node_start_byte(class_scope->node) > kMaxConfigClassBytes)
    return std::nullopt;
  const auto it = class_scope->bindings.find(key);
  if (it == class_scope->bindings.end() || !it->second.simple()) return std::nullopt;
  if (attributes_written_dynamically() || attribute_writes(locator_.source, key) != 0) return std::nullopt;
  auto value = fold_at_depth(it->second.value, class_scope, depth + 1, {});
  if (!value) return std::nullopt;
  TSNode statement = it->second.assignment();
  if (ts_node_is_null(statement)) statement = it->second.target;
  value->provenance.push_back(ProvenanceStep{
      locator_.locate(statement), std::string(class_scope->name) + "." + std::string(key) + " = " +
                                      std::string(node_text(it->second.value, locator_.source)) + " is defined here"});
  return value;
}

std::optional<ConstantValue> ConstantFolder::self_class_attribute(const Scope& class_scope, std::string_view key,
                                                                  int depth) const {
  // `self.batch_size` in a method of a class whose body sets `batch_size = 2` and whose methods never
  // set `self.batch_size`: the class attribute, unless a subclass (its `self` may be one) or any
  // write of `.batch_size` in the module (class_attribute) may change it.
  if (class_scope.self_attributes.count(key) != 0 || class_scope.name.empty()) return std::nullopt;
  for (const std::size_t at : name_positions(code_text(), class_scope.name, false))
    if (in_class_header(code_text(), at)) return std::nullopt;
  return class_attribute(&class_scope, key, depth);
}

std::optional<ConstantValue> ConstantFolder::member(TSNode object, std::string_view key, bool item, const Scope* scope,
                                                    int depth, std::span<const std::string_view> shadowed) const {
  const Grammar& g = Grammar::get();
  if (depth > kMaxDepth) return std::nullopt;
  if (is(object, g.call)) {  // `make_loader(Config(), ds)`: an instance made on the spot
    const TSNode callee = field(object, g.f_function);
    if (const auto qualified = imported_qualified(callee, scope))
      return namespace_member(object, *qualified, key, item, depth);
    if (!is(callee, g.identifier) || item) return std::nullopt;
    const auto [class_defining, class_binding] = scopes_.lookup(scope, node_text(callee, locator_.source));
    if (class_binding == nullptr) return std::nullopt;
    return instance_member(*class_binding, field(object, g.f_arguments), key, depth);
  }
  if (!is(object, g.identifier)) return std::nullopt;
  const auto name = node_text(object, locator_.source);
  if (std::find(shadowed.begin(), shadowed.end(), name) != shadowed.end()) return std::nullopt;
  const auto [defining, binding] = scopes_.lookup(scope, name);
  if (binding == nullptr) return std::nullopt;
  if (item && cudnnlint::python::items_may_change(locator_.source, name)) return std::nullopt;
  if (!item && binding->only_parameter() && defining->is_method() && binding->parameter == 0 &&
      defining->parameters.front().kind == Parameter::Kind::Self)
    return self_class_attribute(*defining->parent, key, depth);
  if (binding->only_parameter() && defining->kind == Scope::Kind::Function)
    return at_call_sites(*defining, defining->parameters[static_cast<std::size_t>(binding->parameter)], depth,
                         [&](TSNode argument, const Scope* at, int d) { return member(argument, key, item, at, d, {}); });
  return object_member(object, *binding, defining, key, item, depth);
}

std::optional<ConstantValue> ConstantFolder::instance_member(const Binding& class_binding, TSNode arguments,
                                                             std::string_view key, int depth) const {
  // An instance, made without arguments (which __init__ or a dataclass may turn into attributes),
  // of a module class whose methods never set self.<key>: the class attribute.
  const Grammar& g = Grammar::get();
  if (!class_binding.only_definition() || !is(class_binding.definition, g.class_definition)) return std::nullopt;
  const Scope* class_scope = scopes_.scope_of(class_binding.definition);
  if (class_scope == nullptr || class_scope->self_attributes.count(key) != 0) return std::nullopt;
  if (!is(arguments, g.argument_list)) return std::nullopt;
  // A dataclass (or NamedTuple, attrs class) takes its fields from the call.
  if (const FieldPositions positions = field_class_kind(*class_scope); positions != FieldPositions::NotAFieldClass)
    return field_member(*class_scope, positions, ts_node_parent(arguments), key, depth);
  if (ts_node_named_child_count(arguments) != 0) return std::nullopt;
  return class_attribute(class_scope, key, depth);
}

static std::optional<std::string_view> imported_name(const ScopeTree& scopes, const ImportTable& imports,
                                                     std::string_view name, const Scope* scope);

std::optional<std::string> ConstantFolder::imported_qualified(TSNode node, const Scope* scope) const {
  if (imports_ == nullptr) return std::nullopt;
  const Grammar& g = Grammar::get();
  const std::string_view source = locator_.source;
  if (is(node, g.identifier)) {
    const auto bound = imported_name(scopes_, *imports_, node_text(node, source), scope);
    return bound ? std::optional<std::string>(*bound) : std::nullopt;
  }
  if (!is(node, g.attribute) || !is(field(node, g.f_object), g.identifier)) return std::nullopt;
  const auto bound = imported_name(scopes_, *imports_, node_text(field(node, g.f_object), source), scope);
  if (!bound) return std::nullopt;
  return std::string(*bound) + "." + std::string(node_text(field(node, g.f_attribute), source));
}

ConstantFolder::FieldPositions ConstantFolder::field_class_kind(const Scope& class_scope) const {
  // Small and without methods, as class_attribute reads a config class (the region planner keeps
  // such classes where kept code names them: both parse modes read the same).
  const Grammar& g = Grammar::get();
  const ConfigObjectKinds& kinds = ApiTable::builtin().config_objects();
  const TSNode node = class_scope.node;
  if (!is(node, g.class_definition) || ts_node_end_byte(node) - ts_node_start_byte(node) > kMaxConfigClassBytes)
    return FieldPositions::NotAFieldClass;
  const Scope* outside = class_scope.parent;
  bool decorated = false, other_base = false;
  FieldPositions by_base = FieldPositions::NotAFieldClass;
  const TSNode parent = ts_node_parent(node);
  if (is(parent, g.decorated_definition))
    for (const TSNode decorator : named_children(parent)) {
      if (ts_node_eq(decorator, node) || ts_node_named_child_count(decorator) != 1) continue;
      TSNode expression = ts_node_named_child(decorator, 0);
      if (is(expression, g.call)) expression = field(expression, g.f_function);  // @dataclass(frozen=True)
      const auto qualified = imported_qualified(expression, outside);
      if (qualified && kinds.field_class_decorators.count(*qualified) != 0) decorated = true;
      else return FieldPositions::NotAFieldClass;  // another decorator may write any __init__
    }
  if (const TSNode bases = field(node, g.f_superclasses); !ts_node_is_null(bases))
    for (const TSNode base : named_children(bases)) {
      const auto qualified = imported_qualified(base, outside);
      if (qualified && kinds.field_class_bases.count(*qualified) != 0) by_base = FieldPositions::ByPositionOrKeyword;
      else if (qualified && kinds.keyword_field_bases.count(*qualified) != 0) by_base = FieldPositions::ByKeyword;
      else other_base = true;  // a metaclass keyword, or a base whose fields come first
    }
  for (const TSNode statement : named_children(field(node, g.f_body))) {
    if (is(statement, g.expression_statement) || is(statement, g.comment) ||
        node_text(statement, locator_.source) == "pass")
      continue;
    return FieldPositions::NotAFieldClass;  // a method, a nested class, a conditional field
  }
  if (decorated) return other_base || by_base != FieldPositions::NotAFieldClass ? FieldPositions::ByKeyword
                                                                                 : FieldPositions::ByPositionOrKeyword;
  return other_base ? FieldPositions::NotAFieldClass : by_base;
}

std::optional<ConstantValue> ConstantFolder::field_member(const Scope& class_scope, FieldPositions positions,
                                                          TSNode call, std::string_view key, int depth) const {
  // The class body's fields in order (`name: type [= default]`); an unannotated assignment is a class
  // attribute, no field (attrs would make `x = attr.ib()` one: positions are then unknown).
  const Grammar& g = Grammar::get();
  const std::string_view source = locator_.source;
  if (key.starts_with('_') || attributes_written_dynamically() || attribute_writes(source, key) != 0)
    return std::nullopt;  // attrs drops a leading underscore from the keyword; a write may change it
  std::optional<std::size_t> index;
  TSNode declared{};
  std::size_t count = 0;
  bool positions_known = positions == FieldPositions::ByPositionOrKeyword;
  for (const TSNode statement : named_children(field(class_scope.node, g.f_body))) {
    const TSNode assignment = is(statement, g.expression_statement) ? ts_node_named_child(statement, 0) : TSNode{};
    if (!is(assignment, g.assignment)) continue;
    const TSNode type = field(assignment, g.f_type);
    const TSNode target = field(assignment, g.f_left);
    if (ts_node_is_null(type) || !is(target, g.identifier)) {
      positions_known = false;
      if (is(target, g.identifier) && node_text(target, source) == key) return std::nullopt;  // no field
      continue;
    }
    const std::string_view annotation = node_text(type, source);
    if (annotation.find("KW_ONLY") != std::string_view::npos) positions_known = false;  // keyword-only after
    if (annotation.find("ClassVar") != std::string_view::npos) continue;
    if (node_text(target, source) == key) {
      if (annotation.find("InitVar") != std::string_view::npos) return std::nullopt;  // no attribute
      if (positions_known) index = count;
      declared = assignment;
    }
    ++count;
  }
  if (ts_node_is_null(declared)) return std::nullopt;
  // The call's argument for the field: its keyword, else its position; no splat may hide it.
  std::optional<TSNode> given;
  std::size_t positional = 0;
  for (const TSNode argument : named_children(field(call, g.f_arguments))) {
    if (is(argument, g.list_splat) || is(argument, g.dictionary_splat)) return std::nullopt;
    if (is(argument, g.keyword_argument)) {
      if (node_text(field(argument, g.f_name), source) == key) given = field(argument, g.f_value);
    } else if (is(argument, g.comment)) {
      continue;
    } else {
      if (!index && positions != FieldPositions::ByPositionOrKeyword) return std::nullopt;  // a TypeError, or unknown
      if (index && positional == *index) given = argument;
      ++positional;
    }
  }
  if (!given && !index && positional > 0) return std::nullopt;  // which field a position fills is unknown
  if (given) return constructor_argument(call, *given, "its field " + std::string(key), depth);
  // Not passed: the field's default, written as is or as field(default=...).
  TSNode default_value = field(declared, g.f_right);
  if (ts_node_is_null(default_value)) return std::nullopt;
  if (is(default_value, g.call)) {
    const auto callee = imported_qualified(field(default_value, g.f_function), &class_scope);
    if (!callee || ApiTable::builtin().config_objects().field_default_functions.count(*callee) == 0)
      return std::nullopt;
    TSNode found{};
    for (const TSNode argument : named_children(field(default_value, g.f_arguments)))
      if (is(argument, g.keyword_argument) && node_text(field(argument, g.f_name), source) == "default")
        found = field(argument, g.f_value);
    if (ts_node_is_null(found)) return std::nullopt;  // default_factory, or none
    default_value = found;
  }
  auto value = fold_at_depth(default_value, &class_scope, depth + 1, {});
  if (!value) return std::nullopt;
  value->provenance.push_back(ProvenanceStep{
      locator_.locate(declared), std::string(class_scope.name) + "." + std::string(node_text(declared, source)) +
                                     " is the field's default, which the call leaves"});
  return value;
}

std::optional<ConstantValue> ConstantFolder::namespace_member(TSNode call, std::string_view qualified,
                                                              std::string_view key, bool item, int depth) const {
  // `SimpleNamespace(bn_eps=...)` (keywords), `EasyDict({"bn_eps": ...})` (one mapping, read by
  // attribute or subscript), as config_objects in the API table says each class takes them.
  const Grammar& g = Grammar::get();
  const std::string_view source = locator_.source;
  const ConfigObjectKinds& kinds = ApiTable::builtin().config_objects();
  const bool keywords = kinds.keyword_namespaces.count(qualified) != 0;
  const bool mapping = kinds.mapping_namespaces.count(qualified) != 0;
  if ((!keywords && !mapping) || (item && !mapping)) return std::nullopt;
  if (attributes_written_dynamically() || attribute_writes(source, key) != 0) return std::nullopt;  // set again
  std::optional<TSNode> found;
  std::size_t positional = 0;
  for (const TSNode argument : named_children(field(call, g.f_arguments))) {
    if (is(argument, g.comment)) continue;
    if (is(argument, g.list_splat) || is(argument, g.dictionary_splat)) return std::nullopt;
    if (is(argument, g.keyword_argument)) {
      if (!keywords) return std::nullopt;  // a TypeError
      if (node_text(field(argument, g.f_name), source) == key) found = field(argument, g.f_value);
      continue;
    }
    if (!mapping || positional++ > 0) return std::nullopt;
    if (is(argument, g.dictionary)) {
      for (const TSNode entry : named_children(argument)) {
        if (is(entry, g.comment)) continue;
        if (!is(entry, g.pair)) return std::nullopt;  // a **splat may hold the key too
        if (string_literal(field(entry, g.f_key), source) == std::string(key)) found = field(entry, g.f_value);
      }
    } else if (is(argument, g.call) && is(field(argument, g.f_function), g.identifier) &&
               node_text(field(argument, g.f_function), source) == "dict" &&
               scopes_.lookup(scope_around(argument), "dict").second == nullptr) {
      for (const TSNode inner : named_children(field(argument, g.f_arguments))) {
        if (is(inner, g.comment)) continue;
        if (!is(inner, g.keyword_argument)) return std::nullopt;
        if (node_text(field(inner, g.f_name), source) == key) found = field(inner, g.f_value);
      }
    } else {
      return std::nullopt;  // a mapping made elsewhere
    }
  }
  if (!found) return std::nullopt;
  return constructor_argument(call, *found, std::string(key), depth);
}

std::optional<ConstantValue> ConstantFolder::constructor_argument(TSNode call, TSNode argument, const std::string& what,
                                                                  int depth) const {
  auto value = fold_at_depth(argument, scope_around(call), depth + 1, {});
  if (!value) return std::nullopt;
  const std::string_view source = locator_.source;
  value->provenance.push_back(ProvenanceStep{
      locator_.locate(argument), std::string(node_text(field(call, Grammar::get().f_function), source)) +
                                     "(...) sets " + what + " to " + std::string(node_text(argument, source)) + " here"});
  return value;
}

std::optional<ConstantValue> ConstantFolder::init_attribute(const Scope& class_scope, TSNode construction,
                                                            std::string_view key, int depth) const {
  // `self.win_size = win_size`, the one write of `.win_size` in the text, in __init__, with a
  // parameter: what this construction passes for it, or its default. Another value there is
  // folded in __init__ (through its constructions, when it reads a parameter).
  const Grammar& g = Grammar::get();
  const auto attribute = class_scope.self_attributes.find(key);
  if (attribute == class_scope.self_attributes.end() || attribute->second.count != 1 ||
      attribute->second.method == nullptr || attribute->second.method->name != "__init__" ||
      attributes_written_dynamically() || attribute_writes(locator_.source, key) != 1)
    return std::nullopt;
  const Scope& init = *attribute->second.method;
  const TSNode value = attribute->second.value;
  if (is(value, g.identifier)) {
    const auto [defining, binding] = scopes_.lookup(&init, node_text(value, locator_.source));
    if (defining == &init && binding != nullptr && binding->only_parameter()) {
      const Parameter& parameter = init.parameters[static_cast<std::size_t>(binding->parameter)];
      if (parameter.kind != Parameter::Kind::Normal) return std::nullopt;
      bool use_default = false;
      const auto argument = argument_for(construction, parameter, locator_.source, use_default);
      if (!argument) return std::nullopt;
      return fold_at_depth(*argument, use_default ? class_scope.parent : scope_around(construction), depth + 1, {});
    }
  }
  return fold_at_depth(value, &init, depth + 1, {});
}

bool ConstantFolder::items_may_change(std::string_view name) const {
  return cudnnlint::python::items_may_change(locator_.source, name);
}

const SelfAttribute* ConstantFolder::sole_self_attribute(TSNode attribute, const Scope* scope) const {
  const SelfAttribute* set = self_attribute(attribute, scope);
  if (set == nullptr || set->method == nullptr || attributes_written_dynamically()) return nullptr;
  // The class: above the method, or above the closure of a method that writes it.
  const Scope* owner_scope = set->method->parent;
  while (owner_scope != nullptr && owner_scope->kind != Scope::Kind::Class) owner_scope = owner_scope->parent;
  if (owner_scope == nullptr) return nullptr;
  const TSNode owner = owner_scope->node;
  const std::string_view key = node_text(field(attribute, Grammar::get().f_attribute), locator_.source);
  // The owner's name in another class's bases makes a subclass, whose methods' `self` may be one.
  const std::string_view owner_name = owner_scope->name;
  for (const std::size_t at : name_positions(code_text(), owner_name, false))
    if (in_class_header(code_text(), at)) return nullptr;
  if (attribute_writes_within(locator_.source, key, ts_node_start_byte(owner), ts_node_end_byte(owner)) != 1)
    return nullptr;
  return set;
}

TSNode ConstantFolder::bound_method_definition(TSNode value) const {
  const Grammar& g = Grammar::get();
  const std::string_view source = locator_.source;
  if (!is(value, g.attribute)) return {};
  const TSNode object = field(value, g.f_object);
  if (!is(object, g.call)) return {};
  const TSNode callee = field(object, g.f_function);
  if (!is(callee, g.identifier)) return {};
  const auto [scope, binding] = scopes_.lookup(&scopes_.module(), node_text(callee, source));
  if (scope != &scopes_.module() || binding == nullptr || !binding->only_definition() ||
      !is(binding->definition, g.class_definition))
    return {};
  const Scope* owner = scopes_.scope_of(binding->definition);
  if (owner == nullptr) return {};
  const auto method = owner->bindings.find(node_text(field(value, g.f_attribute), source));
  if (method == owner->bindings.end() || !method->second.only_definition() ||
      !is(method->second.definition, g.function_definition))
    return {};
  return method->second.definition;
}

TSNode ConstantFolder::returned_parse_args(TSNode function, int depth) const {
  // The function's last statement returns `parser.parse_args(...)`: the call itself, a name bound
  // to it by the statement before (`args = parser.parse_args()` then `return args`), or the call
  // of a closure without parameters that the function defines and that returns it.
  const Grammar& g = Grammar::get();
  const std::string_view source = locator_.source;
  auto parse_call = [&](TSNode value) {
    const TSNode callee = is(value, g.call) ? field(value, g.f_function) : TSNode{};
    return is(callee, g.attribute) && node_text(field(callee, g.f_attribute), source) == "parse_args";
  };
  const std::vector<TSNode> statements = straight_line_statements(field(function, g.f_body), source);
  if (statements.empty() || depth > 3) return {};
  const TSNode last = statements.back();
  if (!is(last, g.return_statement) || ts_node_named_child_count(last) != 1) return {};
  const TSNode value = ts_node_named_child(last, 0);
  if (parse_call(value)) return value;
  if (is(value, g.identifier) && statements.size() >= 2) {
    const TSNode before = statements[statements.size() - 2];
    const TSNode assignment = is(before, g.expression_statement) ? ts_node_named_child(before, 0) : TSNode{};
    if (is(assignment, g.assignment) && is(field(assignment, g.f_left), g.identifier) &&
        node_text(field(assignment, g.f_left), source) == node_text(value, source) &&
        parse_call(field(assignment, g.f_right)))
      return field(assignment, g.f_right);
    return {};
  }
  const TSNode callee = is(value, g.call) ? field(value, g.f_function) : TSNode{};
  if (!is(callee, g.identifier) || ts_node_named_child_count(field(value, g.f_arguments)) != 0) return {};
  for (const TSNode statement : statements)
    if (is(statement, g.function_definition) && node_text(field(statement, g.f_name), source) == node_text(callee, source))
      return returned_parse_args(statement, depth + 1);
  return {};
}

std::optional<ConstantValue> ConstantFolder::argparse_default(TSNode parse_call, const Scope* defining,
                                                              std::string_view key, int depth) const {
  // `args = parser.parse_args()` (or `parse_args([])`) at module level or in a module function that
  // returns it, `parser = argparse.ArgumentParser(...)` beside it, and one statement of that body
  // `parser.add_argument("--key", ..., default=value)` for the key.
  const Grammar& g = Grammar::get();
  const std::string_view source = locator_.source;
  const TSNode parser = field(field(parse_call, g.f_function), g.f_object);
  const TSNode parse_arguments = field(parse_call, g.f_arguments);
  const bool no_arguments = ts_node_named_child_count(parse_arguments) == 0 ||
                            (ts_node_named_child_count(parse_arguments) == 1 &&
                             is(ts_node_named_child(parse_arguments, 0), g.list) &&
                             ts_node_named_child_count(ts_node_named_child(parse_arguments, 0)) == 0);
  // A function (or a closure of one) at module level, or a method of a module-level class: the
  // command-line builder the region planner keeps whole (python/regions.cpp command_line_builder).
  const Scope* outermost = defining;
  while (outermost != nullptr && outermost->kind == Scope::Kind::Function && outermost->parent != nullptr &&
         outermost->parent->kind == Scope::Kind::Function)
    outermost = outermost->parent;
  const Scope* holder = outermost == nullptr ? nullptr : outermost->parent;
  if (holder != nullptr && holder->kind == Scope::Kind::Class) holder = holder->parent;
  const bool module_function =
      defining != nullptr && defining->kind == Scope::Kind::Function && holder == &scopes_.module();
  if ((defining != &scopes_.module() && !module_function) || !is(parser, g.identifier) || !no_arguments)
    return std::nullopt;
  const TSNode body = module_function ? field(defining->node, g.f_body) : scopes_.module().node;
  const auto [parser_scope, parser_binding] = scopes_.lookup(defining, node_text(parser, source));
  if (parser_binding == nullptr || !parser_binding->simple() || parser_scope != defining ||
      !is(parser_binding->value, g.call) || !node_text(field(parser_binding->value, g.f_function), source).ends_with("ArgumentParser"))
    return std::nullopt;
  if (source.find("set_defaults") != std::string_view::npos || attributes_written_dynamically() ||
      attribute_writes(source, key) != 0)
    return std::nullopt;
  std::optional<TSNode> found;
  for (const TSNode statement : straight_line_statements(body, source)) {
    if (!is(statement, g.expression_statement)) continue;
    const TSNode call = ts_node_named_child(statement, 0);
    if (!is(call, g.call)) continue;
    const TSNode method = field(call, g.f_function);
    if (!is(method, g.attribute) || node_text(field(method, g.f_attribute), source) != "add_argument" ||
        node_text(field(method, g.f_object), source) != node_text(parser, source))
      continue;
    std::string dest;
    for (const TSNode argument : named_children(field(call, g.f_arguments))) {
      if (is(argument, g.keyword_argument) && node_text(field(argument, g.f_name), source) == "dest") {
        if (const auto text = string_literal(field(argument, g.f_value), source)) dest = *text;
      } else if (const auto text = string_literal(argument, source); text && dest.empty() && text->starts_with("--")) {
        dest = text->substr(2);
        std::replace(dest.begin(), dest.end(), '-', '_');
      }
    }
    if (dest != key) continue;
    if (found) return std::nullopt;  // two arguments write the key
    found = call;
  }
  if (!found) return std::nullopt;
  TSNode default_value{}, type{};
  for (const TSNode argument : named_children(field(*found, g.f_arguments))) {
    if (!is(argument, g.keyword_argument)) continue;
    const auto keyword = node_text(field(argument, g.f_name), source);
    if (keyword == "default") default_value = field(argument, g.f_value);
    else if (keyword == "type") type = field(argument, g.f_value);
    else if (keyword == "action" || keyword == "nargs" || keyword == "const") return std::nullopt;
  }
  if (ts_node_is_null(default_value)) return std::nullopt;  // None
  std::optional<ConstantValue> value;
  if (const auto text = string_literal(default_value, source)) {
    // argparse passes a string default through `type`.
    const auto type_name = ts_node_is_null(type) ? std::string_view() : node_text(type, source);
    if (type_name == "float") {
      if (const auto number = parse_python_float_string(*text)) value = ConstantValue{*number, {}, {}, NumberKind::Float};
    } else if (type_name == "int") {
      if (const auto number = parse_python_number(*text); number && text->find_first_of(".eEjJ") == std::string::npos)
        value = ConstantValue{*number, {}, {}, NumberKind::Integer};
    }
  } else {
    // A default that is no string is used as it is, whatever `type` says: `type=float, default=2` is 2.
    value = fold_at_depth(default_value, defining, depth + 1, {});
  }
  if (!value) return std::nullopt;
  value->provenance.push_back(ProvenanceStep{
      locator_.locate(*found), "the argparse default of " + std::string(key) + ", " +
                                   std::string(node_text(default_value, source)) + ", is set here"});
  return value;
}

std::optional<ConstantValue> ConstantFolder::keyed_value(std::optional<TSNode> found, TSNode name,
                                                         const Binding& binding, std::string_view key,
                                                         const Scope* defining, int depth) const {
  if (!found) return std::nullopt;
  auto value = fold_at_depth(*found, defining, depth + 1, {});
  if (!value) return std::nullopt;
  TSNode statement = binding.assignment();
  if (ts_node_is_null(statement)) statement = binding.target;
  value->provenance.push_back(ProvenanceStep{
      locator_.locate(statement), std::string(node_text(name, locator_.source)) + "[\"" + std::string(key) + "\"] = " +
                                      std::string(node_text(*found, locator_.source)) + " is defined here"});
  return value;
}

std::optional<ConstantValue> ConstantFolder::object_member(TSNode name, const Binding& binding, const Scope* defining,
                                                           std::string_view key, bool item, int depth) const {
  const Grammar& g = Grammar::get();
  const std::string_view source = locator_.source;
  if (binding.only_definition() && is(binding.definition, g.class_definition))
    return item ? std::nullopt : class_attribute(scopes_.scope_of(binding.definition), key, depth);
  if (!binding.simple()) return std::nullopt;
  const TSNode value = binding.value;
  if (item && is(value, g.dictionary)) {  // {"bn_eps": 1e-5, ...}
    std::optional<TSNode> found;
    for (const TSNode entry : named_children(value)) {
      if (!is(entry, g.pair)) return std::nullopt;  // a **splat may hold the key too
      if (string_literal(field(entry, g.f_key), source) == std::string(key)) found = field(entry, g.f_value);
    }
    return keyed_value(found, name, binding, key, defining, depth);
  }
  if (!is(value, g.call)) return std::nullopt;
  const TSNode callee = field(value, g.f_function);
  const TSNode arguments = field(value, g.f_arguments);
  if (is(callee, g.attribute) && node_text(field(callee, g.f_attribute), source) == "parse_args" && !item) {
    // The argument bind_value evaluates, when it is this read (`batch_size=args.bs`, a division's
    // `args.gpus`), is the project step's to settle, as an argparse default it names so; a read
    // inside arithmetic there (`args.bs * 2`) is read here.
    if (forwarded_ && is_argument_itself(ts_node_parent(name), forwarded_argument_)) return std::nullopt;
    return argparse_default(value, defining, key, depth);
  }
  if (!is(arguments, g.argument_list)) return std::nullopt;
  if (const auto qualified = imported_qualified(callee, defining); qualified && !items_may_change(node_text(name, source)))
    if (auto found = namespace_member(value, *qualified, key, item, depth)) {
      TSNode statement = binding.assignment();
      if (ts_node_is_null(statement)) statement = binding.target;
      found->provenance.push_back(ProvenanceStep{
          locator_.locate(statement), std::string(node_text(name, source)) + " is made here"});
      return found;
    }
  if (!is(callee, g.identifier)) return std::nullopt;
  const std::string_view callee_name = node_text(callee, source);
  const auto [callee_scope, callee_binding] = scopes_.lookup(defining, callee_name);
  // The function `get_opt()` calls: a def, or a method bound to the name (`get_opt = Options().get_opt`).
  TSNode called{};
  if (callee_binding != nullptr && callee_binding->only_definition() && is(callee_binding->definition, g.function_definition))
    called = callee_binding->definition;
  else if (callee_binding != nullptr && callee_binding->simple() && callee_scope == &scopes_.module())
    called = bound_method_definition(callee_binding->value);
  if (!item && !ts_node_is_null(called) && ts_node_named_child_count(arguments) == 0)
    if (const TSNode parse = returned_parse_args(called); !ts_node_is_null(parse)) {
      // `opt = get_opt()`, a module function returning `parser.parse_args()`.
      if (forwarded_ && is_argument_itself(ts_node_parent(name), forwarded_argument_)) return std::nullopt;
      return argparse_default(parse, scope_around(parse), key, depth);
    }
  if (item) {  // dict(bn_eps=1e-5, ...) of the builtin
    if (callee_name != "dict" || callee_binding != nullptr) return std::nullopt;
    std::optional<TSNode> found;
    for (const TSNode argument : named_children(arguments)) {
      if (!is(argument, g.keyword_argument)) return std::nullopt;
      if (node_text(field(argument, g.f_name), source) == key) found = field(argument, g.f_value);
    }
    return keyed_value(found, name, binding, key, defining, depth);
  }
  // An instance of a class: what its class body sets, else (an attribute dict) what the module sets.
  if (callee_binding != nullptr && callee_binding->only_definition() && is(callee_binding->definition, g.class_definition)) {
    const Scope* class_scope = scopes_.scope_of(callee_binding->definition);
    if (class_scope != nullptr && class_scope->self_attributes.count(key) != 0 && !item)
      return init_attribute(*class_scope, value, key, depth);
    if (class_scope == nullptr || class_scope->self_attributes.count(key) != 0) return std::nullopt;
    if (class_scope->bindings.count(key) != 0 || field_class_kind(*class_scope) != FieldPositions::NotAFieldClass)
      return instance_member(*callee_binding, arguments, key, depth);
  }
  // A module-level object (`Cfg = EasyDict()`) whose attribute one module statement sets.
  if (defining != &scopes_.module() || attributes_written_dynamically() || attribute_writes(source, key) != 1)
    return std::nullopt;
  for (const TSNode statement : named_children(scopes_.module().node)) {
    if (!is(statement, g.expression_statement)) continue;
    const TSNode assignment = ts_node_named_child(statement, 0);
    if (!is(assignment, g.assignment)) continue;
    const TSNode target = field(assignment, g.f_left);
    if (!is(target, g.attribute) || node_text(field(target, g.f_attribute), source) != key) continue;
    const TSNode owner = field(target, g.f_object);
    if (!is(owner, g.identifier) || node_text(owner, source) != node_text(name, source)) continue;
    const TSNode right = field(assignment, g.f_right);
    auto folded = fold_at_depth(right, defining, depth + 1, {});
    if (!folded) return std::nullopt;
    folded->provenance.push_back(ProvenanceStep{
        locator_.locate(assignment), std::string(node_text(target, source)) + " = " +
                                         std::string(node_text(right, source)) + " is set here"});
    return folded;
  }
  return std::nullopt;
}

}  // namespace cudnnlint::python

namespace cudnnlint::python {

namespace {

constexpr int kMaxRefDepth = 16;

bool is_framework_root(std::string_view qualified, std::span<const std::string> roots) {
  const auto top = qualified.substr(0, qualified.find('.'));
  for (const auto& root : roots)
    if (root == top) return true;
  return false;
}

}  // namespace

std::optional<std::string> string_literal(TSNode node, std::string_view source) {
  const Grammar& g = Grammar::get();
  if (!is(node, g.string)) return std::nullopt;
  std::string_view text = node_text(node, source);
  std::size_t prefix = 0;
  bool raw = false;
  while (prefix < text.size() && std::isalpha(static_cast<unsigned char>(text[prefix]))) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[prefix])));
    if (c == 'f' || c == 'b') return std::nullopt;  // f-strings are computed, bytes are not text
    if (c == 'r') raw = true;
    ++prefix;
  }
  text.remove_prefix(prefix);
  if (text.empty()) return std::nullopt;
  const char quote = text.front();
  const std::size_t width = text.size() >= 6 && text.substr(0, 3) == std::string(3, quote) ? 3 : 1;
  if (text.size() < 2 * width) return std::nullopt;
  const std::string_view content = text.substr(width, text.size() - 2 * width);
  if (!raw && content.find('\\') != std::string_view::npos) return std::nullopt;
  return std::string(content);
}

static std::optional<std::string_view> imported_name(const ScopeTree& scopes, const ImportTable& imports,
                                              std::string_view name, const Scope* scope) {
  const auto [defining, binding] = scopes.lookup(scope, name);
  if (binding == nullptr) return imports.lookup(name, &scopes.module());
  const bool only_import = ts_node_is_null(binding->value) && ts_node_is_null(binding->definition) &&
                           binding->parameter < 0 &&
                           (binding->count == 1 || imports.imported_alike(name, defining, binding->count));
  if (!only_import) return std::nullopt;
  return imports.lookup(name, defining);
}

std::optional<ConstantValue> ConstantFolder::module_constant(TSNode node, const Scope* scope,
                                                             std::span<const std::string_view> shadowed) const {
  if (imports_ == nullptr) return std::nullopt;
  const Grammar& g = Grammar::get();
  const std::string_view source = locator_.source;
  std::string qualified;
  if (is(node, g.identifier)) {
    const auto name = node_text(node, source);
    if (std::find(shadowed.begin(), shadowed.end(), name) != shadowed.end()) return std::nullopt;
    const auto bound = imported_name(scopes_, *imports_, name, scope);
    if (!bound) return std::nullopt;
    qualified = std::string(*bound);
  } else {
    const TSNode object = field(node, g.f_object);
    if (!is(object, g.identifier)) return std::nullopt;
    const auto name = node_text(object, source);
    if (std::find(shadowed.begin(), shadowed.end(), name) != shadowed.end()) return std::nullopt;
    const auto bound = imported_name(scopes_, *imports_, name, scope);
    if (!bound) return std::nullopt;
    qualified = std::string(*bound) + "." + std::string(node_text(field(node, g.f_attribute), source));
  }
  // The modules' documented float constants (math, numpy, torch, jax.numpy re-export numpy's).
  for (std::string_view module : {"math.", "numpy.", "torch.", "jax.numpy."}) {
    if (!qualified.starts_with(module)) continue;
    const std::string_view constant = std::string_view(qualified).substr(module.size());
    if (constant == "inf") return ConstantValue{std::numeric_limits<double>::infinity(), {}, {}, NumberKind::Float};
    if (constant == "nan") return ConstantValue{std::numeric_limits<double>::quiet_NaN(), {}, {}, NumberKind::Float};
  }
  // A constant of another module of the tree, as the project step found it.
  if (imported_constants_ != nullptr)
    if (const auto it = imported_constants_->find(qualified); it != imported_constants_->end()) {
      ConstantValue value = it->second;
      value.spelling = std::string(node_text(node, source));
      return value;
    }
  return std::nullopt;
}

std::optional<bool> ConstantFolder::fold_truth(TSNode expression, const Scope* scope) const {
  const bool saved = truth_values_;
  truth_values_ = true;
  const auto folded = fold(expression, scope);
  truth_values_ = saved;
  if (!folded || std::isnan(folded->value)) return std::nullopt;
  return folded->value != 0.0;
}

std::optional<ConstantValue> ConstantFolder::config_constant(TSNode node, const Scope* scope,
                                                             std::span<const std::string_view> shadowed) const {
  if (config_constants_ == nullptr || config_constants_->empty()) return std::nullopt;
  if (!ts_node_is_null(settled_later_) && is_argument_itself(node, settled_later_)) return std::nullopt;
  auto read = config_read(node, locator_.source);
  if (!read) return std::nullopt;
  const std::string_view object = std::string_view(read->root).substr(0, read->root.find('.'));
  if (std::find(shadowed.begin(), shadowed.end(), object) != shadowed.end()) return std::nullopt;
  // An imported module is no config object (`from . import constants as C`), except a config object
  // imported from another module and read two keys deep (`from pycls.core.config import cfg`).
  if (imports_ != nullptr && read->root.find('.') == std::string::npos && read->keys < 2 &&
      imported_name(scopes_, *imports_, object, scope))
    return std::nullopt;
  // A sub-node handed to a function (`build(cfg.model)`, then `cfg.bn_eps` inside): the read is
  // the node's path and its own.
  std::string path = read->path;
  if (read->root.find('.') == std::string::npos) {
    const HandedNode handed = handed_config_node(object, scope);
    if (handed.kind == HandedNode::Kind::Node) path = handed.path + "." + path;
    else if (handed.saw_node) return std::nullopt;  // calls handing different nodes
  }
  const auto it = config_constants_->find(path);
  if (it == config_constants_->end()) return std::nullopt;
  ConstantValue value = it->second;
  value.spelling = std::string(node_text(node, locator_.source));
  return value;
}

std::optional<std::string_view> ValueEvaluator::imported(std::string_view name, const Scope* scope) const {
  return imported_name(scopes_, imports_, name, scope);
}

std::string ValueEvaluator::callable_name(const Scope& function) const {
  if (module_.empty() || function.kind != Scope::Kind::Function || function.name.empty()) return "";
  const Scope* parent = function.parent;
  if (parent != nullptr && parent->kind == Scope::Kind::Module) return module_ + "." + std::string(function.name);
  if (function.is_method() && function.name == "__init__" && parent->parent != nullptr &&
      parent->parent->kind == Scope::Kind::Module && !parent->name.empty())
    return module_ + "." + std::string(parent->name);
  // `main = Runner().main`: the method called through that module-level name.
  if (function.is_method() && parent->parent != nullptr && parent->parent->kind == Scope::Kind::Module)
    if (const std::string_view alias = bound_method_name(*parent->parent, function, locator_.source); !alias.empty())
      return module_ + "." + std::string(alias);
  return "";
}

std::optional<ValueRef> ValueEvaluator::parameter_ref(const Scope& function, const Parameter& parameter,
                                                      int depth) const {
  if (parameter.kind != Parameter::Kind::Normal) return std::nullopt;
  std::string callable = callable_name(function);
  if (callable.empty()) return std::nullopt;
  ValueRef ref;
  ref.kind = ValueRef::Kind::Parameter;
  ref.target = std::move(callable);
  ref.parameter = std::string(parameter.name);
  ref.index = parameter.index;
  ref.of_class = function.is_method();
  if (!ts_node_is_null(parameter.default_value) && depth < kMaxRefDepth) {
    // A default is evaluated when the def runs, in the scope around it.
    Value d;
    d.where = locator_.locate(parameter.default_value);
    d.spelling = std::string(node_text(parameter.default_value, locator_.source));
    d.constant = folder_.fold(parameter.default_value, function.parent);
    if (!d.constant) {
      std::vector<ProvenanceStep> steps;
      d.ref = reference(parameter.default_value, function.parent, {}, depth + 1, steps);
      if (d.ref) {
        d.ref->steps.insert(d.ref->steps.begin(), steps.begin(), steps.end());
        d.ref->spelling = d.spelling;
      }
    }
    ref.default_value.push_back(std::move(d));
  }
  return ref;
}

const SelfAttribute* ValueEvaluator::self_attribute(TSNode attribute, const Scope* scope) const {
  return folder_.self_attribute(attribute, scope);
}

const SelfAttribute* ConstantFolder::self_attribute(TSNode attribute, const Scope* scope) const {
  const Grammar& g = Grammar::get();
  if (!is(attribute, g.attribute)) return nullptr;
  const TSNode object = field(attribute, g.f_object);
  if (!is(object, g.identifier)) return nullptr;
  const Scope* method = scope;
  while (method != nullptr && method->kind != Scope::Kind::Function) method = method->parent;
  // A closure of a method that does not bind the name reads the method's `self`.
  const std::string_view object_name = node_text(object, locator_.source);
  while (method != nullptr && method->kind == Scope::Kind::Function && !method->is_method() &&
         !method->bindings.contains(object_name))
    method = method->parent;
  if (method == nullptr || !method->is_method() || method->parameters.empty() ||
      method->parameters.front().kind != Parameter::Kind::Self ||
      method->parameters.front().name != node_text(object, locator_.source))
    return nullptr;
  const Scope& owner = *method->parent;
  const auto name = node_text(field(attribute, g.f_attribute), locator_.source);
  const auto it = owner.self_attributes.find(name);
  if (it == owner.self_attributes.end() || it->second.count != 1 || ts_node_is_null(it->second.value)) return nullptr;
  return &it->second;
}

std::optional<ValueRef> ValueEvaluator::self_attribute_ref(TSNode attribute, const Scope* scope, int depth,
                                                           std::vector<ProvenanceStep>& steps) const {
  const SelfAttribute* set_ptr = self_attribute(attribute, scope);
  if (set_ptr == nullptr) return std::nullopt;
  const SelfAttribute& set = *set_ptr;
  const auto name = node_text(field(attribute, Grammar::get().f_attribute), locator_.source);
  auto found = reference(set.value, set.method, {}, depth + 1, steps);
  if (found) {
    TSNode statement = ts_node_parent(set.value);
    steps.push_back(ProvenanceStep{locator_.locate(statement),
                                   "self." + std::string(name) + " = " +
                                       std::string(node_text(set.value, locator_.source)) + " is set here"});
  }
  return found;
}

std::optional<ValueRef> ValueEvaluator::config_ref(TSNode expression, const Scope* scope, bool imported_root) const {
  auto read = config_read(expression, locator_.source);
  if (!read) return std::nullopt;
  // An imported module is not a config object (`tf.config.x`, `from . import constants as C`).
  if (!imported_root && read->root.find('.') == std::string::npos) {
    if (imported(read->root, scope)) return std::nullopt;
  }
  ValueRef ref;
  ref.kind = ValueRef::Kind::ConfigKey;
  ref.target = std::move(read->path);
  ref.root = std::move(read->root);
  // A sub-node handed to the function (`build(cfg.model)`, then `cfg.bn_eps` inside): the key is
  // under that node, when every call of the function in the module hands the same one.
  if (ref.root.find('.') == std::string::npos) {
    const auto handed = folder_.handed_config_node(ref.root, scope);
    if (handed.kind == ConstantFolder::HandedNode::Kind::Node) {
      ref.target = handed.path + "." + ref.target;
      ref.root = handed.root;
    } else if (handed.saw_node) {
      return std::nullopt;  // calls handing different nodes: which one is read is the call's
    }
  }
  return ref;
}

std::optional<ValueRef> ValueEvaluator::reference(TSNode node, const Scope* scope,
                                                  std::span<const std::string_view> shadowed, int depth,
                                                  std::vector<ProvenanceStep>& steps) const {
  if (ts_node_is_null(node) || depth > kMaxRefDepth) return std::nullopt;
  const Grammar& g = Grammar::get();
  const std::string_view source = locator_.source;
  if (is(node, g.parenthesized_expression)) return reference(ts_node_named_child(node, 0), scope, shadowed, depth + 1, steps);
  if (is(node, g.identifier)) {
    const auto name = node_text(node, source);
    if (std::find(shadowed.begin(), shadowed.end(), name) != shadowed.end()) return std::nullopt;
    const auto [defining, binding] = scopes_.lookup(scope, name);
    if (const auto import = imported(name, scope)) {
      if (is_framework_root(*import, framework_roots_) || import->find('.') == std::string_view::npos)
        return std::nullopt;
      ValueRef ref;
      ref.kind = ValueRef::Kind::ModuleAttribute;
      ref.target = std::string(*import);
      return ref;
    }
    if (binding == nullptr) return std::nullopt;
    if (binding->simple()) {
      auto found = reference(binding->value, defining, {}, depth + 1, steps);
      if (found) {
        TSNode statement = binding->assignment();
        if (ts_node_is_null(statement)) statement = binding->target;
        steps.push_back(ProvenanceStep{locator_.locate(statement),
                                       std::string(name) + " = " + std::string(node_text(binding->value, source)) +
                                           " is defined here"});
      }
      return found;
    }
    if (binding->only_parameter() && defining->kind == Scope::Kind::Function)
      return parameter_ref(*defining, defining->parameters[static_cast<std::size_t>(binding->parameter)], depth);
    return std::nullopt;
  }
  if (is(node, g.attribute)) {
    // A module's constant through an imported module object: `C.BN_EPS` with `import pkg.constants as C`.
    TSNode root = node;
    std::vector<std::string_view> parts;
    while (is(root, g.attribute)) {
      parts.push_back(node_text(field(root, g.f_attribute), source));
      root = field(root, g.f_object);
    }
    if (is(root, g.identifier)) {
      if (const auto import = imported(node_text(root, source), scope)) {
        if (is_framework_root(*import, framework_roots_)) return std::nullopt;
        // `from pycls.core.config import cfg` ... `cfg.BN.EPS`: a config object imported from
        // another module, read two keys deep, is a config read, not a module constant.
        if (parts.size() >= 2 && config_like(node_text(root, source))) return config_ref(node, scope, true);
        ValueRef ref;
        ref.kind = ValueRef::Kind::ModuleAttribute;
        ref.target = std::string(*import);
        for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
          ref.target += '.';
          ref.target += *it;
        }
        return ref;
      }
    }
    if (auto self = self_attribute_ref(node, scope, depth, steps)) return self;
    return config_ref(node, scope);
  }
  if (is(node, g.subscript)) return config_ref(node, scope);
  return std::nullopt;
}

Value ValueEvaluator::evaluate(TSNode expression, const Scope* scope, std::span<const std::string_view> shadowed) const {
  Value value;
  value.where = locator_.locate(expression);
  value.spelling = std::string(node_text(expression, locator_.source));
  {
    const ConstantFolder::ConfigReadSettledLater later(folder_, expression);
    value.constant = folder_.fold(expression, scope, shadowed);
  }
  if (value.constant) return value;
  // `self.eps` set to a constant in __init__ folds too.
  if (const SelfAttribute* set = self_attribute(expression, scope)) {
    if (auto folded = folder_.fold(set->value, set->method)) {
      folded->spelling = value.spelling;
      const auto name = node_text(field(expression, Grammar::get().f_attribute), locator_.source);
      folded->provenance.push_back(ProvenanceStep{
          locator_.locate(ts_node_parent(set->value)),
          "self." + std::string(name) + " = " + std::string(node_text(set->value, locator_.source)) + " is set here"});
      value.constant = std::move(folded);
      return value;
    }
  }
  std::vector<ProvenanceStep> steps;
  value.ref = reference(expression, scope, shadowed, 0, steps);
  if (value.ref) {
    value.ref->steps.insert(value.ref->steps.begin(), steps.begin(), steps.end());
    value.ref->spelling = value.spelling;
  }
  return value;
}

}  // namespace cudnnlint::python
