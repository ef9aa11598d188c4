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

namespace {

// The last name or key of `expression` (a name, an attribute or a subscript, no call): `MM_EPS`,
// `consts.MM_EPS` and `cfg["model"]["eps"]` give "MM_EPS", "MM_EPS" and "eps"; "" for anything else.
std::string_view last_name_or_key(std::string_view expression) {
  const std::size_t comment = expression.find('#');
  if (comment != std::string_view::npos) expression = expression.substr(0, comment);
  while (!expression.empty() && (expression.back() == ' ' || expression.back() == '\t' || expression.back() == '\r'))
    expression.remove_suffix(1);
  if (expression.empty()) return {};
  if (expression.back() == ']') {
    const std::size_t open = expression.rfind('[');
    if (open == std::string_view::npos) return {};
    std::string_view key = expression.substr(open + 1, expression.size() - open - 2);
    while (!key.empty() && (key.front() == ' ' || key.front() == '"' || key.front() == '\'')) key.remove_prefix(1);
    while (!key.empty() && (key.back() == ' ' || key.back() == '"' || key.back() == '\'')) key.remove_suffix(1);
    return std::all_of(key.begin(), key.end(), is_identifier_char) ? key : std::string_view{};
  }
  std::size_t begin = expression.size();
  while (begin > 0 && is_identifier_char(expression[begin - 1])) --begin;
  return begin < expression.size() && (begin == 0 || expression[begin - 1] == '.') ? expression.substr(begin)
                                                                                     : std::string_view{};
}

// The brackets a line opens less those it closes, outside its strings and its comment (a string
// running on over lines is not followed: a cheap reading, which may over-collect or miss a name).
int bracket_balance(std::string_view line) {
  int balance = 0;
  char quote = 0;
  for (std::size_t k = 0; k < line.size(); ++k) {
    const char c = line[k];
    if (quote != 0) {
      if (c == '\\') ++k;
      else if (c == quote) quote = 0;
    } else if (c == '#') {
      break;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++balance;
    } else if (c == ')' || c == ']' || c == '}') {
      --balance;
    }
  }
  return balance;
}

// The dests of the `add_argument(...)` calls of `text` whose default is a number (`--batch-size`,
// default=64 gives "batch_size"; `dest=` wins), read from the call's text up to its closing bracket.
std::vector<std::string> numeric_flag_dests(std::string_view text) {
  std::vector<std::string> dests;
  static constexpr std::string_view kCall = "add_argument(";
  constexpr std::size_t kMaxCall = 2000;
  for (std::size_t at = text.find(kCall); at != std::string_view::npos; at = text.find(kCall, at + 1)) {
    const std::size_t open = at + kCall.size();
    std::size_t close = open;
    for (int depth = 1; close < text.size() && close - open < kMaxCall; ++close) {
      if (text[close] == '(' || text[close] == '[' || text[close] == '{') ++depth;
      if ((text[close] == ')' || text[close] == ']' || text[close] == '}') && --depth == 0) break;
    }
    const std::string_view call = text.substr(open, close - open);
    const std::size_t default_at = call.find("default=");
    if (default_at == std::string_view::npos) continue;
    const std::size_t value = call.find_first_not_of(" ", default_at + 8);
    if (value == std::string_view::npos || std::string_view("0123456789.-+").find(call[value]) == std::string_view::npos)
      continue;
    std::string dest;
    auto quoted_after = [&](std::size_t from) {
      const std::size_t quote = call.find_first_of("\"'", from);
      if (quote == std::string_view::npos) return std::string_view{};
      const std::size_t end_quote = call.find(call[quote], quote + 1);
      return end_quote == std::string_view::npos ? std::string_view{} : call.substr(quote + 1, end_quote - quote - 1);
    };
    if (const std::size_t named = call.find("dest="); named != std::string_view::npos) {
      dest = std::string(quoted_after(named));
    } else {
      for (std::size_t from = 0; from < call.size();) {
        const std::string_view flag = quoted_after(from);
        if (flag.empty()) break;
        if (flag.starts_with("--")) {
          dest = std::string(flag.substr(2));
          break;
        }
        from = static_cast<std::size_t>(flag.data() - call.data()) + flag.size() + 1;
      }
      std::replace(dest.begin(), dest.end(), '-', '_');
    }
    if (!dest.empty()) dests.push_back(std::move(dest));
  }
  return dests;
}

}  // namespace

// (python/imports.h) What a module's text may bind to a number at module level: assignments at
// column 0, or in a block of a module-level statement (`try:`, `if`, `for`), not in a def or a class.
NumericBindings numeric_bindings(std::string_view text) {
  NumericBindings out;
  bool in_definition = false;  // the indented lines below a column-0 def, class or decorator
  bool flags_asked = false;    // an alias reads an args-like object: its flags' defaults may hold numbers
  // The brackets open from the current column-0 statement's start up to `balanced`: read only as
  // far as an indented assignment asks (`index=0,` in a call running on over lines is no statement),
  // so that a file without one is not read byte by byte.
  std::size_t balanced = 0;
  int open = 0;
  for (std::size_t line = 0; line < text.size();) {
    const std::size_t end = std::min(text.find('\n', line), text.size());
    std::size_t at = line;
    while (at < end && (text[at] == ' ' || text[at] == '\t')) ++at;
    const bool indented = at > line;
    const std::size_t name_begin = at;
    // A statement starts with a name or a decorator: a column-0 line of a bracket or string that
    // runs on (`) -> None:` closing a def's parameters) changes nothing.
    if (!indented && at < end && (is_identifier_char(text[at]) || text[at] == '@')) {
      const std::string_view code = text.substr(at, end - at);
      in_definition = code.starts_with("def ") || code.starts_with("async ") || code.starts_with("class ") ||
                      code.starts_with("@");
      balanced = line;
      open = 0;
    }
    if (indented && in_definition) {  // most lines of a module: a def's or a class's
      line = end + 1;
      continue;
    }
    while (at < end && is_identifier_char(text[at])) ++at;
    const std::string_view rest = text.substr(at, end - at);
    const std::size_t eq = rest.find('=');
    const std::size_t first = rest.find_first_not_of(' ');
    const bool assignment = at > name_begin && !(text[name_begin] >= '0' && text[name_begin] <= '9') &&
                            eq != std::string_view::npos && (eq + 1 >= rest.size() || rest[eq + 1] != '=') &&
                            (first == eq || rest[first] == ':');
    bool statement = assignment;
    if (statement && indented) {
      for (std::size_t from = balanced; from < line;) {
        const std::size_t stop = std::min(text.find('\n', from), line);
        open += bracket_balance(text.substr(from, stop - from));
        from = stop + 1;
      }
      balanced = std::max(balanced, line);
      statement = open <= 0;
    }
    if (statement) {
      const std::size_t value = rest.find_first_not_of(" (", eq + 1);
      const std::string_view expression = value == std::string_view::npos ? "" : rest.substr(value);
      const std::string_view name = text.substr(name_begin, at - name_begin);
      const bool numeric = !expression.empty() && (std::string_view("0123456789.-+").find(expression[0]) != std::string_view::npos ||
                                                   expression.starts_with("float(") || expression.starts_with("int(") ||
                                                   expression.starts_with("math.") || expression.starts_with("np."));
      if (numeric) {
        out.numbers.emplace_back(name);
      } else if (!expression.empty() && is_identifier_char(expression[0]) &&
                 expression.find('(') == std::string_view::npos) {
        const std::string_view leaf = last_name_or_key(expression);
        if (!leaf.empty() && leaf != name && leaf != "None" && leaf != "True" && leaf != "False") {
          out.aliases.emplace_back(std::string(name), std::string(leaf));
          const std::string_view root = expression.substr(0, expression.find_first_of(".["));
          flags_asked = flags_asked || root.find("arg") != std::string_view::npos || root.find("opt") != std::string_view::npos;
        }
      }
    }
    line = end + 1;
  }
  if (flags_asked) out.flags = numeric_flag_dests(text);
  return out;
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
