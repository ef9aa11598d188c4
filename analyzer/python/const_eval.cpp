#include "python/const_eval.h"

#include <cerrno>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
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
    // An inf or nan operand carries through (`-2 * math.inf`); finite operands that overflow are
    // left alone: Python raises OverflowError for `10.0 ** 400`, and ints do not overflow.
    if (!std::isfinite(result) && std::isfinite(a) && std::isfinite(b)) return std::nullopt;
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
    const TSNode arg = ts_node_named_child(args, 0);
    if (name == "float") {
      // float('nan'), float("inf"), float(' 1e-5 ')
      if (const auto text = string_literal(arg, source)) {
        const auto parsed = parse_python_float_string(*text);
        if (!parsed) return std::nullopt;
        return ConstantValue{*parsed, {}, {}};
      }
    }
    if (name == "int" && is(arg, g.string)) return std::nullopt;
    auto inner = fold_at_depth(arg, scope, depth + 1, shadowed);
    if (inner && name == "int" && !std::isfinite(inner->value)) return std::nullopt;  // int(inf) raises
    if (inner && name == "int") inner->value = std::trunc(inner->value);
    return inner;
  }
  if (sym == g.attribute || sym == g.identifier) {
    // math.inf, np.nan, torch.inf, `from math import inf`: the constants modules export.
    if (auto constant = module_constant(node, scope, shadowed)) return constant;
  }
  if (sym == g.identifier) {
    const auto name = node_text(node, source);
    if (std::find(shadowed.begin(), shadowed.end(), name) != shadowed.end()) return std::nullopt;
    const auto [defining_scope, binding] = scopes_.lookup(scope, name);
    if (bindings_ != nullptr && defining_scope == bindings_->scope)
      if (const ConstantValue* bound = bindings_->find(name)) {
        ConstantValue value = *bound;
        value.spelling = std::string(name);
        return value;
      }
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
  const bool only_import = binding->count == 1 && ts_node_is_null(binding->value) &&
                           ts_node_is_null(binding->definition) && binding->parameter < 0;
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
    if (constant == "inf") return ConstantValue{std::numeric_limits<double>::infinity(), {}, {}};
    if (constant == "nan") return ConstantValue{std::numeric_limits<double>::quiet_NaN(), {}, {}};
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
  const Grammar& g = Grammar::get();
  if (!is(attribute, g.attribute)) return nullptr;
  const TSNode object = field(attribute, g.f_object);
  if (!is(object, g.identifier)) return nullptr;
  const Scope* method = scope;
  while (method != nullptr && method->kind != Scope::Kind::Function) method = method->parent;
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
  const Grammar& g = Grammar::get();
  const std::string_view source = locator_.source;
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
  std::string root(node_text(node, source));
  // `self.cfg.MODEL.X`: the object is self's cfg.
  if (root == "self" && path.size() >= 2) {
    root += "." + path.back();
    path.pop_back();
  }
  const std::string_view last_root = std::string_view(root).substr(root.rfind('.') == std::string::npos ? 0 : root.rfind('.') + 1);
  if (!config_like(last_root)) return std::nullopt;
  // An imported module is not a config object (`tf.config.x`, `from . import constants as C`).
  if (!imported_root && root.find('.') == std::string::npos) {
    if (imported(root, scope)) return std::nullopt;
  }
  ValueRef ref;
  ref.kind = ValueRef::Kind::ConfigKey;
  for (auto it = path.rbegin(); it != path.rend(); ++it) ref.target += (ref.target.empty() ? "" : ".") + *it;
  ref.root = std::move(root);
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
  value.constant = folder_.fold(expression, scope, shadowed);
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
