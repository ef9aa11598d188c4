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

void ImportTable::bind(std::string local, std::string qualified) {
  note_module(qualified);
  bindings_[std::move(local)] = std::move(qualified);
}

std::optional<std::string_view> ImportTable::lookup(std::string_view local) const {
  const auto it = bindings_.find(std::string(local));
  if (it == bindings_.end()) return std::nullopt;
  return std::string_view(it->second);
}

void ImportTable::note_module(std::string_view dotted) {
  const auto top = dotted.substr(0, dotted.find('.'));
  if (top.empty()) return;
  if (std::find(top_modules_.begin(), top_modules_.end(), top) == top_modules_.end())
    top_modules_.emplace_back(top);
}

void ImportTable::add_statement(TSNode statement, std::string_view source,
                                const std::vector<std::string>& star_candidates) {
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
        bindings_[top] = top;
      } else if (is(child, g.aliased_import)) {
        const TSNode name = field(child, g.f_name);
        const TSNode alias = field(child, g.f_alias);
        if (!ts_node_is_null(name) && !ts_node_is_null(alias))
          bind(std::string(node_text(alias, source)), normalize_dotted(node_text(name, source)));
      }
    }
    return;
  }
  if (!is(statement, g.import_from_statement)) return;
  const TSNode module_node = field(statement, g.f_module_name);
  // Relative imports name this project's own modules, which cudnnlint does not resolve across files.
  if (ts_node_is_null(module_node) || !is(module_node, g.dotted_name)) return;
  const std::string module = normalize_dotted(node_text(module_node, source));
  note_module(module);
  for (uint32_t i = 0; i < count; ++i) {
    const TSNode child = ts_node_named_child(statement, i);
    if (ts_node_eq(child, module_node)) continue;
    if (is(child, g.dotted_name)) {
      const std::string name = normalize_dotted(node_text(child, source));
      bind(name, module + "." + name);
    } else if (is(child, g.aliased_import)) {
      const TSNode name = field(child, g.f_name);
      const TSNode alias = field(child, g.f_alias);
      if (!ts_node_is_null(name) && !ts_node_is_null(alias))
        bind(std::string(node_text(alias, source)), module + "." + normalize_dotted(node_text(name, source)));
    } else if (is(child, g.wildcard_import)) {
      // `from torch.nn import *` binds every public name of the module; bind the ones we know.
      const std::string prefix = module + ".";
      for (const auto& qualified : star_candidates) {
        if (qualified.size() <= prefix.size() || qualified.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string_view leaf = std::string_view(qualified).substr(prefix.size());
        if (leaf.find('.') == std::string_view::npos) bindings_.emplace(std::string(leaf), qualified);
      }
    }
  }
}

}  // namespace cudnnlint::python
