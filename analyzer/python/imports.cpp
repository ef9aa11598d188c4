#include "python/imports.h"

#include <algorithm>

namespace cudnnlint::python {

std::string normalize_dotted(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\\') out.push_back(c);
  return out;
}

std::string absolute_module(const ModuleContext& context, int level, std::string_view relative) {
  if (context.name.empty() || level < 1) return "";
  std::string base = context.name;
  // A module's package is its name without the last part; a package's is itself.
  int climb = context.is_package ? level - 1 : level;
  for (; climb > 0; --climb) {
    const auto dot = base.rfind('.');
    if (dot == std::string::npos) {
      if (climb == 1) {
        base.clear();
        break;
      }
      return "";
    }
    base.resize(dot);
  }
  if (relative.empty()) return base;
  return base.empty() ? std::string(relative) : base + "." + std::string(relative);
}

void ImportTable::bind(const Scope* scope, std::string local, std::string qualified) {
  note_module(qualified);
  auto& bound = bindings_[std::move(local)];
  for (Bound& b : bound)
    if (b.scope == scope) {
      b.qualified = std::move(qualified);  // a later import of the name in the same scope wins
      return;
    }
  bound.push_back(Bound{scope, std::move(qualified)});
}

std::optional<std::string_view> ImportTable::lookup(std::string_view local, const Scope* scope) const {
  const auto it = bindings_.find(std::string(local));
  if (it == bindings_.end()) return std::nullopt;
  for (const Bound& b : it->second)
    if (b.scope == scope) return std::string_view(b.qualified);
  return std::nullopt;
}

void ImportTable::note_module(std::string_view dotted) {
  const auto top = dotted.substr(0, dotted.find('.'));
  if (top.empty()) return;
  if (std::find(top_modules_.begin(), top_modules_.end(), top) == top_modules_.end())
    top_modules_.emplace_back(top);
}

void ImportTable::add_statement(TSNode statement, std::string_view source,
                                const std::vector<std::string>& star_candidates, const Scope* scope) {
  const Grammar& g = Grammar::get();
  const uint32_t count = ts_node_named_child_count(statement);
  if (is(statement, g.import_statement)) {
    // import a.b.c        -> binds a -> a
    // import a.b.c as x   -> binds x -> a.b.c
    for (uint32_t i = 0; i < count; ++i) {
      const TSNode child = ts_node_named_child(statement, i);
      if (is(child, g.dotted_name)) {
        const std::string dotted = normalize_dotted(node_text(child, source));
        note_module(dotted);
        const std::string top = dotted.substr(0, dotted.find('.'));
        bind(scope, top, top);
      } else if (is(child, g.aliased_import)) {
        const TSNode name = field(child, g.f_name);
        const TSNode alias = field(child, g.f_alias);
        if (!ts_node_is_null(name) && !ts_node_is_null(alias))
          bind(scope, std::string(node_text(alias, source)), normalize_dotted(node_text(name, source)));
      }
    }
    return;
  }
  if (!is(statement, g.import_from_statement)) return;
  const TSNode module_node = field(statement, g.f_module_name);
  if (ts_node_is_null(module_node)) return;
  std::string module;
  if (is(module_node, g.dotted_name)) {
    module = normalize_dotted(node_text(module_node, source));
    note_module(module);
  } else {
    // `from .x import y`, `from .. import y`: relative to this module, inside the project.
    const std::string text = normalize_dotted(node_text(module_node, source));
    const auto dots = text.find_first_not_of('.');
    const int level = static_cast<int>(dots == std::string::npos ? text.size() : dots);
    module = absolute_module(context_, level, dots == std::string::npos ? "" : std::string_view(text).substr(dots));
    if (module.empty()) return;
  }
  for (uint32_t i = 0; i < count; ++i) {
    const TSNode child = ts_node_named_child(statement, i);
    if (ts_node_eq(child, module_node)) continue;
    if (is(child, g.dotted_name)) {
      const std::string name = normalize_dotted(node_text(child, source));
      bind(scope, name, module + "." + name);
    } else if (is(child, g.aliased_import)) {
      const TSNode name = field(child, g.f_name);
      const TSNode alias = field(child, g.f_alias);
      if (!ts_node_is_null(name) && !ts_node_is_null(alias))
        bind(scope, std::string(node_text(alias, source)), module + "." + normalize_dotted(node_text(name, source)));
    } else if (is(child, g.wildcard_import)) {
      // `from torch.nn import *` binds every public name of the module; bind the ones we know.
      star_modules_.push_back(module);
      const std::string prefix = module + ".";
      for (const auto& qualified : star_candidates) {
        if (qualified.size() <= prefix.size() || qualified.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string_view leaf = std::string_view(qualified).substr(prefix.size());
        // Like any import, a later one rebinds the name.
        if (leaf.find('.') == std::string_view::npos) bind(scope, std::string(leaf), qualified);
      }
    }
  }
}

}  // namespace cudnnlint::python
