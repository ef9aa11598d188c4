#include "python/resolver.h"

#include <algorithm>

namespace cudnnlint::python {

CallArgs collect_args(TSNode argument_list, std::string_view source) {
  const Grammar& g = Grammar::get();
  CallArgs args;
  if (!is(argument_list, g.argument_list)) return args;
  for (const TSNode arg : named_children(argument_list)) {
    const TSSymbol sym = ts_node_symbol(arg);
    if (sym == g.comment) continue;
    if (sym == g.keyword_argument) {
      args.keywords.emplace_back(node_text(field(arg, g.f_name), source), field(arg, g.f_value));
    } else if (sym == g.dictionary_splat) {
      args.has_double_star = true;
    } else if (sym == g.list_splat) {
      if (args.first_star < 0) args.first_star = static_cast<int>(args.positional.size());
      args.positional.push_back(arg);
    } else {
      args.positional.push_back(arg);
    }
  }
  return args;
}

TSNode argument_for_parameter(const CallArgs& args, const Parameter& parameter) {
  if (args.first_star >= 0 || args.has_double_star) return {};
  for (const auto& [name, value] : args.keywords)
    if (name == parameter.name) return value;
  if (parameter.index >= 0 && static_cast<std::size_t>(parameter.index) < args.positional.size())
    return args.positional[static_cast<std::size_t>(parameter.index)];
  return {};
}

ArgBinding bind_arg(const ApiArg& arg, const CallArgs& args, int shift) {
  for (const auto& [name, value] : args.keywords)
    if (name == arg.name) return {ArgBinding::Source::Explicit, value};
  if (arg.index) {
    const int index = *arg.index + shift;
    if (index < 0) return {ArgBinding::Source::Default, {}};  // bound earlier (by a partial), not by these arguments
    const bool star_before = args.first_star >= 0 && args.first_star <= index;
    if (!star_before && static_cast<int>(args.positional.size()) > index)
      return {ArgBinding::Source::Explicit, args.positional[static_cast<std::size_t>(index)]};
    if (star_before) return {ArgBinding::Source::Unresolvable, {}};
  }
  if (args.has_double_star) return {ArgBinding::Source::Unresolvable, {}};
  return {ArgBinding::Source::Default, {}};
}

Resolver::Resolver(const NodeLocator& locator, const ScopeTree& scopes, const ImportTable& imports,
                   const ApiTable& table, std::string module, std::span<const std::string> framework_roots,
                   FileFacts& out, const ImportedConstants* imported_constants,
                   const ConfigConstants* config_constants)
    : locator_(locator), source_(locator.source), scopes_(scopes), imports_(imports), table_(table),
      module_(std::move(module)),
      evaluator_(locator, scopes, imports, module_, framework_roots, imported_constants, config_constants),
      out_(out),
      g_(Grammar::get()) {}

void Resolver::run(TSNode root, std::span<Extractor* const> extractors, RegionFilter region) {
  extractors_ = extractors;
  scope_stack_.assign(1, &scopes_.module());
  walk_tree(
      root, [this](TSNode node, const TSTreeCursor* cursor) { return visit(node, cursor); },
      [this](TSNode node) { leave(node); }, region);
  for (Extractor* extractor : extractors_) extractor->finish(*this);
}

bool Resolver::visit(TSNode node, const TSTreeCursor* cursor) {
  if (!ts_node_is_named(node)) return false;
  const TSSymbol sym = ts_node_symbol(node);
  if (sym == g_.comment || sym == g_.string || sym == g_.integer || sym == g_.float_) return false;
  if (sym == g_.block && !node_stack_.empty() &&
      (is(node_stack_.back(), g_.if_statement) || is(node_stack_.back(), g_.elif_clause)) &&
      ts_tree_cursor_current_field_id(cursor) == g_.f_consequence) {
    const std::size_t before = guards_.size();
    add_guards(field(node_stack_.back(), g_.f_condition));
    guard_frames_.push_back(GuardFrame{node, guards_.size() - before});
  }
  if (sym == g_.function_definition || sym == g_.class_definition) {
    const Scope* inner = scopes_.scope_of(node);
    if (sym == g_.class_definition) {
      Resolved base = class_api(node);
      // Only for the families this run extracts: a subclass of nn.Conv2d matters to a run that reads
      // convolution geometry, not to one that reads batch norms.
      if (base.api != nullptr && scope()->kind == Scope::Kind::Module &&
          std::any_of(extractors_.begin(), extractors_.end(), [&](Extractor* e) { return e->handles(*base.api); }))
        note_subclass(node, base);
      class_stack_.push_back(std::move(base));
    }
    scope_stack_.push_back(inner ? inner : scope());
  } else if (sym == g_.lambda) {
    shadow_marks_.push_back(shadowed_.size());
    shadow_identifiers(field(node, g_.f_parameters));
    nested_.push_back(node);
  } else if (is_comprehension(sym)) {
    shadow_marks_.push_back(shadowed_.size());
    shadow_comprehension_targets(node);
    nested_.push_back(node);
  } else if (sym == g_.call) {
    handle_call(node);
  } else if (sym == g_.assignment) {
    handle_assignment(node);
  } else if (sym == g_.dictionary) {
    for (Extractor* extractor : extractors_) extractor->on_dictionary(node, *this);
  } else if (sym == g_.binary_operator || sym == g_.augmented_assignment) {
    // `d += eps` is `d = d + eps`: the same operator with the same operands (left, operator, right).
    for (Extractor* extractor : extractors_) extractor->on_binary_operator(node, *this);
  }
  node_stack_.push_back(node);
  return true;
}

void Resolver::leave(TSNode node) {
  node_stack_.pop_back();
  const TSSymbol sym = ts_node_symbol(node);
  if (sym == g_.function_definition || sym == g_.class_definition) {
    scope_stack_.pop_back();
    if (sym == g_.class_definition) class_stack_.pop_back();
  } else if (sym == g_.lambda || is_comprehension(sym)) {
    shadowed_.resize(shadow_marks_.back());
    shadow_marks_.pop_back();
    nested_.pop_back();
  }
  if (!guard_frames_.empty() && ts_node_eq(guard_frames_.back().block, node)) {
    guards_.resize(guards_.size() - guard_frames_.back().pushed);
    guard_frames_.pop_back();
  }
}

// ---- lambdas and comprehensions ------------------------------------------------------------

const Scope* Resolver::name_scope(TSNode at) const {
  const Scope* current = scope();
  // No class statement sits inside an expression: in a class scope, every entry of nested_ is
  // in the class body.
  if (current->kind != Scope::Kind::Class || nested_.empty() || current->parent == nullptr) return current;
  const TSNode outermost = nested_.front();
  if (!ts_node_is_null(at) && is_comprehension(ts_node_symbol(outermost))) {
    // The first iterable is evaluated in the class body: `[f(c) for c in CHANNELS]`.
    for (const TSNode clause : named_children(outermost)) {
      if (!is(clause, g_.for_in_clause)) continue;
      const TSNode iterable = field(clause, g_.f_right);
      if (!ts_node_is_null(iterable) && ts_node_start_byte(at) >= ts_node_start_byte(iterable) &&
          ts_node_end_byte(at) <= ts_node_end_byte(iterable))
        return current;
      break;
    }
  }
  while (current->kind == Scope::Kind::Class && current->parent != nullptr) current = current->parent;
  return current;
}
// Their parameters and loop targets are local to them: inside, such a name is never the module
// constant of the same name.

bool Resolver::is_comprehension(TSSymbol sym) const {
  return sym == g_.list_comprehension || sym == g_.set_comprehension || sym == g_.dictionary_comprehension ||
         sym == g_.generator_expression;
}

void Resolver::shadow_identifiers(TSNode node, int depth) {
  if (ts_node_is_null(node) || depth > 32) return;
  if (is(node, g_.identifier)) {
    shadowed_.push_back(node_text(node, source_));
    return;
  }
  for (const TSNode child : named_children(node)) {
    // A default value is not a binding: `lambda eps=EPS: ...` binds eps only.
    if (is(node, g_.default_parameter) && ts_node_eq(child, field(node, g_.f_value))) continue;
    shadow_identifiers(child, depth + 1);
  }
}

void Resolver::shadow_comprehension_targets(TSNode comprehension) {
  for (const TSNode child : named_children(comprehension)) {
    if (is(child, g_.for_in_clause)) shadow_identifiers(field(child, g_.f_left));
  }
}

// ---- name resolution -------------------------------------------------------------------------

std::optional<std::string> Resolver::qualified_name(TSNode node, const Scope* from, int depth) const {
  if (depth > 16 || ts_node_is_null(node)) return std::nullopt;
  if (is(node, g_.identifier)) {
    const auto name = node_text(node, source_);
    const auto [defining, binding] = scopes_.lookup(from, name);
    if (binding != nullptr && binding->simple()) {
      // `norm = nn.BatchNorm2d` makes `norm` another name for the class.
      const TSNode value = binding->value;
      if (defining->kind == Scope::Kind::Module && !module_.empty() && !ts_node_is_null(bound_method_definition(value)))
        return module_ + "." + std::string(name);  // `main = Runner().main`: a callable of this module
      if (is(value, g_.identifier) || is(value, g_.attribute)) return qualified_name(value, defining, depth + 1);
      return std::nullopt;
    }
    if (binding != nullptr && binding->only_parameter() && defining->kind == Scope::Kind::Function)
      return parameter_qualified_name(*defining, defining->parameters[static_cast<std::size_t>(binding->parameter)],
                                      depth);
    if (binding != nullptr && binding->only_definition() && defining->kind == Scope::Kind::Module && !module_.empty())
      return module_ + "." + std::string(name);  // a def or class of this module
    if (const auto imported = imports_.lookup(name, defining != nullptr ? defining : &scopes_.module()))
      return std::string(*imported);
    return std::nullopt;
  }
  if (is(node, g_.attribute)) {
    auto object = qualified_name(field(node, g_.f_object), from, depth + 1);
    if (!object) return std::nullopt;
    *object += '.';
    *object += node_text(field(node, g_.f_attribute), source_);
    return object;
  }
  return std::nullopt;
}

TSNode Resolver::bound_method_definition(TSNode value) const {
  return evaluator_.folder().bound_method_definition(value);
}

std::optional<std::string> Resolver::parameter_qualified_name(const Scope& function, const Parameter& parameter,
                                                              int depth) const {
  // `norm_layer=nn.BatchNorm2d`: a class or function passed by name, the same at every call of the
  // function in this module (its default where a call leaves it out). Only a default that names
  // something is looked at: a parameter used as a callee is common, a named default rare.
  const TSNode default_value = parameter.default_value;
  if (ts_node_is_null(default_value) || (!is(default_value, g_.identifier) && !is(default_value, g_.attribute)))
    return std::nullopt;
  const auto sites = evaluator_.folder().call_sites(function, parameter);
  if (!sites || sites->empty()) return std::nullopt;
  std::optional<std::string> agreed;
  for (const CallSite& site : *sites) {
    const TSNode argument = site.argument;
    if (!is(argument, g_.identifier) && !is(argument, g_.attribute)) return std::nullopt;
    auto name = qualified_name(argument, site.scope, depth + 1);
    if (!name || (agreed && *agreed != *name)) return std::nullopt;
    agreed = std::move(name);
  }
  return agreed;
}

bool Resolver::is_builtin(TSNode callee, std::string_view name) const {
  return is(callee, g_.identifier) && node_text(callee, source_) == name &&
         scopes_.lookup(name_scope(callee), name).second == nullptr && !imports_.lookup(name, &scopes_.module());
}

// The API a class derives from, directly or through local subclasses, with the name the code
// reached it by (torch.nn.InstanceNorm2d, not its table entry's first name).
Resolver::Resolved Resolver::class_api(TSNode class_node, int depth) {
  if (depth > 8) return {};
  const auto key = ts_node_start_byte(class_node);
  if (const auto it = class_api_cache_.find(key); it != class_api_cache_.end()) return it->second;
  class_api_cache_[key] = Resolved{};  // breaks cycles
  Resolved found;
  const TSNode bases = field(class_node, g_.f_superclasses);
  const uint32_t n = ts_node_is_null(bases) ? 0 : ts_node_named_child_count(bases);
  for (uint32_t i = 0; i < n && found.api == nullptr; ++i) {
    const TSNode base = ts_node_named_child(bases, i);
    if (is(base, g_.keyword_argument)) continue;
    if (const auto q = qualified_name(base, &scopes_.module(), 0)) {
      const ApiEntry* api = table_.find(*q);
      if (api && api->is_class) {
        found = Resolved{api, *q, std::string(node_text(base, source_))};
        continue;
      }
    }
    if (is(base, g_.identifier))
      if (const ClassInfo* local = scopes_.module_class(node_text(base, source_)))
        found = class_api(local->node, depth + 1);
  }
  class_api_cache_[key] = found;
  return found;
}

Resolver::Resolved Resolver::resolve_callable(TSNode node) {
  Resolved r;
  if (const auto q = qualified_name(node)) {
    r.api = table_.find(*q);
    r.qualified = *q;
    r.spelled = std::string(node_text(node, source_));
  }
  if (r.api == nullptr && is(node, g_.identifier))
    if (const ClassInfo* local = scopes_.module_class(node_text(node, source_))) {
      Resolved base = class_api(local->node);
      if (base.api != nullptr) {
        base.spelled = std::string(local->name);
        return base;
      }
    }
  return r;
}

// `isinstance(m, nn.BatchNorm2d)` (also inside `and`, with a tuple of classes) and
// `type(m) is nn.BatchNorm2d` / `type(m) == ...` narrow m.
void Resolver::add_guards(TSNode condition, int depth) {
  // Conditions are nested left to right (`a and b and c`): bound the depth so a generated
  // 100,000-term condition cannot exhaust the stack.
  if (ts_node_is_null(condition) || depth > 64) return;
  if (is(condition, g_.parenthesized_expression)) {
    add_guards(ts_node_named_child(condition, 0), depth + 1);
    return;
  }
  if (is(condition, g_.boolean_operator)) {
    if (node_text(field(condition, g_.f_operator), source_) != "and") return;
    add_guards(field(condition, g_.f_left), depth + 1);
    add_guards(field(condition, g_.f_right), depth + 1);
    return;
  }
  if (is(condition, g_.comparison_operator)) {
    // Exactly `type(x) is C` or `type(x) == C` (either side).
    if (ts_node_named_child_count(condition) != 2) return;
    const TSNode left = ts_node_named_child(condition, 0);
    const TSNode right = ts_node_named_child(condition, 1);
    const uint32_t children = ts_node_child_count(condition);
    bool identity = false;
    for (uint32_t i = 0; i < children; ++i) {
      const TSNode child = ts_node_child(condition, i);
      if (ts_node_is_named(child)) continue;
      const auto op = node_text(child, source_);
      if (op == "is" || op == "==") identity = true;
      else if (op == "not" || op == "!=" || op == "in") return;
    }
    if (!identity) return;
    for (const auto& [call, other] : {std::pair{left, right}, std::pair{right, left}}) {
      if (!is(call, g_.call) || !is_builtin(field(call, g_.f_function), "type")) continue;
      const CallArgs args = collect_args(field(call, g_.f_arguments), source_);
      if (args.positional.size() != 1 || !args.keywords.empty()) continue;
      add_guard(args.positional[0], other);
      return;
    }
    return;
  }
  if (!is(condition, g_.call) || !is_builtin(field(condition, g_.f_function), "isinstance")) return;
  const CallArgs args = collect_args(field(condition, g_.f_arguments), source_);
  if (args.positional.size() != 2 || !args.keywords.empty()) return;
  add_guard(args.positional[0], args.positional[1]);
}

void Resolver::add_guard(TSNode subject, TSNode classes) {
  if (is(classes, g_.parenthesized_expression)) classes = ts_node_named_child(classes, 0);
  std::vector<TSNode> candidates;
  if (is(classes, g_.tuple)) {
    for (const TSNode child : named_children(classes)) candidates.push_back(child);
  } else {
    candidates.push_back(classes);
  }
  for (const TSNode candidate : candidates) {
    Resolved r = resolve_callable(candidate);
    if (r.api != nullptr && r.api->is_class) {
      guards_.push_back(Guard{node_text(subject, source_), std::move(r)});
      return;
    }
  }
}

// ---- uses --------------------------------------------------------------------------------------

void Resolver::dispatch(const ApiUse& use) {
  for (Extractor* extractor : extractors_)
    if (extractor->handles(use.api)) extractor->on_use(use, *this);
  for (const ApiEntry& other : use.api.also) {
    const ApiUse also{other,          use.qualified, use.spelled,  use.site,     use.args,
                      use.shift,      use.origin,    use.partial,  use.own_args, use.own_shift};
    dispatch(also);
  }
}

void Resolver::handle_call(TSNode call) {
  const TSNode callee = field(call, g_.f_function);
  const TSNode arguments = field(call, g_.f_arguments);
  const auto qualified = qualified_name(callee);
  if (qualified && *qualified == "functools.partial") {
    handle_partial(call, collect_args(arguments, source_));
    return;
  }
  if (qualified) {
    if (const ApiEntry* api = table_.find(*qualified)) {
      CallArgs args = collect_args(arguments, source_);
      if (args.has_double_star) expand_dict_splats(arguments, args);
      const std::string spelled(node_text(callee, source_));
      dispatch(ApiUse{*api, *qualified, spelled, call, args, 0, "call"});
      remember_construction(call, Resolved{api, *qualified, spelled});
      return;
    }
  }
  if (is(callee, g_.identifier) && handle_call_through_partial(call, callee, arguments)) return;
  if (is(callee, g_.attribute) && node_text(field(callee, g_.f_attribute), source_) == "__init__") {
    handle_base_init(call, field(callee, g_.f_object), arguments);
    return;
  }
  for (Extractor* extractor : extractors_) extractor->on_other_call(call, *this);
}

// `DataLoader(ds, **loader_cfg)` with `loader_cfg = dict(batch_size=16, drop_last=True)` (or a
// `{"batch_size": 16}` literal) bound once where the call sees it: its entries as the call's
// keywords, when the text changes no item of it (python/const_eval.h items_may_change) and each
// value is a literal or the dict stands in the call's own scope (its names mean the same there).
// Any other `**` leaves the arguments as they are (has_double_star: unresolvable).
void Resolver::expand_dict_splats(TSNode arguments, CallArgs& args) const {
  std::vector<std::pair<std::string_view, TSNode>> entries;
  for (const TSNode arg : named_children(arguments)) {
    if (!is(arg, g_.dictionary_splat)) continue;
    const TSNode name = ts_node_named_child(arg, 0);
    if (!is(name, g_.identifier)) return;
    const auto [defining, binding] = scopes_.lookup(scope(), node_text(name, source_));
    if (binding == nullptr || !binding->simple() || evaluator_.folder().items_may_change(node_text(name, source_)))
      return;
    const TSNode dict = binding->value;
    const bool same_scope = defining == scope();
    auto literal = [&](TSNode value) {
      if (is(value, g_.unary_operator)) value = field(value, g_.f_argument);
      return is(value, g_.integer) || is(value, g_.float_) || is(value, g_.string) || is(value, g_.true_) ||
             is(value, g_.false_) || is(value, g_.none);
    };
    auto take = [&](std::string_view key, TSNode value) {
      if (!same_scope && !literal(value)) return false;
      entries.emplace_back(key, value);
      return true;
    };
    if (is(dict, g_.dictionary)) {
      for (const TSNode pair : named_children(dict)) {
        if (is(pair, g_.comment)) continue;
        const TSNode key = field(pair, g_.f_key);
        const std::string_view text = node_text(key, source_);
        if (!is(pair, g_.pair) || !is(key, g_.string) || text.size() < 2 ||
            text.find_first_of("\\{", 1) != std::string_view::npos || (text.front() != '"' && text.front() != '\'') ||
            text.back() != text.front() || !take(text.substr(1, text.size() - 2), field(pair, g_.f_value)))
          return;
      }
    } else if (is(dict, g_.call) && is_builtin(field(dict, g_.f_function), "dict")) {
      const CallArgs made = collect_args(field(dict, g_.f_arguments), source_);
      if (!made.positional.empty() || made.has_double_star) return;
      for (const auto& [key, value] : made.keywords)
        if (!take(key, value)) return;
    } else {
      return;
    }
  }
  args.keywords.insert(args.keywords.end(), entries.begin(), entries.end());
  args.has_double_star = false;
}

// `super().__init__(c, eps=...)` in a subclass of an API, or `nn.BatchNorm2d.__init__(self, c, eps=...)`.
void Resolver::handle_base_init(TSNode call, TSNode object, TSNode arguments) {
  if (is(object, g_.call) && node_text(field(object, g_.f_function), source_) == "super") {
    if (class_stack_.empty() || class_stack_.back().api == nullptr) return;
    const Resolved& base = class_stack_.back();
    const CallArgs args = collect_args(arguments, source_);
    dispatch(ApiUse{*base.api, base.qualified, "super().__init__", call, args, 0, "super().__init__"});
    return;
  }
  const Resolved resolved = resolve_callable(object);
  if (resolved.api == nullptr || !resolved.api->is_class) return;
  const CallArgs args = collect_args(arguments, source_);
  dispatch(ApiUse{*resolved.api, resolved.qualified, std::string(node_text(object, source_)) + ".__init__", call,
                  args, 1, "base-class __init__"});
}

void Resolver::handle_partial(TSNode call, const CallArgs& partial_args) {
  if (partial_args.positional.empty()) return;
  const Resolved r = resolve_callable(partial_args.positional.front());
  if (r.api == nullptr) return;
  CallArgs bound = partial_args;
  bound.positional.erase(bound.positional.begin());
  if (bound.first_star > 0) --bound.first_star;
  dispatch(ApiUse{*r.api, r.qualified, r.spelled, call, bound, 0, "functools.partial"});
}

// `BN = functools.partial(nn.BatchNorm2d, eps=1e-3)` ... `BN(64, eps=1e-6)`.
bool Resolver::handle_call_through_partial(TSNode call, TSNode callee, TSNode arguments) {
  const auto [defining, binding] = scopes_.lookup(name_scope(callee), node_text(callee, source_));
  if (binding == nullptr || !binding->simple() || !is(binding->value, g_.call)) return false;
  const TSNode partial_call = binding->value;
  const auto partial_name = qualified_name(field(partial_call, g_.f_function), defining, 0);
  if (!partial_name || *partial_name != "functools.partial") return false;
  CallArgs partial_args = collect_args(field(partial_call, g_.f_arguments), source_);
  if (partial_args.positional.empty()) return false;
  const auto target_name = qualified_name(partial_args.positional.front(), defining, 0);
  const ApiEntry* api = target_name ? table_.find(*target_name) : nullptr;
  if (api == nullptr) return false;
  const CallArgs call_args = collect_args(arguments, source_);
  // Merge as functools.partial does: bound positionals first, call keywords override.
  CallArgs merged = partial_args;
  merged.positional.erase(merged.positional.begin());
  if (merged.first_star > 0) --merged.first_star;
  const int bound_positionals = static_cast<int>(merged.positional.size());
  if (call_args.first_star >= 0 && merged.first_star < 0) merged.first_star = bound_positionals + call_args.first_star;
  merged.positional.insert(merged.positional.end(), call_args.positional.begin(), call_args.positional.end());
  for (const auto& kw : call_args.keywords) {
    auto it = std::find_if(merged.keywords.begin(), merged.keywords.end(),
                           [&](const auto& existing) { return existing.first == kw.first; });
    if (it != merged.keywords.end()) it->second = kw.second;
    else merged.keywords.push_back(kw);
  }
  merged.has_double_star = merged.has_double_star || call_args.has_double_star;
  const std::string spelled(node_text(callee, source_));
  ApiUse use{*api, *target_name, spelled, call, merged, 0, "call through functools.partial"};
  use.partial = partial_call;
  use.own_args = &call_args;
  use.own_shift = -bound_positionals;
  dispatch(use);
  remember_construction(call, Resolved{api, *target_name, spelled});
  return true;
}

// Where a name or attribute chain lives: `self.x` in a method belongs to the class, `x` to the
// scope that binds it, `obj.x` to the scope that binds obj. The key is that scope and the text.
std::string Resolver::construction_key(TSNode target) const {
  TSNode root = target;
  while (is(root, g_.attribute)) root = field(root, g_.f_object);
  if (!is(root, g_.identifier)) return "";
  const auto root_name = node_text(root, source_);
  const Scope* owner = nullptr;
  const Scope* current = scope();
  if (is(target, g_.attribute) && current->is_method() && !current->parameters.empty() &&
      current->parameters.front().kind == Parameter::Kind::Self && current->parameters.front().name == root_name) {
    owner = current->parent;
  } else {
    owner = scopes_.lookup(name_scope(target), root_name).first;
    if (owner == nullptr) owner = &scopes_.module();
  }
  std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(owner));
  key += ':';
  key += node_text(target, source_);
  return key;
}

// Remembers `self.bn = nn.BatchNorm2d(...)` so that `self.bn.eps = ...` is known to be batch norm.
void Resolver::remember_construction(TSNode call, Resolved what) {
  const TSNode parent = node_stack_.empty() ? TSNode{} : node_stack_.back();
  if (!is(parent, g_.assignment) || !ts_node_eq(field(parent, g_.f_right), call)) return;
  const TSNode left = field(parent, g_.f_left);
  if (is(left, g_.identifier) || is(left, g_.attribute)) {
    const std::string key = construction_key(left);
    if (!key.empty()) constructed_[key] = std::move(what);
  }
}

// `m.eps = 1e-6` where m is known to be an instance of an API, and every assignment for the
// extractors that read statements.
void Resolver::handle_assignment(TSNode assignment) {
  for (Extractor* extractor : extractors_) extractor->on_assignment(assignment, *this);
  const TSNode left = field(assignment, g_.f_left);
  // A rebinding forgets what the target held; a construction on the right records it again
  // when the walk reaches the call.
  if (is(left, g_.identifier) || is(left, g_.attribute)) constructed_.erase(construction_key(left));
  if (is(left, g_.identifier) && scope()->kind == Scope::Kind::Module) note_alias(left, field(assignment, g_.f_right));
  if (!is(left, g_.attribute)) return;
  const auto object = node_text(field(left, g_.f_object), source_);
  const Resolved* what = nullptr;
  for (auto it = guards_.rbegin(); it != guards_.rend(); ++it)
    if (it->name == object) {
      what = &it->what;
      break;
    }
  if (what == nullptr) {
    const auto it = constructed_.find(construction_key(field(left, g_.f_object)));
    if (it != constructed_.end() && it->second.api != nullptr) what = &it->second;
  }
  const TSNode value = field(assignment, g_.f_right);
  if (what == nullptr || ts_node_is_null(value)) return;
  for (Extractor* extractor : extractors_)
    if (extractor->handles(*what->api))
      extractor->on_instance_write(*what->api, what->qualified, what->spelled, assignment, value, *this);
}

// A module-level class deriving from an API: calls of it are calls of the API when it keeps the
// API's signature (no __init__ of its own, or one that passes *args/**kwargs on).
void Resolver::note_subclass(TSNode class_node, const Resolved& base) {
  const Scope* class_scope = scopes_.scope_of(class_node);
  if (class_scope == nullptr || module_.empty() || class_scope->name.empty()) return;
  const auto init = class_scope->bindings.find("__init__");
  bool inherits = init == class_scope->bindings.end();
  if (!inherits && init->second.only_definition()) {
    const Scope* init_scope = scopes_.scope_of(init->second.definition);
    if (init_scope != nullptr && (init_scope->has_var_args || init_scope->has_var_keywords)) {
      const auto body = node_text(field(init->second.definition, g_.f_body), source_);
      for (const Parameter& p : init_scope->parameters) {
        const bool splat = p.kind == Parameter::Kind::VarArgs || p.kind == Parameter::Kind::VarKeywords;
        const std::string spelled = (p.kind == Parameter::Kind::VarArgs ? "*" : "**") + std::string(p.name);
        if (splat && body.find("__init__(") != std::string_view::npos && body.find(spelled) != std::string_view::npos)
          inherits = true;
      }
    }
  }
  if (!inherits) return;
  ForwardingFact fact;
  fact.callable = module_ + "." + std::string(class_scope->name);
  fact.is_class = true;
  fact.api = base.qualified;
  fact.api_spelled = base.spelled;
  fact.inherits_signature = true;
  const TSNode name = field(class_node, g_.f_name);
  fact.defined = locate(ts_node_is_null(name) ? class_node : name);
  fact.reaches = fact.defined;
  fact.reaches_text = "class " + std::string(class_scope->name) + "(" + base.spelled + ")";
  out_.forwardings.push_back(std::move(fact));
}

// `BatchNorm2d = torch.nn.BatchNorm2d` at module level (detectron2's layers/wrappers.py): another
// module importing the name calls the API. Within this module the name resolves by itself.
void Resolver::note_alias(TSNode name, TSNode value) {
  if (module_.empty() || !(is(value, g_.identifier) || is(value, g_.attribute))) return;
  const auto [defining, binding] = scopes_.lookup(scope(), node_text(name, source_));
  if (binding == nullptr || !binding->simple()) return;
  const auto qualified = qualified_name(value);
  const ApiEntry* api = qualified ? table_.find(*qualified) : nullptr;
  if (api == nullptr || std::none_of(extractors_.begin(), extractors_.end(), [&](Extractor* e) { return e->handles(*api); }))
    return;
  ForwardingFact fact;
  fact.callable = module_ + "." + std::string(node_text(name, source_));
  fact.is_class = api->is_class;
  fact.api = *qualified;
  fact.api_spelled = std::string(node_text(value, source_));
  fact.inherits_signature = true;
  fact.defined = locate(name);
  fact.reaches = fact.defined;
  fact.reaches_text = std::string(node_text(name, source_)) + " = " + fact.api_spelled;
  out_.forwardings.push_back(std::move(fact));
}

void Resolver::note_forwarding(const ApiUse& use, std::string_view role, const Value& value, TSNode value_node) {
  if (!value.ref || value.ref->kind != ValueRef::Kind::Parameter) return;
  const ValueRef& ref = *value.ref;
  ForwardingFact fact;
  fact.callable = ref.target;
  fact.is_class = ref.of_class;
  fact.api = use.qualified;
  fact.api_spelled = use.spelled;
  fact.role = std::string(role);
  if (const ApiArg* arg = use.api.arg(role)) fact.api_parameter = arg->name;
  fact.parameter = ref.parameter;
  fact.index = ref.index;
  if (!ref.default_value.empty()) fact.default_value = ref.default_value.front();
  fact.reaches = locate(value_node);
  fact.defined = fact.reaches;
  std::string site(node_text(use.site, source_));
  if (site.size() > 80) site = site.substr(0, 77) + "...";
  fact.reaches_text = std::move(site);
  out_.forwardings.push_back(std::move(fact));
}

namespace {

std::string_view string_content(std::string_view literal) {
  const auto open = literal.find_first_of("'\"");
  if (open == std::string_view::npos) return literal;
  const char quote = literal[open];
  std::size_t width = 1;
  if (literal.substr(open, 3) == std::string(3, quote)) width = 3;
  if (literal.size() < open + 2 * width) return {};
  return literal.substr(open + width, literal.size() - open - 2 * width);
}

}  // namespace

LiteralArg Resolver::literal(TSNode value) const {
  LiteralArg arg;
  arg.spelling = std::string(node_text(value, source_));
  if (is(value, g_.true_)) arg.boolean = true;
  else if (is(value, g_.false_)) arg.boolean = false;
  else if (is(value, g_.string)) arg.text = std::string(string_content(arg.spelling));
  else if (is(value, g_.identifier) || is(value, g_.attribute)) arg.text = arg.spelling;
  else if (auto folded = fold(value)) arg.number = folded->value;
  return arg;
}

}  // namespace cudnnlint::python
