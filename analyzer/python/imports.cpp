#include "python/imports.h"

#include "core/identifier.h"

#include <algorithm>
#include <unordered_set>

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
  auto& bound = bindings_[std::move(local)];
  for (Bound& b : bound)
    if (b.scope == scope) {
      ++b.times;
      b.same &= b.qualified == qualified;
      b.qualified = std::move(qualified);  // a later import of the name in the same scope wins
      return;
    }
  bound.push_back(Bound{scope, std::move(qualified), 1, true});
}

bool ImportTable::imported_alike(std::string_view local, const Scope* scope, std::uint32_t times) const {
  const auto it = bindings_.find(std::string(local));
  if (it == bindings_.end()) return false;
  for (const Bound& b : it->second)
    if (b.scope == scope) return b.same && b.times == times;
  return false;
}

std::optional<std::string_view> ImportTable::lookup(std::string_view local, const Scope* scope) const {
  const auto it = bindings_.find(std::string(local));
  if (it == bindings_.end()) return std::nullopt;
  for (const Bound& b : it->second)
    if (b.scope == scope) return std::string_view(b.qualified);
  return std::nullopt;
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

namespace {

// The dotted name at the start of `text` ("a . b" allowed), and what follows it.
std::string take_dotted(std::string_view& text) {
  std::string out;
  for (;;) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    std::size_t n = 0;
    while (n < text.size() && is_identifier_char(text[n])) ++n;
    if (n == 0) return out;
    out.append(text.substr(0, n));
    text.remove_prefix(n);
    std::string_view rest = text;
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    if (rest.empty() || rest.front() != '.') return out;
    rest.remove_prefix(1);
    text = rest;
    out.push_back('.');
  }
}

}  // namespace

// (python/imports.h) The names a module's text may bind to a number at module level: lines at column 0 assigning a
// numeric expression (`EPS = 1e-5`, `N: int = 64`, `SIZE = (2 ** 3)`, `LR = -1e-3`,
// `EPS = float("1e-8")`, `TINY = math.ldexp(1, -20)`). A cheap test before the module is parsed for
// its exports; a constant bound to another name (`EPS = BASE_EPS`) is not seen.
std::vector<std::string> numeric_constant_names(std::string_view text) {
  std::vector<std::string> names;
  for (std::size_t line = 0; line < text.size();) {
    const std::size_t end = std::min(text.find('\n', line), text.size());
    std::size_t at = line;
    while (at < end && is_identifier_char(text[at])) ++at;
    if (at > line && !(text[line] >= '0' && text[line] <= '9')) {
      const std::string_view rest = text.substr(at, end - at);
      const std::size_t eq = rest.find('=');
      const std::size_t first = rest.find_first_not_of(' ');
      if (eq != std::string_view::npos && (eq + 1 >= rest.size() || rest[eq + 1] != '=') &&
          (first == eq || rest[first] == ':')) {
        const std::size_t value = rest.find_first_not_of(" (", eq + 1);
        const std::string_view expression = value == std::string_view::npos ? "" : rest.substr(value);
        const bool numeric = !expression.empty() && (std::string_view("0123456789.-+").find(expression[0]) != std::string_view::npos ||
                                                     expression.starts_with("float(") || expression.starts_with("int(") ||
                                                     expression.starts_with("math.") || expression.starts_with("np."));
        if (numeric) names.emplace_back(text.substr(line, at - line));
      }
    }
    line = end + 1;
  }
  return names;
}

std::vector<std::string> imported_module_candidates(std::string_view source, const ModuleContext& context) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;  // not a search of `out` per candidate: quadratic in a file's imports
  auto add = [&](const std::string& name) {
    if (!name.empty() && name.back() != '.' && seen.insert(name).second) out.push_back(name);
  };
  std::size_t at = 0;
  while (at < source.size()) {
    std::size_t end = source.find('\n', at);
    if (end == std::string_view::npos) end = source.size();
    std::string_view line = source.substr(at, end - at);
    at = end + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.starts_with("import ")) {
      line.remove_prefix(7);
      // import a.b as c, d.e
      for (;;) {
        const std::string dotted = take_dotted(line);
        for (std::size_t dot = dotted.find('.'); dot != std::string::npos; dot = dotted.find('.', dot + 1))
          add(dotted.substr(0, dot));
        add(dotted);
        const std::size_t comma = line.find(',');
        if (dotted.empty() || comma == std::string_view::npos || line.substr(0, comma).find('#') != std::string_view::npos) break;
        line.remove_prefix(comma + 1);
      }
    } else if (line.starts_with("from ")) {
      line.remove_prefix(5);
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      int level = 0;
      while (!line.empty() && line.front() == '.') {
        ++level;
        line.remove_prefix(1);
      }
      // `from . import x`: no module name after the dots.
      std::string_view after = line;
      while (!after.empty() && (after.front() == ' ' || after.front() == '\t')) after.remove_prefix(1);
      const bool bare = level > 0 && after.starts_with("import") && (after.size() == 6 || !is_identifier_char(after[6]));
      const std::string dotted = bare ? std::string() : take_dotted(line);
      if (bare) line = after;
      const std::string module = level > 0 ? absolute_module(context, level, dotted) : dotted;
      if (module.empty()) continue;
      add(module);
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      if (!line.starts_with("import")) continue;
      line.remove_prefix(6);
      // The names, over several lines when parenthesised.
      std::string names(line);
      if (names.find('(') != std::string::npos && names.find(')') == std::string::npos) {
        // `at` is past the end when this was the text's last line, with no line break after it.
        const std::size_t from = std::min(at, source.size());
        const std::size_t close = source.find(')', from);
        const std::size_t stop = close == std::string_view::npos ? source.size() : close;
        names.append(source.substr(from, stop - from));
        at = std::min(source.size(), stop + 1);
      }
      std::string_view rest = names;
      while (!rest.empty()) {
        while (!rest.empty() && !is_identifier_char(rest.front()) && rest.front() != '#') rest.remove_prefix(1);
        if (rest.empty() || rest.front() == '#') {
          const std::size_t newline = rest.find('\n');
          if (newline == std::string_view::npos) break;
          rest.remove_prefix(newline + 1);
          continue;
        }
        std::size_t n = 0;
        while (n < rest.size() && is_identifier_char(rest[n])) ++n;
        const std::string_view name = rest.substr(0, n);
        rest.remove_prefix(n);
        if (name != "as") add(module + "." + std::string(name));
        // The alias after `as` is no module: skip it.
        if (name == "as") {
          while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
          while (!rest.empty() && is_identifier_char(rest.front())) rest.remove_prefix(1);
        }
      }
    }
  }
  return out;
}

}  // namespace cudnnlint::python
