#include "python/frontend.h"

#include "python/const_eval.h"
#include "python/imports.h"
#include "python/regions.h"
#include "python/scopes.h"
#include "python/syntax.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>

namespace cudnnlint::python {

namespace {

// The arguments of one call, split the way Python binds them.
struct CallArgs {
  std::vector<TSNode> positional;
  std::vector<std::pair<std::string_view, TSNode>> keywords;
  int first_star = -1;  // index in `positional` where a *args splat sits, -1 when none
  bool has_double_star = false;
};

CallArgs collect_args(TSNode argument_list, std::string_view source) {
  const Grammar& g = Grammar::get();
  CallArgs args;
  if (!is(argument_list, g.argument_list)) return args;
  const uint32_t n = ts_node_named_child_count(argument_list);
  for (uint32_t i = 0; i < n; ++i) {
    const TSNode arg = ts_node_named_child(argument_list, i);
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

struct EpsBinding {
  EpsSource source = EpsSource::Default;
  TSNode value{};
};

// Binds the API's eps parameter. `shift` counts leading positional arguments that are not the
// API's own (the `self` of `Base.__init__(self, ...)`).
EpsBinding bind_eps(const NormalizationApi& api, const CallArgs& args, int shift) {
  for (const auto& [name, value] : args.keywords)
    if (name == api.eps_name) return {EpsSource::Explicit, value};
  if (api.eps_index) {
    const int index = *api.eps_index + shift;
    if (index < 0) return {EpsSource::Default, {}};  // bound earlier (by a partial), not by these arguments
    const bool star_before = args.first_star >= 0 && args.first_star <= index;
    if (!star_before && static_cast<int>(args.positional.size()) > index)
      return {EpsSource::Explicit, args.positional[static_cast<std::size_t>(index)]};
    if (star_before) return {EpsSource::Unresolvable, {}};
  }
  if (args.has_double_star) return {EpsSource::Unresolvable, {}};
  return {EpsSource::Default, {}};
}

std::string_view string_content(std::string_view literal) {
  const auto open = literal.find_first_of("'\"");
  if (open == std::string_view::npos) return literal;
  const char quote = literal[open];
  std::size_t width = 1;
  if (literal.substr(open, 3) == std::string(3, quote)) width = 3;
  if (literal.size() < open + 2 * width) return {};
  return literal.substr(open + width, literal.size() - open - 2 * width);
}

class FactsWalker {
 public:
  FactsWalker(const NodeLocator& locator, const ScopeTree& scopes, const ImportTable& imports,
              const ApiTable& table, FileFacts& out)
      : locator_(locator), source_(locator.source), scopes_(scopes), imports_(imports), table_(table),
        folder_(locator, scopes), out_(out), g_(Grammar::get()) {}

  void run(TSNode root) {
    scope_stack_.push_back(&scopes_.module());
    walk_tree(
        root, [this](TSNode node, const TSTreeCursor* cursor) { return visit(node, cursor); },
        [this](TSNode node) { leave(node); });
    attach_partial_uses();
  }

 private:
  struct GuardFrame {
    TSNode block;
    std::size_t pushed;
  };
  struct Guard {
    std::string_view name;
    const NormalizationApi* api;
    std::string qualified;
    std::string spelled;
  };
  struct Resolved {
    const NormalizationApi* api = nullptr;
    std::string qualified;  // the name the code reaches, e.g. torch.nn.BatchNorm2d
    std::string spelled;
  };

  const Scope* scope() const { return scope_stack_.back(); }

  bool visit(TSNode node, const TSTreeCursor* cursor) {
    if (!ts_node_is_named(node)) return false;
    const TSSymbol sym = ts_node_symbol(node);
    if (sym == g_.comment || sym == g_.string || sym == g_.integer || sym == g_.float_) return false;
    if (sym == g_.block && !node_stack_.empty() &&
        (is(node_stack_.back(), g_.if_statement) || is(node_stack_.back(), g_.elif_clause)) &&
        ts_tree_cursor_current_field_id(cursor) == g_.f_consequence) {
      const std::size_t before = guards_.size();
      add_isinstance_guards(field(node_stack_.back(), g_.f_condition));
      guard_frames_.push_back(GuardFrame{node, guards_.size() - before});
    }
    if (sym == g_.function_definition || sym == g_.class_definition) {
      const Scope* inner = scopes_.scope_of(node);
      scope_stack_.push_back(inner ? inner : scope());
      if (sym == g_.class_definition) class_stack_.push_back(class_api(node));
    } else if (sym == g_.lambda) {
      shadow_marks_.push_back(shadowed_.size());
      shadow_parameters(field(node, g_.f_parameters));
    } else if (is_comprehension(sym)) {
      shadow_marks_.push_back(shadowed_.size());
      shadow_comprehension_targets(node);
    } else if (sym == g_.call) {
      handle_call(node);
    } else if (sym == g_.assignment) {
      handle_assignment(node);
    }
    node_stack_.push_back(node);
    return true;
  }

  void leave(TSNode node) {
    node_stack_.pop_back();
    const TSSymbol sym = ts_node_symbol(node);
    if (sym == g_.function_definition || sym == g_.class_definition) {
      scope_stack_.pop_back();
      if (sym == g_.class_definition) class_stack_.pop_back();
    } else if (sym == g_.lambda || is_comprehension(sym)) {
      shadowed_.resize(shadow_marks_.back());
      shadow_marks_.pop_back();
    }
    if (!guard_frames_.empty() && ts_node_eq(guard_frames_.back().block, node)) {
      guards_.resize(guards_.size() - guard_frames_.back().pushed);
      guard_frames_.pop_back();
    }
  }

  // ---- lambdas and comprehensions --------------------------------------------------------
  // Their parameters and loop targets are local to them: inside, such a name is never the
  // module constant of the same name.

  bool is_comprehension(TSSymbol sym) const {
    return sym == g_.list_comprehension || sym == g_.set_comprehension || sym == g_.dictionary_comprehension ||
           sym == g_.generator_expression;
  }

  void shadow_identifiers(TSNode node, int depth = 0) {
    if (ts_node_is_null(node) || depth > 32) return;
    if (is(node, g_.identifier)) {
      shadowed_.push_back(node_text(node, source_));
      return;
    }
    const uint32_t n = ts_node_named_child_count(node);
    for (uint32_t i = 0; i < n; ++i) {
      const TSNode child = ts_node_named_child(node, i);
      // A default value is not a binding: `lambda eps=EPS: ...` binds eps only.
      if (is(node, g_.default_parameter) && ts_node_eq(child, field(node, g_.f_value))) continue;
      shadow_identifiers(child, depth + 1);
    }
  }

  void shadow_parameters(TSNode parameters) { shadow_identifiers(parameters); }

  void shadow_comprehension_targets(TSNode comprehension) {
    const uint32_t n = ts_node_named_child_count(comprehension);
    for (uint32_t i = 0; i < n; ++i) {
      const TSNode child = ts_node_named_child(comprehension, i);
      if (is(child, g_.for_in_clause)) shadow_identifiers(field(child, g_.f_left));
    }
  }

  // ---- name resolution -------------------------------------------------------------------

  // The fully qualified name an expression stands for (`nn.BatchNorm2d` -> torch.nn.BatchNorm2d).
  std::optional<std::string> qualified_name(TSNode node, const Scope* from, int depth = 0) const {
    if (depth > 16 || ts_node_is_null(node)) return std::nullopt;
    if (is(node, g_.identifier)) {
      const auto name = node_text(node, source_);
      const auto [defining, binding] = scopes_.lookup(from, name);
      if (binding != nullptr && binding->simple()) {
        // `norm = nn.BatchNorm2d` makes `norm` another name for the class.
        const TSNode value = binding->value;
        if (is(value, g_.identifier) || is(value, g_.attribute)) return qualified_name(value, defining, depth + 1);
        return std::nullopt;
      }
      if (const auto imported = imports_.lookup(name)) return std::string(*imported);
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

  // The batch-norm API a class derives from, directly or through local subclasses, with the
  // name the code reached it by (torch.nn.InstanceNorm2d, not its table entry's first name).
  Resolved class_api(TSNode class_node, int depth = 0) {
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
      if (const auto q = qualified_name(base, &scopes_.module())) {
        const NormalizationApi* api = table_.find(*q);
        if (api && api->is_class) found = Resolved{api, *q, std::string(node_text(base, source_))};
      } else if (is(base, g_.identifier)) {
        if (const ClassInfo* local = scopes_.module_class(node_text(base, source_)))
          found = class_api(local->node, depth + 1);
      }
    }
    class_api_cache_[key] = found;
    return found;
  }

  Resolved resolve_callable(TSNode node) const {
    Resolved r;
    if (const auto q = qualified_name(node, scope())) {
      r.api = table_.find(*q);
      r.qualified = *q;
      r.spelled = std::string(node_text(node, source_));
    }
    return r;
  }

  // `isinstance(m, nn.BatchNorm2d)` (also inside `and`, and with a tuple of classes) narrows m.
  void add_isinstance_guards(TSNode condition, int depth = 0) {
    // Conditions are nested left to right (`a and b and c`): bound the depth so a generated
    // 100,000-term condition cannot exhaust the stack.
    if (ts_node_is_null(condition) || depth > 64) return;
    if (is(condition, g_.parenthesized_expression)) {
      add_isinstance_guards(ts_node_named_child(condition, 0), depth + 1);
      return;
    }
    if (is(condition, g_.boolean_operator)) {
      if (node_text(field(condition, g_.f_operator), source_) != "and") return;
      add_isinstance_guards(field(condition, g_.f_left), depth + 1);
      add_isinstance_guards(field(condition, g_.f_right), depth + 1);
      return;
    }
    if (!is(condition, g_.call)) return;
    const TSNode callee = field(condition, g_.f_function);
    if (!is(callee, g_.identifier) || node_text(callee, source_) != "isinstance") return;
    const CallArgs args = collect_args(field(condition, g_.f_arguments), source_);
    if (args.positional.size() != 2 || !args.keywords.empty()) return;
    const TSNode subject = args.positional[0];
    TSNode classes = args.positional[1];
    if (is(classes, g_.parenthesized_expression)) classes = ts_node_named_child(classes, 0);
    std::vector<TSNode> candidates;
    if (is(classes, g_.tuple)) {
      const uint32_t n = ts_node_named_child_count(classes);
      for (uint32_t i = 0; i < n; ++i) candidates.push_back(ts_node_named_child(classes, i));
    } else {
      candidates.push_back(classes);
    }
    for (const TSNode candidate : candidates) {
      Resolved r = resolve_callable(candidate);
      if (r.api == nullptr && is(candidate, g_.identifier))
        if (const ClassInfo* local = scopes_.module_class(node_text(candidate, source_))) {
          r = class_api(local->node);
          r.spelled = std::string(local->name);
        }
      if (r.api != nullptr && r.api->is_class) {
        guards_.push_back(Guard{node_text(subject, source_), r.api, r.qualified, r.spelled});
        return;
      }
    }
  }

  // ---- facts -----------------------------------------------------------------------------

  // `api_name` is the table name the code reached (torch.nn.BatchNorm2d rather than the
  // entry's first name), or empty to use the canonical one.
  NormalizationFact& emit(const NormalizationApi& api, const std::string& api_name, std::string spelled, TSNode site,
                          const CallArgs& args, int shift, std::string origin) {
    NormalizationFact fact;
    fact.api = api_name.empty() ? api.canonical : api_name;
    fact.spelled_as = std::move(spelled);
    fact.eps_param = api.eps_name;
    fact.call = locator_.locate(site);
    fact.origin = std::move(origin);
    const EpsBinding eps = bind_eps(api, args, shift);
    fact.eps_source = eps.source;
    if (eps.source == EpsSource::Explicit) {
      fact.eps_location = locator_.locate(eps.value);
      fact.eps = folder_.fold(eps.value, scope(), shadowed_);
      if (!fact.eps) fact.eps_source = EpsSource::NotConstant;
    } else if (eps.source == EpsSource::Default && api.eps_default) {
      fact.eps = ConstantValue{*api.eps_default, "default", {}};
    }
    for (const auto& [name, value] : args.keywords) {
      if (name == api.eps_name) continue;
      fact.literal_args.emplace(std::string(name), literal(value));
    }
    out_.normalizations.push_back(std::move(fact));
    return out_.normalizations.back();
  }

  LiteralArg literal(TSNode value) const {
    LiteralArg arg;
    arg.spelling = std::string(node_text(value, source_));
    if (is(value, g_.true_)) arg.boolean = true;
    else if (is(value, g_.false_)) arg.boolean = false;
    else if (is(value, g_.string)) arg.text = std::string(string_content(arg.spelling));
    else if (is(value, g_.identifier) || is(value, g_.attribute)) arg.text = arg.spelling;
    else if (auto folded = folder_.fold(value, scope(), shadowed_)) arg.number = folded->value;
    return arg;
  }

  void handle_call(TSNode call) {
    const TSNode callee = field(call, g_.f_function);
    const TSNode arguments = field(call, g_.f_arguments);
    const auto qualified = qualified_name(callee, scope());
    if (qualified && *qualified == "functools.partial") {
      handle_partial(call, collect_args(arguments, source_));
      return;
    }
    if (qualified) {
      if (const NormalizationApi* api = table_.find(*qualified)) {
        const CallArgs args = collect_args(arguments, source_);
        emit(*api, *qualified, std::string(node_text(callee, source_)), call, args, 0, "call");
        remember_construction(call, Resolved{api, *qualified, std::string(node_text(callee, source_))});
        return;
      }
    }
    if (is(callee, g_.identifier)) {
      handle_call_through_partial(call, callee, arguments);
      return;
    }
    if (is(callee, g_.attribute) && node_text(field(callee, g_.f_attribute), source_) == "__init__")
      handle_base_init(call, field(callee, g_.f_object), arguments);
  }

  // `super().__init__(c, eps=...)` in a batch-norm subclass, or `nn.BatchNorm2d.__init__(self, c, eps=...)`.
  void handle_base_init(TSNode call, TSNode object, TSNode arguments) {
    if (is(object, g_.call) && node_text(field(object, g_.f_function), source_) == "super") {
      if (class_stack_.empty() || class_stack_.back().api == nullptr) return;
      const Resolved& base = class_stack_.back();
      emit(*base.api, base.qualified, "super().__init__", call, collect_args(arguments, source_), 0,
           "super().__init__");
      return;
    }
    Resolved resolved = resolve_callable(object);
    if (resolved.api == nullptr && is(object, g_.identifier))
      if (const ClassInfo* local = scopes_.module_class(node_text(object, source_))) resolved = class_api(local->node);
    const NormalizationApi* api = resolved.api;
    if (api == nullptr || !api->is_class) return;
    emit(*api, resolved.qualified, std::string(node_text(object, source_)) + ".__init__", call, collect_args(arguments, source_), 1,
         "base-class __init__");
  }

  void handle_partial(TSNode call, const CallArgs& partial_args) {
    if (partial_args.positional.empty()) return;
    const TSNode target = partial_args.positional.front();
    const Resolved r = resolve_callable(target);
    if (r.api == nullptr) return;
    CallArgs bound = partial_args;
    bound.positional.erase(bound.positional.begin());
    if (bound.first_star > 0) --bound.first_star;
    emit(*r.api, r.qualified, r.spelled, call, bound, 0, "functools.partial");
    partial_facts_[ts_node_start_byte(call)] = out_.normalizations.size() - 1;
  }

  // `BN = functools.partial(nn.BatchNorm2d, eps=1e-3)` ... `BN(64, eps=1e-6)`.
  void handle_call_through_partial(TSNode call, TSNode callee, TSNode arguments) {
    const auto [defining, binding] = scopes_.lookup(scope(), node_text(callee, source_));
    if (binding == nullptr || !binding->simple() || !is(binding->value, g_.call)) return;
    const TSNode partial_call = binding->value;
    const auto partial_name = qualified_name(field(partial_call, g_.f_function), defining);
    if (!partial_name || *partial_name != "functools.partial") return;
    CallArgs partial_args = collect_args(field(partial_call, g_.f_arguments), source_);
    if (partial_args.positional.empty()) return;
    const auto target_name = qualified_name(partial_args.positional.front(), defining);
    const NormalizationApi* api = target_name ? table_.find(*target_name) : nullptr;
    if (api == nullptr) return;
    const CallArgs call_args = collect_args(arguments, source_);
    const EpsBinding own = bind_eps(*api, call_args, -static_cast<int>(partial_args.positional.size() - 1));
    const Location call_location = locator_.locate(call);
    if (own.source == EpsSource::Explicit && !ts_node_is_null(own.value)) {
      // Merge as functools.partial does: bound positionals first, call keywords override.
      CallArgs merged = partial_args;
      merged.positional.erase(merged.positional.begin());
      if (merged.first_star > 0) --merged.first_star;
      merged.positional.insert(merged.positional.end(), call_args.positional.begin(), call_args.positional.end());
      for (const auto& kw : call_args.keywords) {
        auto it = std::find_if(merged.keywords.begin(), merged.keywords.end(),
                               [&](const auto& existing) { return existing.first == kw.first; });
        if (it != merged.keywords.end()) it->second = kw.second;
        else merged.keywords.push_back(kw);
      }
      merged.has_double_star = merged.has_double_star || call_args.has_double_star;
      NormalizationFact& fact =
          emit(*api, *target_name, std::string(node_text(callee, source_)), call, merged, 0,
               "call through functools.partial");
      fact.eps_location = locator_.locate(own.value);
      if (fact.eps)
        fact.eps->provenance.push_back(ProvenanceStep{
            locator_.locate(partial_call),
            std::string(node_text(callee, source_)) + " is functools.partial(" +
                std::string(node_text(partial_args.positional.front(), source_)) + ", ...) defined here"});
      remember_construction(call, Resolved{api, *target_name, std::string(node_text(callee, source_))});
      return;
    }
    pending_uses_.emplace_back(ts_node_start_byte(partial_call),
                               ProvenanceStep{call_location, std::string(node_text(callee, source_)) +
                                                                 "(...) constructs the layer here"});
  }

  void attach_partial_uses() {
    for (auto& [partial_start, step] : pending_uses_) {
      const auto it = partial_facts_.find(partial_start);
      if (it != partial_facts_.end()) out_.normalizations[it->second].uses.push_back(std::move(step));
    }
  }

  // Remembers `self.bn = nn.BatchNorm2d(...)` so that `self.bn.eps = ...` is known to be batch norm.
  void remember_construction(TSNode call, Resolved what) {
    const TSNode parent = node_stack_.empty() ? TSNode{} : node_stack_.back();
    if (!is(parent, g_.assignment) || !ts_node_eq(field(parent, g_.f_right), call)) return;
    const TSNode left = field(parent, g_.f_left);
    if (is(left, g_.identifier) || is(left, g_.attribute))
      constructed_[std::string(node_text(left, source_))] = std::move(what);
  }

  // `m.eps = 1e-6` where m is known to be a batch-norm module.
  void handle_assignment(TSNode assignment) {
    const TSNode left = field(assignment, g_.f_left);
    if (!is(left, g_.attribute)) return;
    const auto attribute = node_text(field(left, g_.f_attribute), source_);
    const auto object = node_text(field(left, g_.f_object), source_);
    const NormalizationApi* api = nullptr;
    std::string qualified;
    std::string spelled;
    for (auto it = guards_.rbegin(); it != guards_.rend(); ++it)
      if (it->name == object) {
        api = it->api;
        qualified = it->qualified;
        spelled = it->spelled;
        break;
      }
    if (api == nullptr) {
      const auto it = constructed_.find(std::string(object));
      if (it != constructed_.end() && it->second.api != nullptr) {
        api = it->second.api;
        qualified = it->second.qualified;
        spelled = it->second.spelled;
      }
    }
    if (api == nullptr || api->eps_attribute.empty() || attribute != api->eps_attribute) return;
    const TSNode value = field(assignment, g_.f_right);
    if (ts_node_is_null(value)) return;
    CallArgs args;
    args.keywords.emplace_back(api->eps_name, value);
    NormalizationFact& fact = emit(*api, qualified, spelled, assignment, args, 0, "attribute assignment");
    fact.eps_param = std::string(object) + "." + std::string(attribute);
  }

  const NodeLocator& locator_;
  std::string_view source_;
  const ScopeTree& scopes_;
  const ImportTable& imports_;
  const ApiTable& table_;
  ConstantFolder folder_;
  FileFacts& out_;
  const Grammar& g_;
  std::vector<const Scope*> scope_stack_;
  std::vector<Resolved> class_stack_;
  std::vector<std::string_view> shadowed_;   // lambda parameters and comprehension targets in force
  std::vector<std::size_t> shadow_marks_;
  std::vector<TSNode> node_stack_;
  std::vector<Guard> guards_;
  std::vector<GuardFrame> guard_frames_;
  std::unordered_map<uint32_t, Resolved> class_api_cache_;
  std::unordered_map<std::string, Resolved> constructed_;
  std::unordered_map<uint32_t, std::size_t> partial_facts_;
  std::vector<std::pair<uint32_t, ProvenanceStep>> pending_uses_;
};

// `# cudnnlint: ignore[rule-a, rule-b]`, `# cudnnlint: ignore`, `# noqa: rule-a`.
std::optional<SuppressionComment> parse_suppression(std::string_view comment, uint32_t line) {
  auto parse_list = [](std::string_view rest) {
    std::vector<std::string> rules;
    std::string current;
    for (char c : rest) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') {
        current.push_back(c);
      } else if (c == ',' || c == ' ' || c == '\t') {
        if (!current.empty()) rules.push_back(std::move(current)), current.clear();
      } else {
        break;
      }
    }
    if (!current.empty()) rules.push_back(std::move(current));
    return rules;
  };
  if (const auto at = comment.find("cudnnlint:"); at != std::string_view::npos) {
    auto rest = comment.substr(at + std::strlen("cudnnlint:"));
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (rest.substr(0, 6) != "ignore") return std::nullopt;
    rest.remove_prefix(6);
    if (rest.empty() || rest.front() != '[') return SuppressionComment{line, {}};
    const auto close = rest.find(']');
    return SuppressionComment{line, parse_list(rest.substr(1, close == std::string_view::npos ? rest.size() - 1 : close - 1))};
  }
  // Bare `# noqa` is left to the tools it belongs to: only named rules suppress ours.
  if (const auto at = comment.find("noqa:"); at != std::string_view::npos) {
    auto rules = parse_list(comment.substr(at + 5));
    if (!rules.empty()) return SuppressionComment{line, std::move(rules)};
  }
  return std::nullopt;
}

void collect_suppressions(TSNode root, const NodeLocator& locator, FileFacts& out) {
  const Grammar& g = Grammar::get();
  const std::string_view source = locator.source;
  for (const char* marker : {"cudnnlint:", "noqa:"}) {
    std::size_t from = 0;
    while ((from = source.find(marker, from)) != std::string_view::npos) {
      const auto at = static_cast<uint32_t>(from);
      from += std::strlen(marker);
      const TSNode node = ts_node_descendant_for_byte_range(root, at, at + 1);
      if (!is(node, g.comment)) continue;  // inside a string, or not a comment at all
      const uint32_t line = locator.locate(node).range.begin.line;
      if (auto s = parse_suppression(node_text(node, source), line)) out.suppressions.push_back(std::move(*s));
    }
  }
}

// tree-sitter's ts_builtin_sym_error; the 0.20 runtime has no ts_node_is_error.
constexpr TSSymbol kErrorSymbol = static_cast<TSSymbol>(-1);

std::optional<TSNode> first_error(TSNode root) {
  std::optional<TSNode> found;
  walk_tree(
      root,
      [&](TSNode node, const TSTreeCursor*) {
        if (found) return false;
        if (ts_node_symbol(node) == kErrorSymbol || ts_node_is_missing(node)) {
          found = node;
          return false;
        }
        return ts_node_has_error(node);
      },
      [](TSNode) {});
  return found;
}

}  // namespace

bool may_contain_trigger(std::string_view text, const ApiTable& table) {
  for (const auto& token : table.trigger_tokens())
    if (text.find(token) != std::string_view::npos) return true;
  return false;
}

PythonAnalysis analyze_python(const SourceFile& file, const ApiTable& table, const Parser& parser, ParseMode mode) {
  PythonAnalysis result;
  result.facts.path = file.path();
  result.facts.language = "python";
  const std::string_view source = std::string_view(file.text()).substr(file.content_offset());
  const NodeLocator locator{file, source, file.content_offset()};

  std::optional<ParsePlan> plan;
  if (mode == ParseMode::Regions) plan = plan_parse(source, table.trigger_tokens());
  TreePtr tree;
  if (plan) {
    tree = parser.parse(source, plan->ranges);
    // A region parse that stumbles may have been cut at a wrong place (an f-string the small
    // lexer misread): the full parse is the authority then.
    if (!tree || ts_node_has_error(ts_tree_root_node(tree.get()))) plan.reset();
  }
  if (!plan) tree = parser.parse(source);
  result.parsed_bytes = plan ? plan->parsed_bytes : source.size();
  if (!tree) {
    result.diagnostics.push_back({FileDiagnostic::Severity::Error, file.path(), std::nullopt,
                                  "the Python parser gave up on this file (too deeply nested?); skipped"});
    return result;
  }
  const TSNode root = ts_tree_root_node(tree.get());
  if (ts_node_has_error(root)) {
    FileDiagnostic diag{FileDiagnostic::Severity::Warning, file.path(), std::nullopt, ""};
    if (const auto error = first_error(root)) {
      diag.position = locator.locate(*error).range.begin;
      diag.message = std::string("syntax error") + (ts_node_is_missing(*error) ? " (something is missing)" : "") +
                     "; the parts that parse were analysed";
    } else {
      diag.message = "syntax error; the parts that parse were analysed";
    }
    result.diagnostics.push_back(std::move(diag));
  }

  ImportTable imports;
  ScopeTree scopes;
  scopes.build(root, source, imports, table.qualified_names());
  if (plan) scopes.add_module_bindings(plan->skipped_names);
  for (const auto& module : imports.top_modules())
    if (const FrameworkInfo* fw = table.framework_for_module(module))
      if (std::find(result.facts.frameworks.begin(), result.facts.frameworks.end(), fw->key) ==
          result.facts.frameworks.end())
        result.facts.frameworks.push_back(fw->key);

  FactsWalker walker(locator, scopes, imports, table, result.facts);
  walker.run(root);
  collect_suppressions(root, locator, result.facts);
  return result;
}

}  // namespace cudnnlint::python
