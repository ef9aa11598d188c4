#include "python/scopes.h"

namespace cudnnlint::python {

namespace {

std::uint64_t node_key(TSNode node) {
  return (static_cast<std::uint64_t>(ts_node_start_byte(node)) << 16) ^ ts_node_symbol(node);
}

void count_binding(Scope& scope, std::string_view name) { ++scope.bindings[name].count; }

bool is_statement_container(TSSymbol sym, const Grammar& g) {
  return sym == g.module || sym == g.block || sym == g.decorated_definition || sym == g.if_statement ||
         sym == g.elif_clause || sym == g.else_clause || sym == g.while_statement || sym == g.try_statement ||
         sym == g.except_clause || sym == g.finally_clause || sym == g.with_statement || sym == g.with_clause ||
         sym == g.with_item || sym == g.match_statement || sym == g.case_clause || sym == g.except_group_clause;
}

}  // namespace

TSNode Binding::assignment() const {
  const Grammar& g = Grammar::get();
  if (ts_node_is_null(target)) return {};
  TSNode at = ts_node_parent(target);
  if (is(at, g.pattern_list) || is(at, g.tuple_pattern) || is(at, g.tuple) || is(at, g.list_pattern))
    at = ts_node_parent(at);
  return at;
}

Scope& ScopeTree::open(Scope::Kind kind, TSNode node, Scope* parent) {
  Scope& scope = scopes_.emplace_back();
  scope.kind = kind;
  scope.parent = parent;
  scope.node = node;
  by_node_[node_key(node)] = &scope;
  return scope;
}

const Scope* ScopeTree::scope_of(TSNode definition) const {
  const auto it = by_node_.find(node_key(definition));
  return it == by_node_.end() ? nullptr : it->second;
}

void ScopeTree::add_module_bindings(std::span<const std::string_view> names) {
  for (const auto name : names) count_binding(scopes_.front(), name);
}

const ClassInfo* ScopeTree::module_class(std::string_view name) const {
  for (const auto& info : classes_)
    if (info.name == name && info.scope && info.scope->parent == &module()) return &info;
  return nullptr;
}

std::pair<const Scope*, const Binding*> ScopeTree::lookup(const Scope* from, std::string_view name) const {
  for (const Scope* scope = from; scope != nullptr; scope = scope->parent) {
    if (scope->kind == Scope::Kind::Class && scope != from) continue;
    const auto it = scope->bindings.find(name);
    if (it != scope->bindings.end()) return {scope, &it->second};
  }
  return {nullptr, nullptr};
}

void ScopeTree::bind_target(Scope& scope, TSNode target, std::string_view source, int depth) {
  const Grammar& g = Grammar::get();
  if (depth > 64) return;  // `[[[...a...]]] = x` nested beyond reason: stop, the stack is finite
  if (is(target, g.identifier)) {
    count_binding(scope, node_text(target, source));
    return;
  }
  // Tuple/list unpacking, starred targets: every identifier inside is (re)bound, never simply.
  if (is(target, g.attribute) || is(target, g.subscript)) return;
  for (const TSNode child : named_children(target)) bind_target(scope, child, source, depth + 1);
}

// `IMG_ROWS, IMG_COLS = 28, 28`: names unpacked from a tuple or list written with as many plain
// items, each bound to its own item as a simple assignment would bind it. False (nothing bound)
// for any other shape: a starred name, a nested pattern, a computed right-hand side.
bool ScopeTree::bind_unpacked(Scope& scope, TSNode left, TSNode right, std::string_view source) {
  const Grammar& g = Grammar::get();
  if (!(is(left, g.pattern_list) || is(left, g.tuple_pattern) || is(left, g.tuple) || is(left, g.list_pattern)) ||
      !(is(right, g.expression_list) || is(right, g.tuple) || is(right, g.list)))
    return false;
  const std::vector<TSNode> names = named_children(left);
  const std::vector<TSNode> values = named_children(right);
  if (names.size() != values.size() || names.empty()) return false;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!is(names[i], g.identifier) || is(values[i], g.list_splat) || is(values[i], g.comment)) return false;
  for (std::size_t i = 0; i < names.size(); ++i) {
    Binding& binding = scope.bindings[node_text(names[i], source)];
    if (binding.count++ == 0) {
      binding.target = names[i];
      binding.value = values[i];
    }
  }
  return true;
}

void ScopeTree::bind_parameters(Scope& scope, TSNode parameters, std::string_view source) {
  if (ts_node_is_null(parameters)) return;
  const Grammar& g = Grammar::get();
  const uint32_t n = ts_node_named_child_count(parameters);
  const bool method = scope.is_method();
  int position = 0;          // positional index among the call's arguments (self excluded)
  bool keyword_only = false; // after `*` or `*args`
  auto add = [&](std::string_view name, TSNode default_value, Parameter::Kind kind) {
    Parameter param{name, -1, default_value, kind};
    if (kind == Parameter::Kind::Normal) {
      if (method && scope.parameters.empty()) {
        param.kind = Parameter::Kind::Self;  // `self` (or `cls`) is bound by the call's receiver
      } else if (!keyword_only) {
        param.index = position++;
      }
    }
    Binding& binding = scope.bindings[name];
    if (binding.count++ == 0) binding.parameter = static_cast<int>(scope.parameters.size());
    scope.parameters.push_back(param);
  };
  for (uint32_t i = 0; i < n; ++i) {
    const TSNode param = ts_node_named_child(parameters, i);
    if (is(param, g.identifier)) {
      add(node_text(param, source), {}, Parameter::Kind::Normal);
    } else if (is(param, g.default_parameter) || is(param, g.typed_default_parameter)) {
      const TSNode name = field(param, g.f_name);
      if (!ts_node_is_null(name)) add(node_text(name, source), field(param, g.f_value), Parameter::Kind::Normal);
    } else if (is(param, g.list_splat_pattern) || is(param, g.dictionary_splat_pattern) ||
               is(param, g.typed_parameter)) {
      // typed_parameter wraps an identifier or a splat pattern.
      TSNode inner = param;
      if (is(param, g.typed_parameter)) inner = ts_node_named_child(param, 0);
      if (is(inner, g.identifier)) {
        add(node_text(inner, source), {}, Parameter::Kind::Normal);
      } else if (is(inner, g.list_splat_pattern) || is(inner, g.dictionary_splat_pattern)) {
        const bool var_args = is(inner, g.list_splat_pattern);
        const TSNode id = ts_node_named_child(inner, 0);
        if (is(id, g.identifier))
          add(node_text(id, source), {}, var_args ? Parameter::Kind::VarArgs : Parameter::Kind::VarKeywords);
        if (var_args) {
          scope.has_var_args = true;
          keyword_only = true;
        } else {
          scope.has_var_keywords = true;
        }
      }
    } else if (is(param, g.keyword_separator)) {
      keyword_only = true;
    }
  }
}

void ScopeTree::note_self_attribute(Scope& writer, TSNode target, TSNode value, std::string_view source) {
  const Grammar& g = Grammar::get();
  if (!is(target, g.attribute)) return;
  // The method whose `self` the write goes through: the writer itself, or the method a closure
  // stands in (`def __init__(self): def fill(): self.x = ...`) when no scope between binds that
  // name. The value is read in the writer, where its names mean what they mean there.
  const Scope* method = &writer;
  while (method != nullptr && method->kind == Scope::Kind::Function && !method->is_method()) method = method->parent;
  if (method == nullptr || !method->is_method() || method->parameters.empty() ||
      method->parameters.front().kind != Parameter::Kind::Self)
    return;
  const std::string_view self_name = method->parameters.front().name;
  for (const Scope* between = &writer; between != method; between = between->parent)
    if (between->bindings.contains(self_name)) return;
  const TSNode object = field(target, g.f_object);
  if (!is(object, g.identifier) || node_text(object, source) != self_name) return;
  Scope& owner = const_cast<Scope&>(*method->parent);
  SelfAttribute& attribute = owner.self_attributes[node_text(field(target, g.f_attribute), source)];
  if (attribute.count++ == 0) {
    attribute.value = value;
    attribute.method = &writer;
  }
}

void ScopeTree::note_self_targets(Scope& method, TSNode target, TSNode value, std::string_view source) {
  const Grammar& g = Grammar::get();
  if (is(target, g.attribute)) {
    note_self_attribute(method, target, value, source);
    return;
  }
  // `self.a, self.b = ...`: each is set, to no single value.
  if (!is(target, g.pattern_list) && !is(target, g.tuple_pattern) && !is(target, g.list_pattern) &&
      !is(target, g.list_splat_pattern) && !is(target, g.tuple) && !is(target, g.list))
    return;
  std::vector<TSNode> pending{target};
  while (!pending.empty()) {
    const TSNode node = pending.back();
    pending.pop_back();
    if (is(node, g.attribute)) {
      note_self_attribute(method, node, {}, source);
      continue;
    }
    for (const TSNode child : named_children(node)) pending.push_back(child);
  }
}

void ScopeTree::bind_walrus(Scope& scope, TSNode expression, std::string_view source) {
  const Grammar& g = Grammar::get();
  if (ts_node_is_null(expression)) return;
  // Only what holds a `:=` in its text is entered: in a file with one walrus, every expression of
  // the file comes here (a fifth of transformers' trainer.py's analysis when all were walked).
  auto holds_walrus = [&](TSNode node) { return node_text(node, source).find(":=") != std::string_view::npos; };
  if (!holds_walrus(expression)) return;
  walk_tree(
      expression,
      [&](TSNode node, const TSTreeCursor*) {
        if (!ts_node_is_named(node) || !holds_walrus(node)) return false;
        if (is(node, g.named_expression)) {
          const TSNode name = field(node, g.f_name);
          if (is(name, g.identifier)) count_binding(scope, node_text(name, source));
        }
        return true;
      },
      [](TSNode) {});
}

void ScopeTree::bind_pattern_names(Scope& scope, TSNode pattern, std::string_view source) {
  const Grammar& g = Grammar::get();
  std::vector<TSNode> pending{pattern};
  while (!pending.empty()) {
    const TSNode node = pending.back();
    pending.pop_back();
    if (is(node, g.identifier)) {
      count_binding(scope, node_text(node, source));
      continue;
    }
    for (const TSNode child : named_children(node)) pending.push_back(child);
  }
}

void ScopeTree::build(TSNode root, std::string_view source, ImportTable& imports,
                      const std::vector<std::string>& star_candidates, RegionFilter region) {
  const Grammar& g = Grammar::get();
  scopes_.clear();
  by_node_.clear();
  classes_.clear();
  std::vector<Scope*> stack{&open(Scope::Kind::Module, root, nullptr)};

  // Only statements are visited: expressions bind nothing here but walrus targets (a lambda's
  // parameters are the resolver's business), and skipping them halves the cost of this pass.
  // Expressions are searched for `:=` only in a file that has one.
  const bool has_walrus = source.find(":=") != std::string_view::npos;
  auto statement = [&](TSNode node, const TSTreeCursor*) -> bool {
    if (!ts_node_is_named(node)) return false;
    const TSSymbol sym = ts_node_symbol(node);
    Scope& current = *stack.back();
    if (sym == g.function_definition || sym == g.class_definition) {
      const TSNode name = field(node, g.f_name);
      if (!ts_node_is_null(name)) {
        Binding& binding = current.bindings[node_text(name, source)];
        if (binding.count++ == 0) binding.definition = node;
      }
      const bool is_class = sym == g.class_definition;
      Scope& inner = open(is_class ? Scope::Kind::Class : Scope::Kind::Function, node, &current);
      if (!ts_node_is_null(name)) inner.name = node_text(name, source);
      if (is_class) {
        classes_.push_back(ClassInfo{node, node_text(name, source), field(node, g.f_superclasses), &inner});
      } else {
        bind_parameters(inner, field(node, g.f_parameters), source);
      }
      stack.push_back(&inner);
      return true;
    }
    if (sym == g.import_statement || sym == g.import_from_statement) {
      imports.add_statement(node, source, star_candidates, &current);
      // Each imported local name is a binding that is not a constant.
      const uint32_t n = ts_node_named_child_count(node);
      const TSNode module_name = field(node, g.f_module_name);
      for (uint32_t i = 0; i < n; ++i) {
        const TSNode child = ts_node_named_child(node, i);
        if (!ts_node_is_null(module_name) && ts_node_eq(child, module_name)) continue;
        if (is(child, g.aliased_import)) {
          const TSNode alias = field(child, g.f_alias);
          if (!ts_node_is_null(alias)) count_binding(current, node_text(alias, source));
        } else if (is(child, g.dotted_name)) {
          const auto text = node_text(child, source);
          count_binding(current, text.substr(0, text.find('.')));
        }
      }
      return false;
    }
    if (sym == g.assignment) {
      // `a = b = 1`: the innermost right-hand side is the value of every target.
      std::vector<TSNode> targets{field(node, g.f_left)};
      TSNode right = field(node, g.f_right);
      while (is(right, g.assignment)) {
        targets.push_back(field(right, g.f_left));
        right = field(right, g.f_right);
      }
      for (const TSNode left : targets) {
        if (current.kind == Scope::Kind::Function) note_self_targets(current, left, right, source);
        if (is(left, g.identifier)) {
          Binding& binding = current.bindings[node_text(left, source)];
          if (binding.count++ == 0 && !ts_node_is_null(right)) {
            binding.target = left;
            binding.value = right;
          }
        } else if (!bind_unpacked(current, left, right, source)) {
          bind_target(current, left, source);
        }
      }
      if (has_walrus) bind_walrus(current, right, source);
      return false;
    }
    if (sym == g.augmented_assignment) {
      const TSNode left = field(node, g.f_left);
      if (current.kind == Scope::Kind::Function) note_self_targets(current, left, {}, source);
      bind_target(current, left, source);
      if (has_walrus) bind_walrus(current, field(node, g.f_right), source);
      return false;
    }
    if (sym == g.for_statement) {
      if (current.kind == Scope::Kind::Function) note_self_targets(current, field(node, g.f_left), {}, source);
      bind_target(current, field(node, g.f_left), source);
      return true;
    }
    if (sym == g.case_clause) {
      // Capture patterns bind names: count every name in the patterns (a class or constant named
      // there is counted too, which only makes fewer names constant).
      for (const TSNode child : named_children(node)) {
        if (is(child, g.case_pattern)) bind_pattern_names(current, child, source);
      }
      return true;
    }
    if (sym == g.as_pattern) {  // with ... as x, except E as x
      const TSNode alias = field(node, g.f_alias);
      if (!ts_node_is_null(alias)) bind_target(current, alias, source);
      return false;
    }
    if (sym == g.global_statement || sym == g.nonlocal_statement) {
      // The name is assigned from elsewhere: not a constant where it lives. `global` rebinds the
      // module's name; `nonlocal` an enclosing function's (never the module's, never a class's).
      const bool global = sym == g.global_statement;
      const uint32_t n = ts_node_named_child_count(node);
      for (uint32_t i = 0; i < n; ++i) {
        const auto name = node_text(ts_node_named_child(node, i), source);
        count_binding(current, name);
        for (Scope* s = const_cast<Scope*>(current.parent); s != nullptr; s = const_cast<Scope*>(s->parent))
          if (global ? s->kind == Scope::Kind::Module : s->kind == Scope::Kind::Function) count_binding(*s, name);
      }
      return false;
    }
    if (sym == g.expression_statement) {
      // `x = 1` is an expression_statement holding an assignment; a bare call binds nothing.
      const TSNode inner = ts_node_named_child(node, 0);
      return is(inner, g.assignment) || is(inner, g.augmented_assignment);
    }
    // Compound statements and their clauses hold further statements; anything else is an
    // expression or a simple statement that binds nothing.
    return is_statement_container(sym, g);
  };
  auto visit = [&](TSNode node, const TSTreeCursor* cursor) -> bool {
    if (statement(node, cursor)) return true;
    if (has_walrus && ts_node_is_named(node) && !is(node, g.assignment) && !is(node, g.augmented_assignment))
      bind_walrus(*stack.back(), node, source);
    return false;
  };
  auto leave = [&](TSNode node) {
    const TSSymbol sym = ts_node_symbol(node);
    if (sym == g.function_definition || sym == g.class_definition) stack.pop_back();
  };
  walk_tree(root, visit, leave, region);
}

}  // namespace cudnnlint::python
