#include "python/extract/tensor_dtype.h"

#include "core/identifier.h"

#include "python/extract/layer_stacks.h"
#include "python/extract/local_values.h"
#include "python/frontend.h"
#include "python/lexing.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>
#include <vector>

namespace cudnnlint::python {

namespace {

constexpr int kMaxDepth = 12;

// An element type the code makes plain, where it does so, and the names crossed on the way.
struct Typed {
  DType dtype = DType::Unknown;
  std::string spelling;  // how the code sets it: "torch.randint(...)", ".long()", "torch.float16"
  Location where;
  std::vector<ProvenanceStep> steps;  // definition first
  bool scalar = false;   // a Python number: it takes the tensor's type in arithmetic
  bool float_scalar = false;  // a Python float (`0.5`, `SCALE = 0.5`): with an integer tensor, floating
  // A PILToTensor() in a Compose list: the edit that converts right after it (TensorInputFact's).
  std::optional<Location> conversion_at;
  std::string conversion_from, conversion_to;
  explicit operator bool() const { return dtype != DType::Unknown || scalar; }
};

// Whether a module-level `import torch` (alone or in a list: `import os, torch`) binds the name
// `torch`. Read from the text, not the import table: a region parse binds only the names its
// regions use, and a fix must not depend on the parse mode.
bool binds_torch_at_module_level(std::string_view source) {
  for (std::size_t at = 0; at < source.size();) {
    const std::size_t end = std::min(source.find('\n', at), source.size());
    std::string_view line = source.substr(at, end - at);
    at = end + 1;
    if (!line.starts_with("import ")) continue;
    line.remove_prefix(7);
    if (const auto comment = line.find('#'); comment != std::string_view::npos) line = line.substr(0, comment);
    while (!line.empty()) {
      const std::size_t comma = line.find(',');
      std::string_view name = line.substr(0, comma);
      while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.remove_prefix(1);
      while (!name.empty() && (name.back() == ' ' || name.back() == '\t' || name.back() == '\r')) name.remove_suffix(1);
      if (name == "torch") return true;
      if (comma == std::string_view::npos) break;
      line.remove_prefix(comma + 1);
    }
  }
  return false;
}

TSNode keyword(const CallArgs& args, std::string_view name) {
  for (const auto& [key, value] : args.keywords)
    if (key == name) return value;
  return {};
}

TSNode positional_or_keyword(const CallArgs& args, std::size_t index, std::string_view name) {
  if (args.first_star >= 0 && static_cast<int>(index) >= args.first_star) return keyword(args, name);
  if (index < args.positional.size()) return args.positional[index];
  return keyword(args, name);
}

CallArgs args_of(TSNode call, Resolver& r) { return collect_args(field(call, Grammar::get().f_arguments), r.source()); }

std::string method_of(TSNode call, Resolver& r) {
  const TSNode callee = field(call, Grammar::get().f_function);
  return is(callee, Grammar::get().attribute) ? std::string(r.text(field(callee, Grammar::get().f_attribute))) : "";
}

TSNode receiver_of(TSNode call) { return field(field(call, Grammar::get().f_function), Grammar::get().f_object); }

// The element type an argument names: `torch.float16`, `tf.int32`, `np.uint8`, "float16".
DType dtype_named(TSNode node, Resolver& r) {
  const Grammar& g = Grammar::get();
  node = strip(node);
  if (is(node, g.string)) return dtype_from_spelling(r.text(node));
  if (!is(node, g.attribute)) return DType::Unknown;
  const std::string name = qualified(node, r);
  if (name.rfind("torch.", 0) == 0 || name.rfind("tensorflow.", 0) == 0 || name.rfind("numpy.", 0) == 0 ||
      name.rfind("jax.numpy.", 0) == 0)
    return dtype_from_spelling(name);
  return DType::Unknown;
}

// Whether `.to(arg)` names a device, not an element type: "cuda", `device`, `args.device`, torch.device(...).
bool names_device(TSNode node, Resolver& r) {
  const Grammar& g = Grammar::get();
  node = strip(node);
  if (is(node, g.string)) {
    const std::string_view text = r.text(node);
    return text.find("cuda") != std::string_view::npos || text.find("cpu") != std::string_view::npos ||
           text.find("mps") != std::string_view::npos;
  }
  if (is(node, g.call)) return qualified(field(node, g.f_function), r) == "torch.device";
  if (is(node, g.identifier) || is(node, g.attribute)) {
    std::string text(r.text(node));
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text.find("device") != std::string::npos || text.find("cuda") != std::string::npos ||
           text.find("gpu") != std::string::npos || text == "dev";
  }
  return false;
}

DType conversion_method(std::string_view method) {
  if (method == "long") return DType::Int64;
  if (method == "int") return DType::Int32;
  if (method == "short") return DType::Int16;
  if (method == "byte") return DType::UInt8;
  if (method == "char") return DType::Int8;
  if (method == "bool") return DType::Bool;
  if (method == "half") return DType::Float16;
  if (method == "bfloat16") return DType::BFloat16;
  if (method == "float") return DType::Float32;
  if (method == "double") return DType::Float64;
  return DType::Unknown;
}

// The element type a call converts a model's weights to: `.half()`, `.to(torch.float16)`,
// `.to(dtype=torch.float16)`, `.to("cuda", torch.float16)`; Unknown for any other call.
DType model_conversion(TSNode call, Resolver& r) {
  const std::string method = method_of(call, r);
  if (method != "to") return conversion_method(method);
  const CallArgs args = args_of(call, r);
  if (const TSNode dtype = keyword(args, "dtype"); !ts_node_is_null(dtype)) return dtype_named(dtype, r);
  for (std::size_t i = 0; i < std::min<std::size_t>(args.positional.size(), 2); ++i)
    if (const DType d = dtype_named(args.positional[i], r); d != DType::Unknown) return d;
  return DType::Unknown;
}

// The conversion to float16 of a layer that the module class `callee` names keeps as an attribute
// (`self.fc = nn.Linear(16, 4).half()` in its __init__, set once); null when it holds none.
TSNode half_submodule(TSNode callee, Resolver& r) {
  const Grammar& g = Grammar::get();
  if (!is(callee, g.identifier)) return {};
  const auto [scope, binding] = r.lookup(r.text(callee));
  if (scope == nullptr || binding == nullptr || !binding->only_definition() ||
      !is(binding->definition, g.class_definition))
    return {};
  const Scope* model = r.scope_of(binding->definition);
  if (model == nullptr) return {};
  for (const auto& [name, set] : model->self_attributes) {
    if (set.count != 1 || set.method == nullptr || set.method->name != "__init__") continue;
    const TSNode value = strip(set.value);
    if (is(value, g.call) && model_conversion(value, r) == DType::Float16) return value;
  }
  return {};
}

// Where the model a parameter names is converted to float16, when every call of its function in the
// module passes one (`make_optimizer(Net().half())`, or a name bound to `Net().half()`), with the
// call as a step; nullopt otherwise.
std::optional<std::pair<Location, ProvenanceStep>> half_model_at_calls(TSNode parameter_name, Resolver& r) {
  const Grammar& g = Grammar::get();
  const auto [scope, binding] = r.lookup(r.text(parameter_name));
  if (scope == nullptr || binding == nullptr || !binding->only_parameter() || scope->kind != Scope::Kind::Function)
    return std::nullopt;
  const Parameter& parameter = scope->parameters[static_cast<std::size_t>(binding->parameter)];
  const auto sites = r.evaluator().folder().call_sites(*scope, parameter);
  if (!sites) return std::nullopt;
  std::optional<std::pair<Location, ProvenanceStep>> agreed;
  for (const CallSite& site : *sites) {
    if (site.is_default) return std::nullopt;
    const Resolver::ScopeVisit at(r, site.scope);
    TSNode model = strip(site.argument);
    if (is(model, g.identifier)) model = strip(definition_of(model, r));
    if (!is(model, g.call) || model_conversion(model, r) != DType::Float16) return std::nullopt;
    if (!agreed) agreed.emplace(r.locate(model), ProvenanceStep{r.locate(site.call), site.says(parameter.name, r.source())});
  }
  return agreed;
}

// The return statements of a def's own body (not of the functions, lambdas and classes inside it),
// and whether it yields.
struct OwnReturns {
  std::vector<TSNode> returns;
  bool yields = false;
};
OwnReturns own_returns(TSNode definition, const Resolver& r) {
  const Grammar& g = Grammar::get();
  OwnReturns out;
  walk_tree(
      field(definition, g.f_body),
      [&](TSNode node, const TSTreeCursor*) {
        if (is(node, g.function_definition) || is(node, g.lambda) || is(node, g.class_definition)) return false;
        if (is(node, g.return_statement)) out.returns.push_back(node);
        if (r.text(node).starts_with("yield")) out.yields = true;
        return true;
      },
      [](TSNode) {});
  return out;
}

// Autocast around `node`: the with-statement or decorator that opens it, and its float type.
struct AutocastRegion {
  TSNode opened_by{};
  DType dtype = DType::Unknown;
};

DType autocast_dtype(std::string_view text) {
  if (text.find("bfloat16") != std::string_view::npos) return DType::BFloat16;
  if (text.find("float16") != std::string_view::npos || text.find("half") != std::string_view::npos)
    return DType::Float16;
  // torch.autocast("cpu") runs in bfloat16 by default, "cuda" (and torch.cuda.amp.autocast) in float16.
  if (text.find("cpu") != std::string_view::npos) return DType::BFloat16;
  if (text.find("enabled=False") != std::string_view::npos) return DType::Unknown;
  return DType::Float16;
}

std::optional<AutocastRegion> autocast_around(TSNode node, Resolver& r) {
  const Grammar& g = Grammar::get();
  for (TSNode at = ts_node_parent(node); !ts_node_is_null(at); at = ts_node_parent(at)) {
    if (is(at, g.with_statement)) {
      for (const TSNode clause : named_children(at)) {
        if (!is(clause, g.with_clause)) continue;
        const std::string_view text = r.text(clause);
        if (text.find("autocast") != std::string_view::npos) return AutocastRegion{clause, autocast_dtype(text)};
      }
    }
    if (is(at, g.decorated_definition)) {
      for (const TSNode child : named_children(at)) {
        if (is(child, g.function_definition) || is(child, g.class_definition)) continue;
        const std::string_view text = r.text(child);
        if (text.find("autocast") != std::string_view::npos) return AutocastRegion{child, autocast_dtype(text)};
      }
    }
  }
  return std::nullopt;
}

// A list literal holding only integer literals (nested lists allowed), at least one.
bool integer_list(TSNode node, Resolver& r, int depth = 0) {
  const Grammar& g = Grammar::get();
  node = strip(node);
  if (!(is(node, g.list) || is(node, g.tuple)) || depth > 6) return false;
  const uint32_t n = ts_node_named_child_count(node);
  if (n == 0) return false;
  for (uint32_t i = 0; i < n; ++i) {
    TSNode item = strip(ts_node_named_child(node, i));
    if (is(item, g.unary_operator)) item = field(item, g.f_argument);
    if (is(item, g.integer)) continue;
    if ((is(item, g.list) || is(item, g.tuple)) && integer_list(item, r, depth + 1)) continue;
    return false;
  }
  return true;
}

// ---- The compute type of a Keras layer class under a mixed_float16 policy ----
// A layer whose dtype is float32 (`super().__init__(dtype="float32")`, or every instance built
// with `L(dtype="float32")`) computes in float32 under the policy: its `call` sees float32 inputs
// (measured: TF 2.21 / Keras 3.15.1). Read from the module's text, not the tree: a region parse may
// leave the class's __init__ and the code that builds the class out, and the answer must not depend
// on the parse mode. Whatever is not read for sure (a dtype from a variable, `**config`, a
// positional dtype) counts as not float16: an unknown never makes a finding.

// `s` with every comment and the inside of every string literal blanked (the quotes kept), byte for
// byte: searches in it find no words in strings or comments, and its positions are the source's.
std::string blank_strings_and_comments(std::string_view s) {
  std::string out(s);
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '#') {
      while (i < s.size() && s[i] != '\n') out[i++] = ' ';
      continue;
    }
    if (c != '"' && c != '\'') {
      ++i;
      continue;
    }
    const bool triple = i + 2 < s.size() && s[i + 1] == c && s[i + 2] == c;
    std::size_t j = i + (triple ? 3 : 1);
    while (j < s.size()) {
      if (s[j] == '\\' && j + 1 < s.size()) {
        out[j] = out[j + 1] = ' ';
        j += 2;
        continue;
      }
      if (s[j] == c && (!triple || (j + 2 < s.size() && s[j + 1] == c && s[j + 2] == c))) {
        j += triple ? 3 : 1;
        break;
      }
      if (!triple && s[j] == '\n') break;  // unterminated: the line ends it
      out[j++] = ' ';
    }
    i = j;
  }
  return out;
}


std::string_view trim_text(std::string_view t) {
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  return t;
}

// One argument (or parameter) of a bracket, as written: `dtype="float32"`, `**kwargs`, `16`.
struct TextArg {
  enum class Kind { Positional, Keyword, Star, DoubleStar } kind = Kind::Positional;
  std::string_view name;   // Keyword: the keyword; a parameter: its name
  std::string_view value;  // from the source (strings kept): Keyword's value, a splat's operand
  std::string_view text;   // the whole argument, from the source
};

// The arguments of the bracket opened at `open` (m[open] == '('), split at its top-level commas;
// nullopt when it does not close. `m` is the blanked text, `s` the source.
std::optional<std::vector<TextArg>> text_args(std::string_view s, std::string_view m, std::size_t open) {
  std::vector<TextArg> args;
  int depth = 0;
  std::size_t start = open + 1;
  auto push = [&](std::size_t end) {
    // Bounds trimmed in the blanked text: a trailing comment is blank there.
    std::size_t b = start, e = end;
    while (b < e && std::isspace(static_cast<unsigned char>(m[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(m[e - 1]))) --e;
    if (b == e) return;
    TextArg arg;
    arg.text = s.substr(b, e - b);
    const std::string_view code = m.substr(b, e - b);
    if (code.starts_with("**")) {
      arg.kind = TextArg::Kind::DoubleStar;
      arg.value = trim_text(arg.text.substr(2));
    } else if (code.starts_with("*")) {
      arg.kind = TextArg::Kind::Star;
      arg.value = trim_text(arg.text.substr(1));
    } else {
      std::size_t k = 0;
      while (k < code.size() && is_identifier_char(code[k])) ++k;
      arg.name = arg.text.substr(0, k);
      std::size_t eq = k;
      while (eq < code.size() && code[eq] == ' ') ++eq;
      if (k > 0 && eq + 1 < code.size() && code[eq] == '=' && code[eq + 1] != '=') {
        arg.kind = TextArg::Kind::Keyword;
        arg.value = trim_text(arg.text.substr(eq + 1));
      } else {
        arg.value = arg.text;
      }
    }
    args.push_back(arg);
  };
  for (std::size_t i = open + 1; i < m.size(); ++i) {
    const char c = m[i];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) {
        if (c != ')') return std::nullopt;
        push(i);
        return args;
      }
      --depth;
    } else if (c == ',' && depth == 0) {
      push(i);
      start = i + 1;
    }
  }
  return std::nullopt;
}

// What a layer's dtype argument makes its compute type.
enum class Compute { Half, NotHalf, Unknown };

Compute compute_named(std::string_view name) {
  for (const std::string_view half : {"float16", "mixed_float16", "half"})
    if (name == half) return Compute::Half;
  for (const std::string_view other : {"float32", "float64", "bfloat16", "mixed_bfloat16", "double", "float"})
    if (name == other) return Compute::NotHalf;
  return Compute::Unknown;
}

// `"float32"`, `tf.float32`, `keras.DTypePolicy("float32")`, `mixed_precision.Policy(name="float32")`;
// None is the global policy, float16 here.
Compute compute_of(std::string_view v, int depth = 0) {
  v = trim_text(v);
  if (v.empty() || depth > 2) return Compute::Unknown;
  if (v == "None") return Compute::Half;
  std::size_t p = 0;
  while (p < v.size() && p < 2 && std::isalpha(static_cast<unsigned char>(v[p]))) ++p;
  if (p < v.size() && (v[p] == '"' || v[p] == '\'')) {
    const char q = v[p];
    std::string_view inner = v.substr(p);
    while (inner.size() >= 2 && inner.front() == q && inner.back() == q) inner = inner.substr(1, inner.size() - 2);
    return inner.find(q) == std::string_view::npos ? compute_named(inner) : Compute::Unknown;
  }
  if (v.back() == ')') {
    const std::size_t open = v.find('(');
    if (open == std::string_view::npos) return Compute::Unknown;
    const std::string_view callee = trim_text(v.substr(0, open));
    const std::string_view leaf = callee.substr(callee.rfind('.') == std::string_view::npos ? 0 : callee.rfind('.') + 1);
    if (leaf != "Policy" && leaf != "DTypePolicy" && leaf != "FloatDTypePolicy") return Compute::Unknown;
    std::string_view inner = trim_text(v.substr(open + 1, v.size() - open - 2));
    if (inner.find(',') != std::string_view::npos) inner = inner.substr(0, inner.find(','));
    if (inner.starts_with("name")) {
      const std::size_t eq = inner.find('=');
      if (eq == std::string_view::npos) return Compute::Unknown;
      inner = inner.substr(eq + 1);
    }
    return compute_of(inner, depth + 1);
  }
  for (const char c : v)
    if (!is_identifier_char(c) && c != '.') return Compute::Unknown;
  return compute_named(v.substr(v.rfind('.') == std::string_view::npos ? 0 : v.rfind('.') + 1));
}

// How the instances of a layer class get their compute type: fixed by the class, or forwarded from
// the construction's argument `keyword` (positional `index`, -1: keyword only), `by_default` when
// the construction passes none.
struct DtypeSource {
  bool forwarded = false;
  Compute fixed = Compute::Unknown;
  std::string_view keyword;
  int index = -1;
  Compute by_default = Compute::Unknown;
};

// The end of the logical line starting at `at`: the newline that ends it (outside brackets and
// line continuations), or m.size().
std::size_t logical_line_end(std::string_view m, std::size_t at) {
  int depth = 0;
  for (std::size_t i = at; i < m.size(); ++i) {
    const char c = m[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    else if (c == '\\' && i + 1 < m.size() && (m[i + 1] == '\n' || m[i + 1] == '\r')) ++i;
    else if (c == '\n' && depth == 0) return i;
  }
  return m.size();
}

struct TextLine {
  std::size_t begin = 0, end = 0;  // the logical line, past its indentation
  std::size_t indent = 0;
};

// The logical lines after the one holding `header` (a def or class statement) that are more indented
// than `header_indent`: the statement's body. Blank and comment lines are left out.
std::vector<TextLine> body_lines(std::string_view m, std::size_t header, std::size_t header_indent) {
  std::vector<TextLine> lines;
  std::size_t at = logical_line_end(m, header);
  while (at < m.size()) {
    const std::size_t begin = at + 1;
    std::size_t code = begin;
    while (code < m.size() && (m[code] == ' ' || m[code] == '\t')) ++code;
    const std::size_t end = logical_line_end(m, begin);
    if (trim_text(m.substr(code, end - code)).empty()) {
      at = end;
      continue;
    }
    if (code - begin <= header_indent) break;
    lines.push_back({code, end, code - begin});
    at = end;
  }
  return lines;
}

std::size_t indent_at(std::string_view m, std::size_t at) {
  const std::size_t line = m.rfind('\n', at == 0 ? 0 : at - 1);
  const std::size_t begin = (line == std::string_view::npos || at == 0) ? 0 : line + 1;
  return at - begin;
}

// The module-level `class name` statement, from the blanked text.
std::optional<std::size_t> module_class_at(std::string_view m, std::string_view name) {
  for (std::size_t at = m.find("class "); at != std::string_view::npos; at = m.find("class ", at + 1)) {
    if (at != 0 && m[at - 1] != '\n') continue;
    std::size_t k = at + 6;
    while (k < m.size() && m[k] == ' ') ++k;
    if (m.substr(k, name.size()) == name && k + name.size() < m.size() && !is_identifier_char(m[k + name.size()]))
      return at;
  }
  return std::nullopt;
}

DtypeSource class_dtype_source(std::string_view s, std::string_view m, std::size_t class_at, int depth) {
  DtypeSource unknown;  // fixed Unknown
  // Keras's own Layer.__init__: dtype=None (the policy), third positional in Keras 2.
  DtypeSource layer_default{true, Compute::Unknown, "dtype", 2, Compute::Half};
  const std::size_t class_indent = indent_at(m, class_at);
  const std::vector<TextLine> body = body_lines(m, class_at, class_indent);
  if (body.empty()) return unknown;
  const std::size_t member_indent = body.front().indent;
  for (const TextLine& line : body) {
    if (line.indent != member_indent) continue;
    const std::string_view code = m.substr(line.begin, line.end - line.begin);
    if (!code.starts_with("def __init__")) continue;
    const std::size_t open = m.find('(', line.begin);
    if (open == std::string_view::npos || open >= line.end) return unknown;
    const auto params = text_args(s, m, open);
    if (!params) return unknown;
    // The parameters as a call binds them: name, positional index (self excluded), default.
    struct Param {
      std::string_view name, default_text;
      int index = -1;
    };
    std::vector<Param> named;
    std::string_view var_keywords;
    bool keyword_only = false;
    int index = -1;  // self is -1
    for (const TextArg& p : *params) {
      if (p.kind == TextArg::Kind::DoubleStar) {
        var_keywords = p.value;
        continue;
      }
      if (p.kind == TextArg::Kind::Star) {
        keyword_only = true;
        continue;
      }
      if (p.text == "/") continue;  // positional-only marker
      Param param;
      std::size_t k = 0;
      while (k < p.text.size() && is_identifier_char(p.text[k])) ++k;
      param.name = p.text.substr(0, k);
      const std::size_t eq = p.text.find('=');
      if (eq != std::string_view::npos) param.default_text = trim_text(p.text.substr(eq + 1));
      param.index = keyword_only ? -1 : index;
      if (!keyword_only) ++index;
      named.push_back(param);
    }
    // The first `super().__init__(...)`, `super(L, self).__init__(...)` or `Base.__init__(self, ...)`.
    for (const TextLine& statement : body_lines(m, line.begin, member_indent)) {
      const std::string_view text = m.substr(statement.begin, statement.end - statement.begin);
      for (std::size_t at = text.find(".__init__"); at != std::string_view::npos; at = text.find(".__init__", at + 1)) {
        std::size_t open_call = at + 9;
        while (open_call < text.size() && text[open_call] == ' ') ++open_call;
        if (open_call >= text.size() || text[open_call] != '(') continue;
        // The receiver: super(...) (shift 0) or a base class named (shift 1: self comes first).
        std::size_t r = at;
        int shift = 1;
        if (r > 0 && text[r - 1] == ')') {
          int level = 0;
          std::size_t k = r;
          while (k > 0) {
            --k;
            if (text[k] == ')') ++level;
            else if (text[k] == '(' && --level == 0) break;
          }
          if (k < 5 || text.substr(k - 5, 5) != "super") continue;
          shift = 0;
        } else {
          std::size_t k = r;
          while (k > 0 && (is_identifier_char(text[k - 1]) || text[k - 1] == '.')) --k;
          const std::string_view receiver = text.substr(k, r - k);
          if (receiver.empty() || receiver == "self") continue;
        }
        const auto args = text_args(s, m, statement.begin + open_call);
        if (!args) return unknown;
        std::vector<const TextArg*> positional;
        const TextArg* dtype = nullptr;
        bool star = false, forwards_kwargs = false, other_splat = false;
        for (const TextArg& a : *args) {
          if (a.kind == TextArg::Kind::Positional) positional.push_back(&a);
          if (a.kind == TextArg::Kind::Keyword && a.name == "dtype") dtype = &a;
          if (a.kind == TextArg::Kind::Star) star = true;
          if (a.kind == TextArg::Kind::DoubleStar) (a.value == var_keywords ? forwards_kwargs : other_splat) = true;
        }
        if (dtype != nullptr) {
          for (const Param& param : named) {
            if (param.name != dtype->value || param.name == "self") continue;
            return DtypeSource{true, Compute::Unknown, param.name, param.index,
                               param.default_text.empty() ? Compute::Unknown : compute_of(param.default_text)};
          }
          return DtypeSource{false, compute_of(dtype->value), {}, -1, Compute::Unknown};
        }
        if (star || other_splat || static_cast<int>(positional.size()) - shift >= 3) return unknown;
        if (forwards_kwargs) return DtypeSource{true, Compute::Unknown, "dtype", -1, Compute::Half};
        return DtypeSource{false, Compute::Half, {}, -1, Compute::Unknown};
      }
    }
    return unknown;  // an __init__ that calls no base __init__ the text shows
  }
  // No __init__: the first base's. A base class of the module is read the same way; any other is
  // taken for Keras's Layer.
  const std::size_t name_end = logical_line_end(m, class_at);
  const std::size_t open = m.find('(', class_at);
  if (open == std::string_view::npos || open > name_end) return layer_default;
  const auto bases = text_args(s, m, open);
  if (!bases || bases->empty() || bases->front().kind != TextArg::Kind::Positional) return layer_default;
  const std::string_view base = bases->front().text;
  if (depth < 3 && std::all_of(base.begin(), base.end(), is_identifier_char))
    if (const auto base_at = module_class_at(m, base)) return class_dtype_source(s, m, *base_at, depth + 1);
  return layer_default;
}

// Whether the `call` of the class `name` defined at `class_at` runs in float16 under the module's
// mixed_float16 policy: its instances' compute type, from the class and from the constructions the
// module writes. A class the module never builds takes the policy.
bool layer_computes_in_half(std::string_view s, std::string_view m, std::size_t class_at, std::string_view name) {
  const DtypeSource source = class_dtype_source(s, m, class_at, 0);
  if (!source.forwarded) return source.fixed == Compute::Half;
  bool any = false;
  for (std::size_t at = m.find(name); at != std::string_view::npos; at = m.find(name, at + 1)) {
    if ((at > 0 && is_identifier_char(m[at - 1])) ||
        (at + name.size() < m.size() && is_identifier_char(m[at + name.size()])))
      continue;
    std::size_t open = at + name.size();
    while (open < m.size() && m[open] == ' ') ++open;
    if (open >= m.size() || m[open] != '(') continue;
    // Not the class statement, nor a def of that name.
    std::size_t before = at;
    while (before > 0 && m[before - 1] == ' ') --before;
    std::size_t word = before;
    while (word > 0 && is_identifier_char(m[word - 1])) --word;
    const std::string_view previous = m.substr(word, before - word);
    if (previous == "class" || previous == "def") continue;
    const auto args = text_args(s, m, open);
    Compute compute = source.by_default;
    if (!args) {
      compute = Compute::Unknown;
    } else {
      int positional = 0;
      bool star = false, splat = false, found = false;
      for (const TextArg& a : *args) {
        if (a.kind == TextArg::Kind::Keyword && a.name == source.keyword) {
          compute = compute_of(a.value);
          found = true;
        }
        if (a.kind == TextArg::Kind::Star) star = true;
        if (a.kind == TextArg::Kind::DoubleStar) splat = true;
        if (a.kind == TextArg::Kind::Positional && !star && source.index >= 0 && positional++ == source.index) {
          compute = compute_of(a.value);
          found = true;
        }
      }
      if (!found && (splat || (star && source.index >= 0))) compute = Compute::Unknown;
    }
    any = true;
    if (compute == Compute::Half) return true;
  }
  return !any && source.by_default == Compute::Half;
}

class TypeReader {
 public:
  TypeReader(Resolver& r, const std::optional<Location>& keras_policy, bool default_dtype_changed,
             const std::string* blanked_source = nullptr)
      : r_(r), g_(Grammar::get()), keras_policy_(keras_policy), default_dtype_changed_(default_dtype_changed),
        blanked_source_(blanked_source) {}

  Typed of(TSNode node, int depth = 0) {
    node = strip(node);
    if (ts_node_is_null(node) || depth > kMaxDepth) return {};
    if (is(node, g_.integer) || is(node, g_.float_)) return scalar(node);
    if (is(node, g_.unary_operator)) return of(field(node, g_.f_argument), depth + 1);
    if (is(node, g_.identifier)) return name(node, depth);
    if (is(node, g_.subscript)) {
      // `features["x"]` of a dict the code writes (`model_fn({"x": images})`): that entry.
      if (const auto key = string_key(field(node, g_.f_subscript)))
        if (Typed t = item(field(node, g_.f_value), *key, depth + 1); t) return t;
      // `self.volumes[idx]` of `[np.zeros(..., dtype=np.uint8) for _ in range(n)]`: an element.
      if (const TSNode list = list_comprehension_of(field(node, g_.f_value)); !ts_node_is_null(list)) {
        Typed t = of(field(list, g_.f_body), depth + 1);
        return t.scalar ? Typed{} : t;
      }
      return of(field(node, g_.f_value), depth + 1);
    }
    if (is(node, g_.binary_operator)) return binary(node, depth);
    if (is(node, g_.call)) return call(node, depth);
    if (is(node, g_.attribute)) return self_attribute(node, depth);
    return {};
  }

  // Whether an image the code opens with PIL (`Image.open(p).convert("RGB")`) is what `node` holds.
  bool pil_image(TSNode node, int depth = 0) {
    node = strip(node);
    if (depth > kMaxDepth) return false;
    if (is(node, g_.identifier)) {
      const TSNode value = definition_of(node, r_);
      return !ts_node_is_null(value) && pil_image(value, depth + 1);
    }
    if (!is(node, g_.call)) return false;
    const std::string name = qualified(field(node, g_.f_function), r_);
    if (one_of(name, {"PIL.Image.open", "PIL.Image.fromarray", "PIL.Image.new"})) return true;
    const std::string method = method_of(node, r_);
    if (one_of(method, {"convert", "resize", "crop", "rotate", "transpose", "copy"}))
      return pil_image(receiver_of(node), depth + 1);
    return false;
  }

 private:
  Typed scalar(TSNode node) {
    Typed t;
    t.scalar = true;
    t.float_scalar = is(node, g_.float_);
    t.where = r_.locate(node);
    return t;
  }

  // A number the constant folder reaches, as a Python int or float scalar; nothing when it folds to
  // no number or to one whose kind it cannot tell (a value from C++ or a layer stack).
  Typed folded_scalar(TSNode node) {
    const auto folded = r_.fold(strip(node));
    if (!folded || folded->kind == NumberKind::Unknown) return {};
    Typed t;
    t.scalar = true;
    t.float_scalar = folded->kind == NumberKind::Float;
    t.where = r_.locate(node);
    return t;
  }

  Typed set_here(DType dtype, TSNode node, std::string spelling) {
    Typed t;
    t.dtype = dtype;
    t.spelling = std::move(spelling);
    t.where = r_.locate(node);
    return t;
  }

  Typed name(TSNode node, int depth) {
    const TSNode value = definition_of(node, r_);
    if (ts_node_is_null(value)) {
      if (auto batch = loader_batch(node, depth)) return *batch;
      // `X = torch.zeros(..., dtype=torch.uint8)`, then `for layer in net: X = layer(X)`.
      if (const TSNode first = value_before_loop(node, r_); !ts_node_is_null(first)) {
        Typed t = of(first, depth + 1);
        if (t && !t.scalar) t.steps.push_back(defined_here(node, first, r_));
        return t;
      }
      if (Typed t = from_calls(node, depth); t) return t;
      if (Typed t = unpacked_return(node, depth); t) return t;
      return parameter(node);
    }
    Typed t = of(value, depth + 1);
    if (t && !t.scalar) t.steps.push_back(defined_here(node, value, r_));
    return t;
  }

  // A name a `for` loop binds to a batch of a DataLoader over a TensorDataset (`for xb, yb in
  // loader:`, `for i, (xb, yb) in enumerate(loader):`), or to a sample of the dataset itself: the
  // element type of the dataset's tensor at that position (the default collate stacks tensors of one
  // type). nullopt when the loop is not one of these, or its body rebinds the name.
  std::optional<Typed> loader_batch(TSNode identifier, int depth) {
    auto batch = loop_batch(identifier, r_, false, true);
    if (!batch) return std::nullopt;
    if (ts_node_is_null(batch->tensor)) {
      // Batches of a project dataset class: what its __getitem__ returns (the image of an
      // (image, target) pair), stacked by the default collate.
      if (ts_node_is_null(batch->dataset)) return std::nullopt;
      auto sample = dataset_sample(batch->dataset, batch->whole_sample, depth);
      if (!sample || !*sample || sample->scalar) return std::nullopt;
      for (auto& step : batch->steps) sample->steps.push_back(std::move(step));
      return sample;
    }
    Typed t = of(batch->tensor, depth + 1);
    if (t.dtype == DType::Unknown || t.scalar) return std::nullopt;
    for (auto& step : batch->steps) t.steps.push_back(std::move(step));
    return t;
  }

  // The list comprehension `node` is, or that a name or a self attribute holds (its one binding);
  // null otherwise.
  TSNode list_comprehension_of(TSNode node) {
    node = strip(node);
    if (is(node, g_.identifier)) node = strip(definition_of(node, r_));
    else if (is(node, g_.attribute))
      if (const SelfAttribute* set = r_.evaluator().folder().sole_self_attribute(node, r_.scope()))
        node = strip(set->value);
    return is(node, g_.list_comprehension) ? node : TSNode{};
  }

  // `MRIDataset()` (a call of a module class defining __getitem__): the type of what its
  // __getitem__ returns, whole or the first item of each returned pair; nullopt otherwise.
  std::optional<Typed> dataset_sample(TSNode dataset, bool whole, int depth) {
    dataset = strip(dataset);
    const TSNode made_by = is(dataset, g_.call) ? strip(field(dataset, g_.f_function)) : TSNode{};
    const TSNode getitem = module_class_method(made_by, "__getitem__", r_);
    if (ts_node_is_null(getitem)) return std::nullopt;
    std::optional<Unpacked> item;
    if (!whole) item = Unpacked{0, 2};
    return returns_of(getitem, dataset, std::string(r_.text(made_by)) + "().__getitem__", depth, item);
  }

  // `self.obs` in a method: what the class's one write of `.obs` assigns (`self.obs =
  // np.zeros(..., dtype=np.uint8)` in __init__), read where it stands.
  Typed self_attribute(TSNode node, int depth) {
    const SelfAttribute* set = r_.evaluator().folder().sole_self_attribute(node, r_.scope());
    if (set == nullptr || set->method == nullptr) return {};
    Typed t;
    {
      Resolver::ScopeVisit in_method(r_, set->method);
      t = of(set->value, depth + 1);
    }
    if (t && !t.scalar)
      t.steps.push_back({r_.locate(ts_node_parent(set->value)), std::string(r_.text(node)) + " = " +
                                                                    short_text(r_.text(set->value)) + " is set here"});
    return t;
  }

  // The text of a plain string literal (`"x"`, `'x'`), as a dict key; nullopt for anything else.
  std::optional<std::string_view> string_key(TSNode node) const {
    node = strip(node);
    if (!is(node, g_.string)) return std::nullopt;
    const std::string_view text = r_.text(node);
    if (text.size() < 2 || (text.front() != '"' && text.front() != '\'') || text.back() != text.front())
      return std::nullopt;
    const std::string_view inner = text.substr(1, text.size() - 2);
    if (inner.find_first_of("\\'\"{") != std::string_view::npos) return std::nullopt;
    return inner;
  }

  // The entry `key` of a dict literal `container` holds, through a name bound to one or a parameter
  // every call hands one.
  Typed item(TSNode container, std::string_view key, int depth) {
    container = strip(container);
    if (ts_node_is_null(container) || depth > kMaxDepth) return {};
    if (is(container, g_.dictionary)) {
      Typed found;
      for (const TSNode entry : named_children(container)) {
        if (!is(entry, g_.pair)) return {};  // `**other`: the key may come from there
        if (const auto k = string_key(field(entry, g_.f_key)); k && *k == key) found = of(field(entry, g_.f_value), depth + 1);
      }
      return found;
    }
    if (!is(container, g_.identifier)) return {};
    if (const TSNode value = definition_of(container, r_); !ts_node_is_null(value)) return item(value, key, depth + 1);
    return from_calls(container, depth, [&](TSNode argument, int d) { return item(argument, key, d); });
  }

  // A parameter of a module function (or of a module class's __init__) typed at the calls of it in
  // the module (const_eval.h call_sites): `test_step(model, images)`. The calls whose argument has a
  // known element type must agree on it; a call whose argument's type is unknown (`conv(out, ...)`
  // after a pooling the reader does not type) does not undo what another call makes plain: the
  // tensor has that type on that call, which the steps name.
  Typed from_calls(TSNode node, int depth) {
    return from_calls(node, depth, [&](TSNode argument, int d) { return of(argument, d); });
  }

  // The same, with `read` (argument, depth) taking what a call hands over.
  template <class Read>
  Typed from_calls(TSNode node, int depth, Read&& read) {
    if (depth > 8) return {};
    auto [scope, binding] = r_.lookup(r_.text(node));
    if (scope != nullptr && binding != nullptr && binding->parameter < 0)
      std::tie(scope, binding) = nonlocal_parameter(*scope, r_.text(node));
    if (scope == nullptr || binding == nullptr || binding->parameter < 0 || scope->kind != Scope::Kind::Function)
      return {};
    // `obs = torch.from_numpy(obs)`: a parameter the function rebinds, read before it does.
    if (!binding->only_parameter() && !read_before_rebinding(node, *scope)) return {};
    const Parameter& parameter = scope->parameters[static_cast<std::size_t>(binding->parameter)];
    const auto sites = r_.evaluator().folder().call_sites(*scope, parameter);
    if (!sites) return {};
    Typed agreed;
    for (const CallSite& site : *sites) {
      Typed t;
      {
        Resolver::ScopeVisit at(r_, site.scope);
        t = read(site.argument, depth + 1);
      }
      if (!t) continue;
      if (t.scalar || (agreed && t.dtype != agreed.dtype)) return {};
      t.steps.push_back({r_.locate(site.call), site.says(parameter.name, r_.source())});
      if (!agreed) agreed = std::move(t);
    }
    return agreed;
  }

  // `images, labels = load_data()`, a function of the module returning `images, labels`: the
  // type of that item of every return.
  Typed unpacked_return(TSNode identifier, int depth) {
    Unpacked unpacked;
    const TSNode value = strip(previous_assignment(identifier, r_, &unpacked));
    if (unpacked.arity == 0 || !is(value, g_.call) || !is(strip(field(value, g_.f_function)), g_.identifier)) return {};
    auto returned = project_return(strip(field(value, g_.f_function)), value, depth, unpacked);
    if (!returned || !*returned) return {};
    returned->steps.push_back({r_.locate(ts_node_parent(value)), "`" + std::string(r_.text(identifier)) + "` is item " +
                                                                     std::to_string(unpacked.position + 1) + " of " +
                                                                     short_text(r_.text(value)) + " here"});
    return *returned;
  }

  // Whether `identifier` stands in `function`'s body where no statement before it may rebind it
  // (through `with`, `try` and `if` blocks, not loops, whose later statements run before a next
  // round, except `for _ in range(1)`): there it holds what the call passed.
  bool read_before_rebinding(TSNode identifier, const Scope& function) {
    const TSNode body = field(function.node, g_.f_body);
    const std::string_view name = r_.text(identifier);
    TSNode statement = identifier;
    TSNode closure{};  // the closure whose call the walk went on from: its def binds nothing before it
    while (!ts_node_is_null(statement) && !ts_node_eq(statement, body)) {
      const TSNode parent = ts_node_parent(statement);
      if (ts_node_is_null(parent)) return false;
      if (is(parent, g_.block)) {
        for (TSNode before = ts_node_prev_named_sibling(statement); !ts_node_is_null(before);
             before = ts_node_prev_named_sibling(before))
          if (!ts_node_eq(before, closure) && may_bind(before, name, r_)) return false;
        if (ts_node_eq(parent, body)) return true;
        const TSNode holder = ts_node_parent(parent);
        if (is(holder, g_.for_statement) && block_runs_once(parent, r_.source())) {
          statement = holder;
          continue;
        }
        // A closure the function calls once (`def inner(): ...` then `return inner()`) runs where
        // that call stands: what the statements before the call bind, it sees.
        if (is(holder, g_.function_definition)) {
          closure = holder;
          statement = sole_call_of_closure(holder, function);
          continue;
        }
        if (!(is(holder, g_.with_statement) || is(holder, g_.try_statement) || is(holder, g_.if_statement) ||
              is(holder, g_.else_clause) || is(holder, g_.elif_clause) || is(holder, g_.except_clause) ||
              is(holder, g_.finally_clause)))
          return false;
      } else if (is(parent, g_.for_statement) || is(parent, g_.while_statement) || is(parent, g_.function_definition) ||
                 is(parent, g_.lambda) || is(parent, g_.class_definition)) {
        return false;
      }
      statement = parent;
    }
    return false;
  }

  // The parameter `name` of the function enclosing `closure` that declares it `nonlocal name`.
  std::pair<const Scope*, const Binding*> nonlocal_parameter(const Scope& closure, std::string_view name) {
    if (closure.kind != Scope::Kind::Function || closure.parent == nullptr || closure.parent->kind != Scope::Kind::Function)
      return {};
    bool declared = false;
    for (const TSNode statement : named_children(field(closure.node, g_.f_body)))
      if (is(statement, g_.nonlocal_statement))
        for (const TSNode declared_name : named_children(statement)) declared = declared || r_.text(declared_name) == name;
    if (!declared) return {};
    const auto it = closure.parent->bindings.find(name);
    if (it == closure.parent->bindings.end() || it->second.parameter < 0) return {};
    return {closure.parent, &it->second};
  }

  // The one call `name()` of a def nested in `function`'s body, when the function's text names it
  // only there and at its definition and the call comes after it; a null node otherwise.
  TSNode sole_call_of_closure(TSNode def, const Scope& function) {
    const TSNode name_node = field(def, g_.f_name);
    const std::string_view name = r_.text(name_node);
    const std::string_view text = r_.text(function.node);
    const std::size_t offset = ts_node_start_byte(function.node);
    const std::vector<std::size_t> mentions = name_positions(text, name, false);
    if (mentions.size() != 2 || !name_positions(text, name, true).empty()) return {};
    if (offset + mentions[0] != ts_node_start_byte(name_node)) return {};  // the first is the def's own name
    const std::size_t at = offset + mentions[1];
    const TSNode mention = ts_node_descendant_for_byte_range(function.node, static_cast<uint32_t>(at),
                                                             static_cast<uint32_t>(at + name.size()));
    const TSNode call = ts_node_parent(mention);
    if (!is(mention, g_.identifier) || !is(call, g_.call) || !ts_node_eq(field(call, g_.f_function), mention) ||
        !named_children(field(call, g_.f_arguments)).empty() || at < ts_node_end_byte(def))
      return {};
    return call;
  }


  // The first parameter of a Keras layer's `call` under a float16 policy holds float16: Keras casts
  // a layer's floating inputs to its compute type.
  Typed parameter(TSNode node) {
    if (!keras_policy_) return {};
    const auto [scope, binding] = r_.lookup(r_.text(node));
    if (scope == nullptr || binding == nullptr || !binding->only_parameter() || scope->kind != Scope::Kind::Function)
      return {};
    const TSNode def = scope->node;
    if (r_.text(field(def, g_.f_name)) != "call" || binding->parameter != 1) return {};
    // A layer that sets its own float32 dtype (in its __init__, or at every construction the module
    // writes) computes in float32 under the policy.
    if (const Scope* layer = scope->parent; layer != nullptr && layer->kind == Scope::Kind::Class) {
      std::string blanked;
      if (blanked_source_ == nullptr || blanked_source_->size() != r_.source().size())
        blanked = blank_strings_and_comments(r_.source());
      const std::string_view m = blanked.empty() ? std::string_view(*blanked_source_) : std::string_view(blanked);
      if (!layer_computes_in_half(r_.source(), m, ts_node_start_byte(layer->node), layer->name)) return {};
    }
    Typed t;
    t.dtype = DType::Float16;
    t.spelling = "the mixed_float16 policy";
    t.where = *keras_policy_;
    return t;
  }

  Typed binary(TSNode node, int depth) {
    const std::string_view op = r_.text(field(node, g_.f_operator));
    // `a @ b` inside an autocast region runs in the region's type.
    if (op == "@") {
      const auto autocast = autocast_around(node, r_);
      if (autocast && autocast->dtype != DType::Unknown)
        return set_here(autocast->dtype, node, "`@` under " + short_text(r_.text(autocast->opened_by)));
      return {};
    }
    if (op != "+" && op != "-" && op != "*" && op != "/" && op != "**") return {};
    Typed left = of(field(node, g_.f_left), depth + 1);
    Typed right = of(field(node, g_.f_right), depth + 1);
    // Beside a typed tensor, an operand this reader does not follow may still be a number the folder
    // reaches (a constant imported from another module, an argparse default, a config key).
    if (left && !left.scalar && !right) right = folded_scalar(field(node, g_.f_right));
    if (right && !right.scalar && !left) left = folded_scalar(field(node, g_.f_left));
    // An integer tensor divided, or mixed with a Python float, is floating now (torch: float32;
    // TensorFlow's int32 / int: float64): `x / 255`, `x * 0.5`, `x * SCALE` with `SCALE = 0.5`.
    if ((is_integer(left.dtype) || is_integer(right.dtype)) && (op == "/" || left.float_scalar || right.float_scalar))
      return {};
    if (left.scalar && right.scalar) {
      Typed both = left;
      both.float_scalar = left.float_scalar || right.float_scalar || op == "/";
      return both;
    }
    if (left.scalar) return right;
    if (right.scalar) return left;
    if (left.dtype != DType::Unknown && left.dtype == right.dtype) return left;
    return {};  // tensors of different or unknown types: promotion decides
  }

  Typed call(TSNode node, int depth) {
    const TSNode callee = field(node, g_.f_function);
    const CallArgs args = args_of(node, r_);
    // `transforms.PILToTensor()(img)`, `t(img)` with `t = transforms.Compose([...])`.
    if (is(strip(callee), g_.call) || is(strip(callee), g_.identifier)) {
      if (auto t = transform_result(strip(callee), depth)) return *t;
    }
    if (is(callee, g_.attribute)) {
      const std::string method(r_.text(field(callee, g_.f_attribute)));
      const TSNode object = field(callee, g_.f_object);
      const std::string name = qualified(callee, r_);
      // A method of a tensor; module functions (torch.randint) resolve to a qualified name instead.
      if (name.empty() || !known_module_function(name)) {
        if (const DType d = conversion_method(method); d != DType::Unknown && args.positional.empty() &&
                                                         args.keywords.empty())
          return set_here(d, field(callee, g_.f_attribute), "." + method + "()");
        if (method == "to" || method == "type" || method == "astype") {
          TSNode named = positional_or_keyword(args, 0, "dtype");
          if (!ts_node_is_null(keyword(args, "dtype"))) named = keyword(args, "dtype");
          if (const DType d = dtype_named(named, r_); d != DType::Unknown)
            return set_here(d, named, "." + method + "(" + std::string(r_.text(strip(named))) + ")");
          if (method == "to" && !args.positional.empty() && names_device(args.positional.front(), r_) &&
              args.positional.size() == 1 && ts_node_is_null(keyword(args, "dtype")))
            return of(object, depth + 1);
          return {};
        }
        const ElementTypeOps& ops = r_.table().element_types();
        // `scores.argmax(1)`: int64 whatever the receiver (torch 2.11.0, numpy, measured).
        if (const auto set = ops.setting_methods.find(method); set != ops.setting_methods.end())
          return set_here(set->second, field(callee, g_.f_attribute), "." + method + "()");
        if (ops.keeping_methods.count(method) != 0 && ts_node_is_null(keyword(args, "dtype"))) {
          // Autocast on CUDA runs these in float32 whatever the input (its float32 list); on the
          // CPU they keep float16 (measured): inside a region the type depends on the device.
          if (autocast_float32(method) && autocast_around(node, r_)) return {};
          Typed kept = of(object, depth + 1);
          if (is_integer(kept.dtype) && ops.floating_only.count(method) != 0 && ts_node_is_null(keyword(args, "rounding_mode")))
            return {};  // `read_image(p).div(255)`: float32 now
          return kept;
        }
        // `buf.sample()` on an instance of a module class: what that method returns.
        if (name.empty() && is(strip(object), g_.identifier))
          if (auto returned = project_return(callee, node, depth)) return *returned;
        if (name.empty()) return {};
      }
    }
    if (is(strip(callee), g_.identifier))
      if (auto returned = project_return(strip(callee), node, depth)) return *returned;
    const std::string name = qualified(callee, r_);
    if (name.empty()) return {};
    const TSNode dtype_kw = keyword(args, "dtype");
    if (!ts_node_is_null(dtype_kw)) {
      const DType d = dtype_named(dtype_kw, r_);
      if (d == DType::Unknown) return {};
      if (!factory(name) && !one_of(name, {"torch.tensor", "torch.as_tensor", "tensorflow.constant",
                                           "tensorflow.convert_to_tensor", "numpy.array", "numpy.asarray",
                                           "tensorflow.io.decode_image", "tensorflow.image.decode_image",
                                           // A Keras Input declared with an element type: the model's input.
                                           "keras.Input", "keras.layers.Input", "tensorflow.keras.Input",
                                           "tensorflow.keras.layers.Input"}))
        return {};
      return set_here(d, dtype_kw, std::string(r_.text(strip(dtype_kw))));
    }
    const std::string spelled = short_text(r_.text(node));
    if (auto numpy = numpy_default(name, args, node, spelled)) return *numpy;
    if (auto legacy = legacy_constructor(name, node, spelled)) return *legacy;
    const ElementTypeOps& ops = r_.table().element_types();
    // torch.randint, F.one_hot, argmax: int64; image decoders: uint8.
    if (const auto set = ops.setting_functions.find(name); set != ops.setting_functions.end())
      return set_here(set->second, node, spelled);
    if (one_of(name, {"torch.tensor", "torch.as_tensor"}) && !args.positional.empty() &&
        integer_list(args.positional.front(), r_))
      return set_here(DType::Int64, node, spelled);
    if (name == "tensorflow.constant" && !args.positional.empty() && integer_list(args.positional.front(), r_))
      return set_here(DType::Int32, node, spelled);
    if (one_of(name, {"torch.from_numpy", "torch.as_tensor", "torch.tensor", "numpy.asarray", "numpy.array",
                      "tensorflow.convert_to_tensor", "tensorflow.constant"}) &&
        !args.positional.empty()) {
      if (one_of(name, {"numpy.asarray", "numpy.array"}) && pil_image(args.positional.front()))
        return set_here(DType::UInt8, node, spelled + " of a PIL image");
      Typed inner = of(args.positional.front(), depth + 1);
      return inner.scalar ? Typed{} : inner;
    }
    if (one_of(name, {"tensorflow.cast", "tensorflow.dtypes.cast", "tensorflow.image.convert_image_dtype"}) &&
        args.positional.size() >= 2) {
      const DType d = dtype_named(args.positional[1], r_);
      if (d != DType::Unknown) return set_here(d, args.positional[1], short_text(r_.text(node)));
      return {};
    }
    if (float_factory(name) && !default_dtype_changed_)
      return set_here(DType::Float32, node, spelled + " (float32 by default)");
    // Autocast runs these in the region's float type.
    if (one_of(name, {"torch.matmul", "torch.mm", "torch.bmm", "torch.nn.functional.linear", "torch.addmm",
                      "torch.baddbmm", "torch.nn.functional.conv1d", "torch.nn.functional.conv2d",
                      "torch.nn.functional.conv3d"})) {
      const auto autocast = autocast_around(node, r_);
      if (autocast && autocast->dtype != DType::Unknown)
        return set_here(autocast->dtype, node, spelled + " under " + short_text(r_.text(autocast->opened_by)));
      return {};
    }
    if (ops.keeping_functions.count(name) != 0 && !args.positional.empty()) {
      if (autocast_float32(name.substr(name.rfind('.') + 1)) && autocast_around(node, r_)) return {};
      Typed kept = of(args.positional.front(), depth + 1);
      if (is_integer(kept.dtype) && ops.floating_only.count(name.substr(name.rfind('.') + 1)) != 0) return {};  // torch.sqrt(x)
      return kept;
    }
    return {};
  }

  // `name.method` where `name` is bound once to `Cls(...)`, Cls a class of the module that defines
  // `method` itself: that def; null otherwise.
  TSNode instance_method_definition(TSNode callee) {
    const TSNode object = strip(field(callee, g_.f_object));
    if (!is(object, g_.identifier)) return {};
    const auto [scope, instance] = r_.lookup(r_.text(object));
    if (instance == nullptr || !instance->simple() || !is(strip(instance->value), g_.call)) return {};
    return module_class_method(field(strip(instance->value), g_.f_function), r_.text(field(callee, g_.f_attribute)), r_);
  }

  // A call of a module-level function of this file whose every return gives a tensor of one plain
  // type (`def load_images(): return np.random.randint(...).astype(np.uint8)`): that type, with the
  // call as a step. nullopt when `callee` is not such a function.
  // With `item` (an unpacking of the call), the type of that item of each returned tuple.
  std::optional<Typed> project_return(TSNode callee, TSNode call, int depth, std::optional<Unpacked> item = {}) {
    // A module-level function, or a closure of the function the call stands in (`def load(): def
    // inner(): return np.zeros(..., np.uint8); return inner()`).
    // Or a method bound to a module-level name (`load = Loader().load`, const_eval.h
    // bound_method_definition).
    // Or a method called on an instance (`buf = ReplayBuffer(10)`, then `buf.sample()`).
    if (depth > kMaxDepth - 4) return std::nullopt;
    TSNode definition{};
    if (is(callee, g_.attribute)) {
      definition = instance_method_definition(callee);
    } else {
      const auto [scope, binding] = r_.lookup(r_.text(callee));
      if (scope == nullptr || scope->kind == Scope::Kind::Class || binding == nullptr) return std::nullopt;
      if (binding->only_definition()) definition = binding->definition;
      else if (binding->simple() && scope->kind == Scope::Kind::Module) definition = r_.bound_method_definition(binding->value);
    }
    if (!is(definition, g_.function_definition)) return std::nullopt;
    return returns_of(definition, call, std::string(r_.text(callee)) + "()", depth, item);
  }

  // What every return of the def `definition` gives (`item`: that item of each returned tuple),
  // with "`label` returns it" at `call` as a step; Typed{} when they disagree or say nothing.
  std::optional<Typed> returns_of(TSNode definition, TSNode call, const std::string& label, int depth,
                                  std::optional<Unpacked> item) {
    if (depth > kMaxDepth - 4) return std::nullopt;
    const Scope* function = r_.scope_of(definition);
    if (function == nullptr) return std::nullopt;
    const auto [returns, yields] = own_returns(definition, r_);
    if (returns.empty() || yields || returns.size() > 8) return Typed{};
    Resolver::ScopeVisit in_function(r_, function);
    Typed out;
    for (const TSNode ret : returns) {
      if (ts_node_named_child_count(ret) == 0) return Typed{};
      TSNode returned = ts_node_named_child(ret, 0);
      Typed t;
      if (item) {
        returned = strip(returned);
        const TSNode inner = is(returned, g_.call) ? strip(field(returned, g_.f_function)) : TSNode{};
        if (is(inner, g_.identifier)) {  // `return load()`: that function's returns, item by item
          auto passed_on = project_return(inner, returned, depth + 4, item);
          if (!passed_on) return Typed{};
          t = std::move(*passed_on);
        } else if ((is(returned, g_.expression_list) || is(returned, g_.tuple)) &&
                   ts_node_named_child_count(returned) == item->arity) {
          t = of(ts_node_named_child(returned, static_cast<std::uint32_t>(item->position)), depth + 4);
        } else {
          return Typed{};
        }
      } else {
        t = of(returned, depth + 4);
      }
      if (t.dtype == DType::Unknown || t.scalar || (out.dtype != DType::Unknown && t.dtype != out.dtype)) return Typed{};
      if (out.dtype == DType::Unknown) out = std::move(t);
    }
    out.steps.push_back({r_.locate(call), label + " returns it"});
    return out;
  }

  // numpy's element types where the code gives none: float64 for its float factories and random
  // samples, int64 for randint (Linux; numpy >= 2 everywhere); a dtype passed by position
  // (`np.zeros(shape, np.uint8)`) as written. nullopt when `name` is none of these.
  std::optional<Typed> numpy_default(const std::string& name, const CallArgs& args, TSNode node,
                                     const std::string& spelled) {
    // The position of the dtype parameter, for the factories that take one there.
    int dtype_at = -1;
    if (one_of(name, {"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.array", "numpy.asarray", "numpy.eye",
                      "numpy.identity"}))
      dtype_at = one_of(name, {"numpy.eye"}) ? 3 : 1;
    else if (name == "numpy.full")
      dtype_at = 2;
    if (dtype_at >= 0 && args.first_star < 0 && static_cast<int>(args.positional.size()) > dtype_at) {
      const TSNode written = args.positional[static_cast<std::size_t>(dtype_at)];
      const DType d = dtype_named(written, r_);
      if (d == DType::Unknown) return Typed{};
      return set_here(d, written, std::string(r_.text(strip(written))));
    }
    if (!ts_node_is_null(keyword(args, "dtype"))) return std::nullopt;  // read with the other factories
    if (one_of(name, {"numpy.random.rand", "numpy.random.randn", "numpy.random.random", "numpy.random.random_sample",
                      "numpy.random.sample", "numpy.random.normal", "numpy.random.uniform",
                      "numpy.random.standard_normal", "numpy.linspace", "numpy.zeros", "numpy.ones", "numpy.empty",
                      "numpy.eye", "numpy.identity"}))
      return set_here(DType::Float64, node, spelled + " (float64: numpy's default)");
    if (name == "numpy.random.randint") return set_here(DType::Int64, node, spelled + " (int64: numpy's default)");
    return std::nullopt;
  }

  // torch's legacy typed constructors (`torch.DoubleTensor(2, 3)`, `torch.cuda.ByteTensor(...)`) and
  // `torch.Tensor(...)` (the default type, float32 unless the code changes it).
  std::optional<Typed> legacy_constructor(const std::string& name, TSNode node, const std::string& spelled) {
    static constexpr std::pair<std::string_view, DType> kinds[] = {
        {"DoubleTensor", DType::Float64}, {"FloatTensor", DType::Float32}, {"HalfTensor", DType::Float16},
        {"BFloat16Tensor", DType::BFloat16}, {"LongTensor", DType::Int64}, {"IntTensor", DType::Int32},
        {"ShortTensor", DType::Int16}, {"ByteTensor", DType::UInt8}, {"CharTensor", DType::Int8},
        {"BoolTensor", DType::Bool}};
    std::string_view leaf = name;
    if (leaf.starts_with("torch.cuda.")) leaf.remove_prefix(11);
    else if (leaf.starts_with("torch.")) leaf.remove_prefix(6);
    else return std::nullopt;
    for (const auto& [kind, dtype] : kinds)
      if (leaf == kind) return set_here(dtype, node, spelled);
    if (name == "torch.Tensor" && !default_dtype_changed_)
      return set_here(DType::Float32, node, spelled + " (float32 by default)");
    return std::nullopt;
  }

  // Factories that take `dtype=`.
  static bool factory(const std::string& name) {
    return one_of(name, {"torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn", "torch.full",
                         "torch.arange", "torch.randint", "torch.zeros_like", "torch.ones_like", "torch.empty_like",
                         "torch.rand_like", "torch.randn_like", "torch.linspace", "tensorflow.zeros", "tensorflow.ones",
                         "tensorflow.fill", "tensorflow.random.normal", "tensorflow.random.uniform", "numpy.zeros",
                         "numpy.ones", "numpy.empty", "numpy.full", "numpy.arange", "numpy.random.randint",
                         "numpy.zeros_like", "numpy.ones_like", "numpy.empty_like", "numpy.full_like", "numpy.eye",
                         "numpy.identity", "numpy.linspace", "torch.full_like", "torch.randint_like", "torch.eye",
                         "tensorflow.zeros_like", "tensorflow.ones_like", "tensorflow.range"});
  }
  // Factories whose result is float32 when no dtype is given (torch's default dtype).
  static bool float_factory(const std::string& name) {
    return one_of(name, {"torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn"});
  }

  static bool known_module_function(const std::string& name) {
    return name.rfind("torch.", 0) == 0 || name.rfind("tensorflow.", 0) == 0 || name.rfind("numpy.", 0) == 0 ||
           name.rfind("torchvision.", 0) == 0 || name.rfind("cv2.", 0) == 0 || name.rfind("PIL.", 0) == 0;
  }

  // What a torchvision transform (or a Compose of them) makes of a PIL image.
  std::optional<Typed> transform_result(TSNode transform, int depth) {
    if (is(transform, g_.identifier)) {
      const TSNode value = strip(definition_of(transform, r_));
      if (!is(value, g_.call)) return std::nullopt;
      auto t = transform_result(value, depth + 1);
      if (t && t->dtype != DType::Unknown) t->steps.push_back(defined_here(transform, value, r_));
      return t;
    }
    if (!is(transform, g_.call) || depth > kMaxDepth) return std::nullopt;
    const std::string name = qualified(field(transform, g_.f_function), r_);
    const std::string leaf = name.substr(name.rfind('.') + 1);
    if (name.rfind("torchvision.transforms", 0) != 0) return std::nullopt;
    if (leaf == "PILToTensor") return set_here(DType::UInt8, transform, short_text(r_.text(transform)));
    if (leaf != "Compose") return Typed{};
    // The last transform that sets an element type decides; one we cannot read leaves it unknown.
    const CallArgs args = args_of(transform, r_);
    if (args.positional.empty() || !is(strip(args.positional.front()), g_.list)) return Typed{};
    const TSNode list = strip(args.positional.front());
    Typed result;
    for (uint32_t i = 0; i < ts_node_named_child_count(list); ++i) {
      const TSNode item = strip(ts_node_named_child(list, i));
      if (!is(item, g_.call)) return Typed{};
      const std::string item_name = qualified(field(item, g_.f_function), r_);
      const std::string item_leaf = item_name.substr(item_name.rfind('.') + 1);
      if (item_name.rfind("torchvision.transforms", 0) != 0) return Typed{};
      if (item_leaf == "PILToTensor") {
        result = set_here(DType::UInt8, item, short_text(r_.text(item)));
        // `transforms.PILToTensor()` -> `transforms.PILToTensor(), transforms.ConvertImageDtype(torch.float)`,
        // where the module is named through an attribute and `torch` is the torch module.
        const TSNode function = field(item, g_.f_function);
        const CallArgs item_args = args_of(item, r_);
        const bool torch_bound = binds_torch_at_module_level(r_.source());
        if (is(function, g_.attribute) && item_args.positional.empty() && item_args.keywords.empty() &&
            torch_bound) {
          const std::string module_text(r_.text(field(function, g_.f_object)));
          result.conversion_at = r_.locate(item);
          result.conversion_from = std::string(r_.text(item));
          result.conversion_to = result.conversion_from + ", " + module_text + ".ConvertImageDtype(torch.float)";
        }
      } else if (one_of(item_leaf, {"ToTensor", "ConvertImageDtype", "ToDtype", "Normalize", "Lambda", "ToImage",
                                    "ToPureTensor", "ToImageTensor"})) {
        // ToTensor gives float; the others convert or fail on their own terms: no plain uint8 any more.
        result = Typed{};
      } else if (!one_of(item_leaf, {"Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop", "RandomHorizontalFlip",
                                     "RandomVerticalFlip", "Pad", "RandomRotation", "Grayscale", "ColorJitter",
                                     "RandomAffine", "RandomPerspective", "FiveCrop", "TenCrop"})) {
        return Typed{};
      }
    }
    return result;
  }

  // Ops CUDA autocast runs in float32 (the API table's element_types.autocast_float32).
  bool autocast_float32(std::string_view op) const {
    return r_.table().element_types().autocast_float32.count(op) != 0;
  }

  Resolver& r_;
  const Grammar& g_;
  const std::optional<Location>& keras_policy_;
  bool default_dtype_changed_;
  const std::string* blanked_source_;  // the module's text, strings and comments blanked (or null)
};

// What a call's callee runs the input through, where the code makes its weights plain.
struct Consumer {
  std::string api;         // "torch.nn.Conv2d", "torchvision.models.resnet18", "torch.nn.functional.conv2d"
  std::string framework;   // "torch", "keras", "tensorflow"
  std::string text;        // how the code builds it
  TSNode built{};          // the construction
  DType weights = DType::Unknown;  // float32 unless the code converts it; Unknown when it may
  std::string weights_spelling;
  std::optional<Location> weights_at;
  std::vector<ProvenanceStep> steps;
};

bool layer_entry(const ApiEntry* api) {
  return api != nullptr && api->is_class &&
         (api->family == kConvolutionFamily || api->family == kNormalizationFamily) &&
         (api->framework == "torch" || api->framework == "keras" || api->framework == "tensorflow");
}

// torchvision's model builders a call of which is a float32 image model (and a relevance word).
constexpr std::string_view kImageModelBuilders[] = {
    "alexnet", "vgg11", "vgg16", "vgg19", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
    "resnext50_32x4d", "wide_resnet50_2", "densenet121", "mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large",
    "efficientnet_b0", "efficientnet_v2_s", "convnext_tiny", "regnet_y_400mf", "squeezenet1_0", "googlenet",
    "inception_v3", "shufflenet_v2_x1_0", "vit_b_16", "swin_t"};

bool image_model(const std::string& name) {
  if (name == "timm.create_model" || name == "torchvision.models.get_model") return true;
  if (name.rfind("torchvision.models.", 0) != 0) return false;
  // Only the builders the family's relevance names (TensorDtypeExtractor::relevance): a model the
  // region planner does not know would be read in --full-parse only (the fuzzer's resnet36).
  const std::string_view leaf = std::string_view(name).substr(name.rfind('.') + 1);
  return std::find(std::begin(kImageModelBuilders), std::end(kImageModelBuilders), leaf) != std::end(kImageModelBuilders);
}

std::optional<Consumer> construction(TSNode value, Resolver& r, int depth = 0);

// The layer a method of a model class runs its input through first: the first call in `method`
// taking `input` as its first argument, with `input` not rebound before it (`x = x / 255`). A
// functional convolution or batch norm; `self.<attr>(x)` with the attribute assigned once in the
// class to a layer, a stack (its first layer, however the code builds it: python/extract/
// layer_stacks.h) or a model class of the module; `self.<method>(x)`, read the same way.
// Whether a layer of `layer` framework is what a model class of `model` framework ("torch": an
// nn.Module; "keras": a keras.Model or Layer subclass, whose tf.keras and keras layers both count) runs.
bool layer_of(const std::string& layer, std::string_view model) {
  return model == "torch" ? layer == "torch" : layer == "keras" || layer == "tensorflow";
}

// `instantiation`: the call that builds the model (`TemporalConvNet(1, [8, 8, 8])`), whose
// arguments bind __init__'s parameters where a stack is read; null when unknown.
std::optional<Consumer> first_layer_in(TSNode class_def, TSNode method, Resolver& r, int depth,
                                       std::string_view framework, TSNode instantiation) {
  const Grammar& g = Grammar::get();
  if (depth > 4) return std::nullopt;
  const TSNode body = field(class_def, g.f_body);
  const TSNode parameters = field(method, g.f_parameters);
  if (ts_node_named_child_count(parameters) < 2 || !is(ts_node_named_child(parameters, 1), g.identifier))
    return std::nullopt;
  const std::string_view input = r.text(ts_node_named_child(parameters, 1));
  TSNode first_use{};
  bool rebound = false;
  walk_tree(
      field(method, g.f_body),
      [&](TSNode node, const TSTreeCursor*) {
        if (!ts_node_is_null(first_use) || rebound) return false;
        if (is(node, g.assignment) || is(node, g.augmented_assignment)) {
          // `x = x / 255` before the first layer: the layer sees another tensor. The assignment
          // around the first use (`x = self.conv1(x)`) is read after its right-hand side.
          const TSNode left = field(node, g.f_left);
          walk_tree(
              field(node, g.f_right),
              [&](TSNode inner, const TSTreeCursor*) {
                if (!ts_node_is_null(first_use)) return false;
                if (is(inner, g.call)) {
                  const CallArgs args = args_of(inner, r);
                  if (!args.positional.empty() && is(strip(args.positional.front()), g.identifier) &&
                      r.text(strip(args.positional.front())) == input)
                    first_use = inner;
                }
                return ts_node_is_null(first_use);
              },
              [](TSNode) {});
          if (ts_node_is_null(first_use))
            walk_tree(
                left,
                [&](TSNode target, const TSTreeCursor*) {
                  if (is(target, g.identifier) && r.text(target) == input) rebound = true;
                  return !rebound;
                },
                [](TSNode) {});
          return false;
        }
        if (!is(node, g.call)) return true;
        const CallArgs args = args_of(node, r);
        if (!args.positional.empty() && is(strip(args.positional.front()), g.identifier) &&
            r.text(strip(args.positional.front())) == input)
          first_use = node;
        return ts_node_is_null(first_use);
      },
      [](TSNode) {});
  if (ts_node_is_null(first_use) || rebound) return std::nullopt;
  const TSNode callee = field(first_use, g.f_function);
  const std::string function = qualified(callee, r);
  if (const ApiEntry* api = r.table().find(function);
      framework == "torch" && api != nullptr && !api->is_class && api->framework == "torch" &&
      (api->family == kConvolutionFamily || api->family == kNormalizationFamily)) {
    Consumer c;
    c.api = function;
    c.framework = "torch";
    c.built = first_use;
    c.text = short_text(r.text(first_use));
    return c;
  }
  if (!is(callee, g.attribute) || r.text(field(callee, g.f_object)) != "self") return std::nullopt;
  const std::string_view attribute = r.text(field(callee, g.f_attribute));
  // `self._forward_impl(x)`: a method of the class, defined once.
  TSNode called_method{};
  int definitions = 0;
  for (const TSNode member : named_children(body))
    if (is(member, g.function_definition) && r.text(field(member, g.f_name)) == attribute) {
      called_method = member;
      ++definitions;
    }
  if (definitions > 1) return std::nullopt;
  if (definitions == 1) return first_layer_in(class_def, called_method, r, depth + 1, framework, instantiation);
  // `self.<attribute> = ...` assigned once in the class.
  TSNode assigned{};
  int assignments = 0;
  walk_tree(
      body,
      [&](TSNode node, const TSTreeCursor*) {
        if (!is(node, g.assignment)) return true;
        const TSNode left = field(node, g.f_left);
        if (is(left, g.attribute) && r.text(field(left, g.f_object)) == "self" &&
            r.text(field(left, g.f_attribute)) == attribute) {
          ++assignments;
          assigned = field(node, g.f_right);
        }
        return true;
      },
      [](TSNode) {});
  if (assignments != 1) return std::nullopt;
  if (auto layer = construction(assigned, r, depth + 1); layer && layer_of(layer->framework, framework)) return layer;
  // A stack the code builds (`nn.Sequential(*layers)`, `make_layers(cfg)`): its first layer, read
  // in __init__, where it is built.
  const Scope* init = nullptr;
  for (TSNode at = ts_node_parent(assigned); !ts_node_is_null(at) && init == nullptr; at = ts_node_parent(at))
    if (is(at, g.function_definition)) init = r.scope_of(at);
  if (init == nullptr) return std::nullopt;
  Resolver::ScopeVisit in_init(r, init);
  // The instantiation's lists and classes bind __init__'s parameters (`for i in
  // range(len(num_channels))` with `num_channels=[8, 8, 8]`); its numbers are not read here.
  const ConstantBindings no_numbers{init, {}};
  const InitSeed seed{&no_numbers, instantiation};
  const auto layers = stack_layers(strip(assigned), r, {}, false, ts_node_is_null(instantiation) ? nullptr : &seed);
  if (!layers || layers->empty()) return std::nullopt;
  const BoundLayer& first = layers->front();
  std::optional<Resolver::ScopeVisit> in_builder;
  if (first.scope != nullptr && first.scope != r.scope()) in_builder.emplace(r, first.scope);
  auto layer = construction(first.construction, r, depth + 1);
  if (!layer || !layer_of(layer->framework, framework)) return std::nullopt;
  return layer;
}

// A class of this module whose `forward` runs its input first through a convolution or batch norm
// it builds (first_layer_in): the layer, as the model's consumer. The class must not convert itself
// or take a dtype, and must be a plain torch module (its base named `Module` or `nn.Module`).
std::optional<Consumer> project_model(TSNode class_def, Resolver& r, int depth, TSNode instantiation = {}) {
  const Grammar& g = Grammar::get();
  const std::string_view class_text = r.text(class_def);
  for (const char* converts : {".half(", ".to(", ".bfloat16(", ".double(", ".float(", ".type(", "dtype"})
    if (class_text.find(converts) != std::string_view::npos) return std::nullopt;
  const TSNode bases = field(class_def, g.f_superclasses);
  if (ts_node_is_null(bases)) return std::nullopt;
  // A torch module runs `forward`; a Keras model or layer subclass (keras.Model, tf.keras.Model,
  // keras.layers.Layer) runs `call`.
  const std::string_view base_text = r.text(bases);
  const bool torch = base_text.find("Module") != std::string_view::npos;
  const bool keras = !torch && (base_text.find("Model") != std::string_view::npos ||
                                base_text.find("Layer") != std::string_view::npos);
  if (!torch && !keras) return std::nullopt;
  TSNode forward{};
  for (const TSNode member : named_children(field(class_def, g.f_body))) {
    if (is(member, g.decorated_definition)) continue;
    if (is(member, g.function_definition) && r.text(field(member, g.f_name)) == (torch ? "forward" : "call"))
      forward = member;
  }
  if (ts_node_is_null(forward)) return std::nullopt;
  return first_layer_in(class_def, forward, r, depth, torch ? "torch" : "keras", instantiation);
}

// A function whose one return gives a new model (`def ResNet10(): return ResNet(BasicBlock, [1, 1,
// 1, 1])`, under a `with` or a `try` too, or through a closure's return): what that construction
// is, read in the function. The instance is made at the return, so nothing before it converts it.
std::optional<Consumer> model_factory_product(TSNode definition, TSNode callee, Resolver& r, int depth) {
  const Grammar& g = Grammar::get();
  const auto [returns, yields] = own_returns(definition, r);
  if (returns.size() != 1 || yields || ts_node_named_child_count(returns.front()) != 1) return std::nullopt;
  const TSNode returned = strip(ts_node_named_child(returns.front(), 0));
  const Scope* function = r.scope_of(definition);
  if (!is(returned, g.call) || function == nullptr) return std::nullopt;
  Resolver::ScopeVisit in_function(r, function);
  auto product = construction(returned, r, depth + 1);
  if (!product) return std::nullopt;
  product->steps.push_back({r.locate(returned), std::string(r.text(callee)) + "() returns " + product->text});
  return product;
}

std::optional<Consumer> construction(TSNode value, Resolver& r, int depth) {
  const Grammar& g = Grammar::get();
  value = strip(value);
  if (!is(value, g.call) || depth > 4) return std::nullopt;
  const std::string name = qualified(field(value, g.f_function), r);
  const CallArgs args = args_of(value, r);
  Consumer c;
  c.built = value;
  c.text = short_text(r.text(value));
  if (const ApiEntry* api = r.table().find(name); layer_entry(api)) {
    c.api = name;
    c.framework = api->framework;
  } else if (name == "torch.nn.Sequential") {
    if (args.positional.empty() || args.first_star == 0) return std::nullopt;
    auto first = construction(args.positional.front(), r, depth + 1);
    if (!first) return std::nullopt;
    c.api = name;
    c.framework = "torch";
  } else if (image_model(name)) {
    c.api = name;
    c.framework = "torch";
  } else if (const TSNode callee = field(value, g.f_function); is(callee, g.identifier) && depth <= 3) {
    const auto [scope, binding] = r.lookup(r.text(callee));
    if (binding == nullptr || scope == nullptr || scope->kind == Scope::Kind::Class) return std::nullopt;
    // A factory a function defines (a closure) or a module-level name bound to a method of a new
    // instance (`make = Builder().make`): what its return builds.
    if (binding->only_definition() && scope->kind != Scope::Kind::Module && is(binding->definition, g.function_definition))
      return model_factory_product(binding->definition, callee, r, depth);
    if (binding->simple() && scope->kind == Scope::Kind::Module)
      if (const TSNode method = r.bound_method_definition(binding->value); is(method, g.function_definition))
        return model_factory_product(method, callee, r, depth);
    if (!binding->only_definition() || scope->kind != Scope::Kind::Module) return std::nullopt;
    if (is(binding->definition, g.function_definition)) {
      // A module-level function returning a stack (`net = vgg(CONV_ARCH)`): its first layer.
      const auto layers = stack_layers(value, r);
      if (!layers || layers->size() < 2) return model_factory_product(binding->definition, callee, r, depth);
      std::optional<Resolver::ScopeVisit> in_builder;
      if (layers->front().scope != nullptr && layers->front().scope != r.scope())
        in_builder.emplace(r, layers->front().scope);
      auto first = construction(layers->front().construction, r, depth + 1);
      if (!first || first->framework != "torch") return std::nullopt;
      c.api = name;
      c.framework = "torch";
      c.steps.push_back({r.locate(first->built), "the stack " + std::string(r.text(callee)) +
                                                     "() returns starts with " + first->text});
    } else if (!is(binding->definition, g.class_definition)) {
      return std::nullopt;
    } else {
    auto layer = project_model(binding->definition, r, depth, value);
    if (!layer) return std::nullopt;
    // A Keras model's consumer is its first layer's API (the Keras rules judge by it); a torch
    // model's is the class (its weights are float32 unless converted).
    c.api = layer->framework == "torch" ? name : layer->api;
    c.framework = layer->framework;
    c.steps.push_back({r.locate(layer->built), "the model's input goes first through " + layer->text});
    }
  } else {
    return std::nullopt;
  }
  const TSNode dtype_kw = keyword(args, "dtype");
  if (!ts_node_is_null(dtype_kw)) {
    c.weights = dtype_named(dtype_kw, r);
    c.weights_spelling = std::string(r.text(strip(dtype_kw)));
    c.weights_at = r.locate(dtype_kw);
  } else if (c.framework == "torch") {
    c.weights = DType::Float32;
    c.weights_spelling = "float32";
    c.weights_at = r.locate(value);
  }
  return c;
}

// Conversions of a module `name` anywhere in `scope_node`: `.half()`, `.to(torch.float16)`, ... or
// the module handed to other code, which may convert it. The single unconditional conversion
// statement before `use` (`model.half()` on its own line in the same block or an enclosing one)
// sets the weights' type; anything else leaves it unknown.
void apply_conversions(Consumer& c, std::string_view name, TSNode scope_node, TSNode use, Resolver& r) {
  const Grammar& g = Grammar::get();
  int conversions = 0;
  bool unknown = false;
  TSNode converting{};
  walk_tree(
      scope_node,
      [&](TSNode node, const TSTreeCursor*) {
        if (unknown) return false;
        if (is(node, g.call)) {
          const TSNode callee = field(node, g.f_function);
          if (is(callee, g.attribute) && r.text(field(callee, g.f_object)) == name) {
            const std::string method(r.text(field(callee, g.f_attribute)));
            const CallArgs args = args_of(node, r);
            if (conversion_method(method) != DType::Unknown || method == "type" || method == "apply" ||
                method == "to_empty") {
              ++conversions;
              converting = node;
            } else if (method == "to") {
              if (!(args.positional.size() == 1 && names_device(args.positional.front(), r) &&
                    ts_node_is_null(keyword(args, "dtype")))) {
                ++conversions;
                converting = node;
              }
            }
          }
          // Handed to other code (amp.initialize(model), convert(model)): it may convert it.
          const CallArgs args = args_of(node, r);
          for (const TSNode arg : args.positional)
            if (is(strip(arg), g.identifier) && r.text(strip(arg)) == name) unknown = true;
          for (const auto& [key, value] : args.keywords)
            if (is(strip(value), g.identifier) && r.text(strip(value)) == name) unknown = true;
        }
        return true;
      },
      [](TSNode) {});
  if (unknown || conversions > 1) {
    c.weights = DType::Unknown;
    return;
  }
  if (conversions == 0) return;
  // One conversion: it decides only when it runs, unconditionally, before the use. `net =
  // net.half()` converts the model the name holds as `net.half()` does.
  TSNode statement = ts_node_parent(converting);
  if (is(statement, g.assignment) && is(field(statement, g.f_left), g.identifier) &&
      r.text(field(statement, g.f_left)) == name && ts_node_eq(field(statement, g.f_right), converting))
    statement = ts_node_parent(statement);
  const bool alone = is(statement, g.expression_statement) && ts_node_start_byte(converting) < ts_node_start_byte(use);
  bool encloses = false;
  if (alone) {
    const TSNode block = ts_node_parent(statement);
    for (TSNode at = use; !ts_node_is_null(at); at = ts_node_parent(at))
      if (ts_node_eq(at, block)) encloses = true;
  }
  const DType d = model_conversion(converting, r);
  if (!encloses || d == DType::Unknown || !is_floating(d)) {
    c.weights = DType::Unknown;
    return;
  }
  c.weights = d;
  c.weights_spelling = std::string(dtype_name(d));
  c.weights_at = r.locate(converting);
}

// The consumer a call `callee(x)` runs x through, with its weights' type.
// Whether the code around `use` converts the stack `name` holds or hands it to another call (which
// may): then its weights' type is not plain.
bool model_converted_or_handed(TSNode name, TSNode use, Resolver& r) {
  Consumer probe;
  probe.weights = DType::Float32;
  const auto [scope, binding] = r.lookup(r.text(name));
  if (scope == nullptr) return true;
  apply_conversions(probe, r.text(name), scope->node, use, r);
  return probe.weights != DType::Float32;
}

// The model a parameter names, when every call of its function in the module hands over the same
// kind of model (`test_step(model, images)` with `model = ResNet()`), read at each call.
std::optional<Consumer> consumer_of(TSNode callee, TSNode use, Resolver& r);

// Whether a call site's argument is a parameter, passed on as it is, of a module function that no
// call in the module reaches (a wrapper for other modules or an entry point).
bool forwards_an_uncalled_parameter(const CallSite& site, Resolver& r) {
  const auto [scope, binding] = r.lookup(r.text(strip(site.argument)));
  if (scope == nullptr || binding == nullptr || !binding->only_parameter() || scope->kind != Scope::Kind::Function)
    return false;
  return r.evaluator().folder().named_only_at_definition(*scope);
}

std::optional<Consumer> consumer_from_calls(const Scope& function, const Parameter& parameter, Resolver& r) {
  // Calls of calls, three deep (a recursive function hands its own parameter on).
  thread_local int depth = 0;
  if (depth >= 3) return std::nullopt;
  struct Deeper {
    Deeper() { ++depth; }
    ~Deeper() { --depth; }
    Deeper(const Deeper&) = delete;
    Deeper& operator=(const Deeper&) = delete;
  } deeper;
  const auto sites = r.evaluator().folder().call_sites(function, parameter);
  if (!sites) return std::nullopt;
  std::optional<Consumer> agreed;
  for (const CallSite& site : *sites) {
    if (site.is_default || !is(strip(site.argument), Grammar::get().identifier)) return std::nullopt;
    std::optional<Consumer> c;
    {
      Resolver::ScopeVisit at(r, site.scope);
      c = consumer_of(site.argument, site.call, r);
      // `def wrap(net, obs): return act(net, obs)` that nothing in the module calls hands on what
      // its callers elsewhere pass, which is unknown here: as for the tensor (from_calls), that call
      // does not undo what another call makes plain, and the finding names the call it reads.
      if (!c && forwards_an_uncalled_parameter(site, r)) continue;
    }
    if (!c || (agreed && (c->api != agreed->api || c->weights != agreed->weights))) return std::nullopt;
    c->steps.push_back({r.locate(site.call), site.says(parameter.name, r.source())});
    if (!agreed) agreed = std::move(c);
  }
  return agreed;
}

std::optional<Consumer> consumer_of(TSNode callee, TSNode use, Resolver& r) {
  const Grammar& g = Grammar::get();
  callee = strip(callee);
  if (is(callee, g.call)) return construction(callee, r);
  if (!is(callee, g.identifier)) return std::nullopt;
  // Cheap first: a name nothing binds (`len`, `print`) or only a def or class binds builds nothing
  // here, and no loop binds it either.
  const auto [scope, binding] = r.lookup(r.text(callee));
  if (binding == nullptr || binding->only_definition()) return std::nullopt;
  // `for layer in net: X = layer(X)`: the stack's first layer takes the tensor first. A name its
  // scope binds once, by an assignment or as a parameter, is no loop's target (and the walk up to
  // the loop asks tree-sitter for each parent, from the root down).
  const bool may_be_a_loop_target = !binding->simple() && !binding->only_parameter();
  if (const TSNode loop = may_be_a_loop_target ? loop_over(callee, r) : TSNode{}; !ts_node_is_null(loop)) {
    const TSNode stack = strip(field(loop, g.f_right));
    const TSNode built = is(stack, g.identifier) ? strip(definition_of(stack, r)) : stack;
    if (!is(built, g.call) || (is(stack, g.identifier) && model_converted_or_handed(stack, use, r))) return std::nullopt;
    const auto layers = stack_layers(built, r);
    if (!layers || layers->size() < 2) return std::nullopt;
    std::optional<Resolver::ScopeVisit> in_builder;
    if (layers->front().scope != nullptr && layers->front().scope != r.scope()) in_builder.emplace(r, layers->front().scope);
    auto first = construction(layers->front().construction, r, 1);
    if (!first || first->framework != "torch") return std::nullopt;
    first->steps.push_back({r.locate(loop), "`" + std::string(r.text(callee)) + "` runs the stack's layers in order"});
    return first;
  }
  // Cheap first: a name bound by a def, a class or an import builds nothing here; a parameter is the
  // model every call of its function hands over.
  if (const auto [scope, binding] = r.lookup(r.text(callee));
      binding == nullptr || binding->only_definition() || binding->only_parameter() ||
      (binding->count == 1 && ts_node_is_null(binding->value))) {
    if (binding == nullptr || !binding->only_parameter() || scope->kind != Scope::Kind::Function) return std::nullopt;
    return consumer_from_calls(*scope, scope->parameters[static_cast<std::size_t>(binding->parameter)], r);
  }
  TSNode value = strip(definition_of(callee, r));
  if (ts_node_is_null(value)) return std::nullopt;
  // `model = resnet18().to(device).half()`: the outermost conversion decides.
  DType converted = DType::Unknown;
  TSNode converted_at{};
  bool unknown = false;
  while (is(value, g.call) && is(field(value, g.f_function), g.attribute)) {
    const std::string method = method_of(value, r);
    const CallArgs args = args_of(value, r);
    if (one_of(method, {"cuda", "cpu", "eval", "train", "requires_grad_"})) {
      // device and mode: the weights keep their type
    } else if (method == "to") {
      const DType d = dtype_named(positional_or_keyword(args, 0, "dtype"), r);
      const DType k = dtype_named(keyword(args, "dtype"), r);
      if (d != DType::Unknown || k != DType::Unknown) {
        if (converted == DType::Unknown && ts_node_is_null(converted_at)) {
          converted = d != DType::Unknown ? d : k;
          converted_at = value;
        }
      } else if (!(args.positional.size() == 1 && names_device(args.positional.front(), r))) {
        unknown = true;
      }
    } else if (const DType d = conversion_method(method); d != DType::Unknown) {
      if (ts_node_is_null(converted_at)) {
        converted = d;
        converted_at = value;
      }
    } else {
      break;
    }
    value = strip(receiver_of(value));
  }
  auto c = construction(value, r);
  if (!c) return std::nullopt;
  c->steps.push_back(defined_here(callee, strip(definition_of(callee, r)), r));
  if (unknown) c->weights = DType::Unknown;
  if (!ts_node_is_null(converted_at) && !unknown) {
    c->weights = is_floating(converted) ? converted : DType::Unknown;
    c->weights_spelling = std::string(dtype_name(converted));
    c->weights_at = r.locate(converted_at);
  }
  if (scope != nullptr && c->weights != DType::Unknown) apply_conversions(*c, r.text(callee), scope->node, use, r);
  return c;
}

// The leading spaces and tabs of the line starting at `line`.
std::string_view indent_of(std::string_view text, std::size_t line) {
  const std::size_t end = text.find_first_not_of(" \t", line);
  return text.substr(line, (end == std::string_view::npos ? text.size() : end) - line);
}

// The start of the nearest code line above `line` indented less than it (its block's header);
// npos when there is none.
std::size_t header_above(std::string_view text, std::size_t line, std::size_t indent) {
  std::size_t at = line;
  while (at > 0) {
    const std::size_t newline = at >= 2 ? text.rfind('\n', at - 2) : std::string_view::npos;
    const std::size_t start = newline == std::string_view::npos ? 0 : newline + 1;
    at = start;
    const std::string_view own = indent_of(text, start);
    const std::size_t code = start + own.size();
    const bool blank = code >= text.size() || text[code] == '\n' || text[code] == '\r' || text[code] == '#';
    if (!blank && own.size() < indent) return start;
    if (start == 0) break;
  }
  return std::string_view::npos;
}

// The name of the class at column 0 whose body holds the def line at `def_line` (indented one
// level), or empty.
std::string_view class_holding(std::string_view text, std::size_t def_line) {
  const std::string_view indent = indent_of(text, def_line);
  if (indent != "    " && indent != "\t") return {};
  const std::size_t start = header_above(text, def_line, indent.size());
  if (start == std::string_view::npos || !indent_of(text, start).empty()) return {};
  std::string_view header = text.substr(start);
  header = header.substr(0, header.find('\n'));
  if (!header.starts_with("class ")) return {};
  header.remove_prefix(6);
  const std::string_view name = header.substr(0, header.find_first_of(" (:"));
  return is_identifier(name) ? name : std::string_view{};
}

// Whether the attribute call of a method at `dot` (the '.' before its name) is made on an instance
// of `owner`: `Owner(...).name(` or `v.name(` where some line binds `v = Owner(...)`.
bool called_on_instance(std::string_view text, std::size_t dot, std::string_view owner) {
  if (owner.empty() || dot == 0) return false;
  std::size_t end = dot;
  if (text[end - 1] == ')') {  // Owner(...): the parenthesis that opens the call, on the same line
    int open = 0;
    std::size_t at = end;
    while (at > 0) {
      const char c = text[--at];
      if (c == '\n') return false;
      if (c == ')') ++open;
      if (c == '(' && --open == 0) break;
    }
    if (open != 0 || at < owner.size() || text.substr(at - owner.size(), owner.size()) != owner) return false;
    return at == owner.size() || !is_identifier_char(text[at - owner.size() - 1]);
  }
  std::size_t begin = end;
  while (begin > 0 && is_identifier_char(text[begin - 1])) --begin;
  const std::string_view variable = text.substr(begin, end - begin);
  if (variable.empty() || (begin > 0 && text[begin - 1] == '.')) return false;
  std::string binding(variable);
  binding.append(" = ").append(owner).append("(");
  for (std::size_t at = text.find(binding); at != std::string_view::npos; at = text.find(binding, at + 1))
    if (at == 0 || text[at - 1] == ' ' || text[at - 1] == '\t' || text[at - 1] == '\n') return true;
  return false;
}

// Whether the text at `at` in `line` sits in a comment (`# tf.keras.backend.set_floatx(...)`, a
// line left switched off): a '#' before it on its line, outside a string.
bool commented_out(std::string_view line, std::size_t at) {
  char quote = 0;
  for (std::size_t k = 0; k < at && k < line.size(); ++k) {
    const char c = line[k];
    if (quote != 0) {
      if (c == '\\') ++k;
      else if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#') {
      return true;
    }
  }
  return false;
}

// `for NAME in range(N):` with N a positive integer literal.
bool runs_at_least_once(std::string_view header) {
  if (!header.starts_with("for ")) return false;
  const std::size_t in = header.find(" in range(");
  if (in == std::string_view::npos) return false;
  std::string_view rest = header.substr(in + std::string_view(" in range(").size());
  std::size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  if (digits == 0 || digits > 9 || rest.substr(0, digits).find_first_not_of('0') == std::string_view::npos) return false;
  rest.remove_prefix(digits);
  return rest.starts_with("):");
}

// Whether the line at `line` runs when the module runs: module code at column 0 (or under `if
// __name__ == "__main__":`), or a statement of a function's own body (one level in, not under an
// `if` or a loop of it) whose function a line that runs calls by name, nested functions included:
// `def main():` / `    set_global_policy("mixed_float16")` ... `main()`; a method of a module
// class, called on an instance of it (`Runner().main()`).
bool runs_when_module_runs(std::string_view text, std::size_t line, int depth = 0) {
  if (depth > 4) return false;
  const std::string_view indent = indent_of(text, line);
  if (indent.empty()) return true;
  const std::size_t start = header_above(text, line, indent.size());
  if (start == std::string_view::npos) return false;
  const std::string_view header_indent = indent_of(text, start);
  const std::string_view step = indent.substr(header_indent.size());
  if (step != "    " && step != "\t") return false;
  std::string_view header = text.substr(start + header_indent.size());
  header = header.substr(0, header.find('\n'));
  if (header_indent.empty() && (header.starts_with("if __name__ == \"__main__\"") ||
                                header.starts_with("if __name__ == '__main__'")))
    return true;
  // A block that runs when its header does: `try:`, `finally:`, `with ...:`, and a loop over a
  // literal range of at least one step (`for _ in range(1):`).
  if (header.starts_with("try:") || header.starts_with("finally:") || header.starts_with("with ") ||
      runs_at_least_once(header))
    return runs_when_module_runs(text, start, depth + 1);
  if (header.starts_with("async ")) header.remove_prefix(6);
  if (!header.starts_with("def ")) return false;  // under a class, an if, any other loop
  header.remove_prefix(4);
  const std::string_view name = header.substr(0, header.find_first_of(" ("));
  if (name.empty() || !is_identifier(name)) return false;
  const std::string_view owner = class_holding(text, start);
  // A call of it: the name followed by '(' where it is not defined (nor, for a function, an
  // attribute), on a line that runs itself.
  for (std::size_t call = text.find(name); call != std::string_view::npos; call = text.find(name, call + 1)) {
    if (call > 0 && is_identifier_char(text[call - 1])) continue;
    if (call > 0 && text[call - 1] == '.' && !called_on_instance(text, call - 1, owner)) continue;
    if (!owner.empty() && (call == 0 || text[call - 1] != '.')) continue;
    const std::size_t after = call + name.size();
    if (after >= text.size() || text[after] != '(') continue;
    if (call >= 4 && text.substr(call - 4, 4) == "def ") continue;
    const std::size_t call_line = text.rfind('\n', call) == std::string_view::npos ? 0 : text.rfind('\n', call) + 1;
    if (call_line == line) continue;
    if (runs_when_module_runs(text, call_line, depth + 1)) return true;
  }
  return false;
}

// The first line calling `call` that runs when the module loads (at module level, or in a block or
// function that runs then; not commented out) and that `accept(line, offset of the call in it)`
// takes: its [begin, end) in the text. The Keras switches (a dtype policy, set_floatx) are read so.
template <class Accept>
std::optional<std::pair<std::size_t, std::size_t>> module_switch(std::string_view text, std::string_view call,
                                                                 Accept&& accept) {
  for (std::size_t at = text.find(call); at != std::string_view::npos; at = text.find(call, at + 1)) {
    const std::size_t line = text.rfind('\n', at) == std::string_view::npos ? 0 : text.rfind('\n', at) + 1;
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view statement = text.substr(line, end - line);
    if (commented_out(statement, at - line)) continue;
    if ((statement.front() == ' ' || statement.front() == '\t') && !runs_when_module_runs(text, line)) continue;
    if (accept(statement, at - line)) return std::pair{line, end};
  }
  return std::nullopt;
}

// Whether a division by the name `name` stands in `node` (nested definitions aside).
bool divides_by(TSNode node, std::string_view name, Resolver& r, int& budget) {
  const Grammar& g = Grammar::get();
  std::vector<TSNode> pending{node};
  while (!pending.empty() && budget-- > 0) {
    const TSNode at = pending.back();
    pending.pop_back();
    if (is(at, g.function_definition) || is(at, g.class_definition) || is(at, g.lambda)) continue;
    if (is(at, g.binary_operator) && r.text(field(at, g.f_operator)) == "/") {
      const TSNode divisor = strip(field(at, g.f_right));
      if (is(divisor, g.identifier) && r.text(divisor) == name) return true;
    }
    for (const TSNode child : named_children(at)) pending.push_back(child);
  }
  return false;
}

// Whether the statement binds `name` anew (`name = ...`, `name, x = ...`, `for name in ...`).
bool rebinds(TSNode statement, std::string_view name, Resolver& r) {
  const Grammar& g = Grammar::get();
  TSNode inner = is(statement, g.expression_statement) ? ts_node_named_child(statement, 0) : statement;
  if (is(inner, g.assignment)) {
    const TSNode target = field(inner, g.f_left);
    if (is(target, g.identifier)) return r.text(target) == name;
    for (const TSNode part : named_children(target))
      if (is(part, g.identifier) && r.text(part) == name) return true;
    return false;
  }
  // A compound statement may bind it anywhere inside: read no further.
  return !is(statement, g.expression_statement) && !is(statement, g.return_statement);
}

// `d += eps` (or `d = d + eps`, the sum as the whole value) whose `d` a later statement of the same
// block divides by before binding `d` again.
bool stored_sum_divides_later(TSNode op, Resolver& r) {
  const Grammar& g = Grammar::get();
  TSNode target{};
  TSNode statement{};
  if (is(op, g.augmented_assignment)) {
    target = field(op, g.f_left);
    statement = ts_node_parent(op);
  } else {
    TSNode whole = op;
    while (is(ts_node_parent(whole), g.parenthesized_expression)) whole = ts_node_parent(whole);
    const TSNode assignment = ts_node_parent(whole);
    if (!is(assignment, g.assignment) || !ts_node_eq(field(assignment, g.f_right), whole)) return false;
    target = field(assignment, g.f_left);
    statement = ts_node_parent(assignment);
  }
  if (!is(target, g.identifier) || !is(statement, g.expression_statement)) return false;
  const std::string_view name = r.text(target);
  int budget = 4096;
  for (TSNode next = ts_node_next_named_sibling(statement); !ts_node_is_null(next) && budget > 0;
       next = ts_node_next_named_sibling(next)) {
    if (is(next, g.comment)) continue;
    if (divides_by(next, name, r, budget)) return true;
    if (rebinds(next, name, r)) return false;
  }
  return false;
}

}  // namespace

const TensorDtypeExtractor::FileFlags& TensorDtypeExtractor::flags(Resolver& r) {
  if (flags_) return *flags_;
  FileFlags f;
  const std::string_view text = r.source();
  // memmem (may_contain_any) rather than string_view::find, whose memchr on a common first letter
  // stalls: this runs once for every file the family reads.
  f.default_dtype_changed = may_contain_any(text, {"set_default_dtype", "set_default_tensor_type"});
  f.autocast_switched = may_contain_any(text, {"set_autocast_enabled", "amp.initialize"});
  // `keras.mixed_precision.set_global_policy("mixed_float16")` at the start of a line at module level.
  const NodeLocator& locator = r.locator();
  if (may_contain_any(text, {"mixed_float16"}))
    for (const std::string_view setter : {std::string_view("set_global_policy("), std::string_view("set_policy(")}) {
      const auto policy = module_switch(text, setter, [](std::string_view statement, std::size_t) {
        return statement.find("mixed_float16") != std::string_view::npos;
      });
      if (!policy) continue;
      f.keras_half_policy = Location{locator.file.path(), locator.file.range(policy->first + locator.base, policy->second + locator.base)};
      f.keras_policy_text = short_text(text.substr(policy->first, policy->second - policy->first));
      f.blanked_source = blank_strings_and_comments(text);
      break;
    }
  // `keras.config.set_floatx("float16")` (keras.backend's, tf.keras.backend's) at the start of a line
  // at module level.
  constexpr std::string_view kFloatx = "set_floatx(";
  if (may_contain_any(text, {std::string(kFloatx)}))
    if (const auto floatx = module_switch(text, kFloatx, [&](std::string_view statement, std::size_t at) {
          const std::string_view argument = statement.substr(at + kFloatx.size());
          return argument.starts_with("\"float16\"") || argument.starts_with("'float16'");
        }))
      f.keras_float16_weights =
          Location{locator.file.path(), locator.file.range(floatx->first + locator.base, floatx->second + locator.base)};
  flags_ = f;
  return *flags_;
}

bool TensorDtypeExtractor::handles(const ApiEntry& api) const {
  return api.family == kOptimizerFamily ||
         (!api.is_class && (api.family == kConvolutionFamily || api.family == kNormalizationFamily));
}

namespace {

void emit_input(const Consumer& consumer, const std::string& consumer_spelled, TSNode argument, TSNode use_site,
                Resolver& r, bool skip_floating) {
  const Grammar& g = Grammar::get();
  const std::optional<Location> no_policy;
  TypeReader reader(r, no_policy, false);
  Typed t = reader.of(argument);
  if (t.dtype == DType::Unknown) return;
  ++r.out().tracked.dtype_flows;
  const bool floating = is_floating(t.dtype);
  if (floating) {
    // Half into float32 weights (or the reverse): only outside autocast, with both types plain.
    if (skip_floating || consumer.weights == DType::Unknown || !is_floating(consumer.weights) ||
        consumer.weights == t.dtype || consumer.framework != "torch" || autocast_around(use_site, r))
      return;
    // Every pair of floating types: float64 into float32 weights is PyTorch's most reported dtype
    // error ("Input type (double) and bias type (float) should be the same", measured with torch
    // 2.11.0 on the CPU: tests/probes/results/torch_dtype.*).
  } else if (!is_integer(t.dtype)) {
    return;
  }
  TensorInputFact fact;
  fact.consumer = consumer.api;
  fact.consumer_text = consumer_spelled;
  fact.use = r.locate(argument);
  if (is(strip(argument), g.identifier)) fact.variable = std::string(r.text(strip(argument)));
  fact.dtype = t.dtype;
  fact.dtype_spelling = t.spelling;
  fact.dtype_location = t.where;
  fact.steps = t.steps;
  fact.conversion_at = t.conversion_at;
  fact.conversion_from = t.conversion_from;
  fact.conversion_to = t.conversion_to;
  fact.framework = consumer.framework;
  fact.tensor_text = short_text(r.text(argument));
  if (consumer.weights != DType::Unknown) {
    fact.weight_dtype = consumer.weights;
    fact.weight_dtype_spelling = consumer.weights_spelling;
    fact.weight_dtype_location = consumer.weights_at;
  }
  for (const auto& step : consumer.steps) fact.steps.push_back(step);
  r.out().tensor_inputs.push_back(std::move(fact));
}

}  // namespace

// A Keras optimizer in a module whose weights set_floatx makes float16 (and no mixed_float16
// policy, which keeps them float32): its epsilon meets float16.
void TensorDtypeExtractor::keras_optimizer(const ApiUse& use, Resolver& r) {
  const FileFlags& f = flags(r);
  // Where it is built does not matter: its slots take the type of the weights it is applied to.
  if (!f.keras_float16_weights || f.keras_half_policy) return;
  const ApiArg* eps = use.api.arg("eps");
  if (eps == nullptr) return;
  const ArgBinding e = bind_arg(*eps, use.args, use.shift);
  // Keras's default epsilon (1e-7) stays non-zero in float16: only a written one can vanish.
  if (e.source != ArgBinding::Source::Explicit) return;
  const auto folded = r.fold(e.value);
  if (!folded) return;
  LowPrecisionConstantFact fact;
  fact.use = LowPrecisionConstantFact::Use::OptimizerEps;
  fact.value = *folded;
  fact.where = r.locate(e.value);
  fact.dtype = DType::Float16;
  fact.expression = short_text(r.text(use.site));
  fact.expression_location = r.locate(use.site);
  fact.reduced_by = "set_floatx(\"float16\")";
  fact.reduced_at = f.keras_float16_weights;
  fact.api = use.qualified;
  fact.framework = "keras";
  r.out().low_precision_constants.push_back(std::move(fact));
}

void TensorDtypeExtractor::on_use(const ApiUse& use, Resolver& r) {
  const Grammar& g = Grammar::get();
  if (use.origin != "call") return;
  if (use.api.family == kOptimizerFamily && use.api.framework == "keras") return keras_optimizer(use, r);
  if (use.api.family == kOptimizerFamily) {
    const ApiArg* params = use.api.arg("params");
    const ApiArg* eps = use.api.arg("eps");
    if (params == nullptr || eps == nullptr) return;
    const ArgBinding p = bind_arg(*params, use.args, use.shift);
    if (p.source != ArgBinding::Source::Explicit) return;
    // `model.half().parameters()` or `model.parameters()` with `model` converted to float16.
    TSNode value = strip(p.value);
    if (!is(value, g.call) || method_of(value, r) != "parameters") return;
    TSNode model = strip(receiver_of(value));
    DType dtype = DType::Unknown;
    std::string reduced_by;
    std::optional<Location> reduced_at;
    std::vector<ProvenanceStep> operand_steps;
    if (is(model, g.call) && model_conversion(model, r) != DType::Unknown) {
      dtype = model_conversion(model, r);
      reduced_by = short_text(r.text(model));
      reduced_at = r.locate(model);
    } else if (is(model, g.identifier)) {
      auto c = consumer_of(model, use.site, r);
      if (!c) {
        // Any model the code converts: `model = Net().half()`, or `model.half()` before.
        Consumer any;
        any.weights = DType::Float32;
        const TSNode def = strip(definition_of(model, r));
        if (is(def, g.call) && model_conversion(def, r) != DType::Unknown) {
          any.weights = model_conversion(def, r);
          any.weights_at = r.locate(def);
        }
        const auto [scope, binding] = r.lookup(r.text(model));
        if (scope == nullptr) return;
        if (ts_node_is_null(def)) {
          // A parameter (`def make_optimizer(model): return Adam(model.parameters())`): the model
          // every call of the function passes.
          auto passed = half_model_at_calls(model, r);
          if (!passed) return;
          operand_steps.push_back(std::move(passed->second));
          any.weights = DType::Float16;
          any.weights_at = std::move(passed->first);
        } else {
          apply_conversions(any, r.text(model), scope->node, use.site, r);
        }
        c = any;
      }
      if (c->weights == DType::Float16 && c->weights_at) {
        dtype = c->weights;
        reduced_at = c->weights_at;
        reduced_by = "converted to float16 here";
      } else if ((c->weights == DType::Float32 || c->weights == DType::Unknown) && !c->weights_at) {
        // `model = Net()` where Net's __init__ holds a float16 layer (`self.fc = nn.Linear(...).half()`)
        // and nothing converts the model as a whole.
        const TSNode def = strip(definition_of(model, r));
        const TSNode layer = is(def, g.call) ? half_submodule(field(def, g.f_function), r) : TSNode{};
        if (!ts_node_is_null(layer) && !model_converted_or_handed(model, use.site, r)) {
          dtype = DType::Float16;
          reduced_at = r.locate(layer);
          reduced_by = "a float16 layer of " + std::string(r.text(field(def, g.f_function)));
        }
      }
    }
    if (dtype != DType::Float16) return;
    if (flags(r).autocast_switched) return;
    // Adam and AdamW with fused=True stayed finite on float16 parameters with a zero gradient
    // (torch 2.11.0, CPU): the fused kernels compute in float32.
    for (const auto& [key, value] : use.args.keywords)
      if (key == "fused" && r.text(strip(value)) != "False" && r.text(strip(value)) != "None") return;
    LowPrecisionConstantFact fact;
    fact.use = LowPrecisionConstantFact::Use::OptimizerEps;
    const ArgBinding e = bind_arg(*eps, use.args, use.shift);
    if (e.source == ArgBinding::Source::Unresolvable) return;
    if (e.source == ArgBinding::Source::Explicit) {
      const auto folded = r.fold(e.value);
      if (!folded) return;
      fact.value = *folded;
      fact.where = r.locate(e.value);
    } else {
      if (!eps->default_number) return;
      fact.value = ConstantValue{*eps->default_number, "", {}};
      fact.value_is_default = true;
      fact.where = r.locate(use.site);
    }
    fact.dtype = dtype;
    fact.expression = short_text(r.text(use.site));
    fact.expression_location = r.locate(use.site);
    fact.reduced_by = reduced_by;
    fact.reduced_at = reduced_at;
    fact.operand_steps = std::move(operand_steps);
    fact.api = use.qualified;
    fact.framework = "torch";
    r.out().low_precision_constants.push_back(std::move(fact));
    return;
  }
  // F.conv2d(x, w), F.batch_norm(x, ...), tf.nn.conv2d(x, f): the input is the first argument.
  if (use.args.positional.empty() || use.args.first_star == 0) return;
  Consumer c;
  c.api = use.qualified;
  c.framework = use.api.framework;
  c.text = short_text(r.text(use.site));
  emit_input(c, use.spelled, use.args.positional.front(), use.site, r, /*skip_floating=*/true);
}

void TensorDtypeExtractor::on_other_call(TSNode call, Resolver& r) {
  const Grammar& g = Grammar::get();
  const TSNode callee = field(call, g.f_function);
  if (!is(strip(callee), g.call) && !is(callee, g.identifier)) return;
  // The consumer first: most calls named by a plain identifier (`len(x)`) are not one, and their
  // arguments need not be collected.
  auto c = consumer_of(callee, call, r);
  if (!c) return;
  const CallArgs args = args_of(call, r);
  if (args.positional.empty() || args.first_star == 0) return;
  if (flags(r).default_dtype_changed || flags(r).autocast_switched) c->weights = DType::Unknown;
  emit_input(*c, short_text(r.text(callee)), args.positional.front(), call, r, false);
}

void TensorDtypeExtractor::on_binary_operator(TSNode op, Resolver& r) {
  const Grammar& g = Grammar::get();
  std::string_view symbol = r.text(field(op, g.f_operator));
  if (is(op, g.augmented_assignment)) {  // `d += eps`: d + eps, stored back into d
    if (symbol.size() != 2 || symbol.back() != '=') return;
    symbol.remove_suffix(1);
  }
  if (symbol != "+" && symbol != "-" && symbol != "/") return;
  const TSNode left = field(op, g.f_left), right = field(op, g.f_right);
  // The constant: a number below float16's smallest normal, written or named.
  auto small = [&](TSNode node) -> std::optional<ConstantValue> {
    node = strip(node);
    if (!(is(node, g.float_) || is(node, g.identifier) || is(node, g.attribute) ||
          is(node, g.subscript))) return std::nullopt;
    auto folded = r.fold(node);
    if (!folded || !(folded->value > 0.0) || folded->value >= smallest_normal(DType::Float16)) return std::nullopt;
    return folded;
  };
  TSNode constant{}, other{};
  std::optional<ConstantValue> value;
  if (symbol != "/" && (value = small(right))) {
    constant = right;
    other = left;
  } else if (symbol == "+" && (value = small(left))) {
    constant = left;
    other = right;
  } else if (symbol == "/" && (value = small(right))) {
    constant = right;
    other = left;
  }
  if (!value) return;
  const FileFlags& f = flags(r);
  TypeReader reader(r, f.keras_half_policy, f.default_dtype_changed, &f.blanked_source);
  const Typed t = reader.of(other);
  if (t.dtype != DType::Float16) return;
  // Whether the constant keeps a denominator from 0: `a / eps`, `a / (b + eps)`, `rsqrt(v + eps)`,
  // `sqrt(v + eps)` under a division.
  bool divisor = symbol == "/";
  if (!divisor) {
    TSNode at = op;
    for (int up = 0; up < 4 && !divisor; ++up) {
      TSNode parent = ts_node_parent(at);
      if (ts_node_is_null(parent)) break;
      if (is(parent, g.binary_operator) && r.text(field(parent, g.f_operator)) == "/" &&
          ts_node_eq(field(parent, g.f_right), at))
        divisor = true;
      else if (is(parent, g.call) && (method_of(parent, r) == "rsqrt" ||
                                      qualified(field(parent, g.f_function), r).find("rsqrt") != std::string::npos))
        divisor = true;
      else if (!is(parent, g.parenthesized_expression) && !is(parent, g.argument_list) && !is(parent, g.call))
        break;
      at = parent;
    }
  }
  // `d += eps` or `d = d + eps`, then `a / d`: the sum is a denominator all the same.
  if (!divisor && symbol == "+") divisor = stored_sum_divides_later(op, r);
  LowPrecisionConstantFact fact;
  fact.use = divisor ? LowPrecisionConstantFact::Use::Divisor : LowPrecisionConstantFact::Use::Addend;
  fact.where = r.locate(constant);
  fact.value = *value;
  fact.dtype = t.dtype;
  // The message shows the division the epsilon guards, where there is one.
  TSNode shown = op;
  if (divisor)
    for (TSNode at = ts_node_parent(op); !ts_node_is_null(at); at = ts_node_parent(at)) {
      if (is(at, g.binary_operator) && r.text(field(at, g.f_operator)) == "/") {
        shown = at;
        break;
      }
      if (!is(at, g.parenthesized_expression) && !is(at, g.argument_list) && !is(at, g.call)) break;
    }
  fact.expression = short_text(r.text(shown));
  fact.expression_location = r.locate(shown);
  fact.reduced_by = t.spelling;
  fact.reduced_at = t.where;
  fact.framework = r.out().frameworks.empty() ? "" : r.out().frameworks.front();
  fact.operand_steps = t.steps;
  r.out().low_precision_constants.push_back(std::move(fact));
}

// The dtype family's words. Its facts need two things in one function (or in the module's own
// statements): a tensor whose element type the code sets (`randint`, `.long()`, `.half()`) and a
// layer or model that consumes it, or a float16 operand and a small epsilon, or a float16 model
// and an optimizer. Each half alone is common (`torch.long` is in most model files): a file is read
// only when it holds both halves somewhere, and the region planner parses only the definitions (or
// the module statements) holding both.
ExtractorRelevance TensorDtypeExtractor::relevance(const ApiTable& table) {
  ExtractorRelevance out;
  // The optimizers it reads are APIs of their own: a class deriving from one (`class CustomAdam(
  // torch.optim.Adam)`) forwards to it, and a call of that class is a call of the optimizer.
  out.words = table.trigger_words(std::vector<std::string>{std::string(kOptimizerFamily)});
  const std::vector<std::string> half_words{"half", "float16", "autocast"};
  std::vector<std::string> sources{"randint", "from_numpy", "PILToTensor", "pil_to_tensor", "read_image",
                                   "decode_image", "decode_jpeg", "decode_png", "imread", "long", "byte", "uint8",
                                   "int64", "int32", "int16", "int8", "bfloat16", "cast", "tensor", "as_tensor",
                                   "constant", "convert_to_tensor",
                                   // float64 and the legacy typed constructors (TypeReader::legacy_constructor)
                                   "double", "float64", "DoubleTensor", "FloatTensor", "HalfTensor", "BFloat16Tensor",
                                   "LongTensor", "IntTensor", "ShortTensor", "ByteTensor", "CharTensor", "BoolTensor",
                                   // numpy's float64 defaults (TypeReader::numpy_default) with names of their own
                                   "random_sample", "standard_normal", "linspace",
                                   // a Keras Input declared with an element type (`dtype="uint8"`)
                                   "Input"};
  sources.insert(sources.end(), half_words.begin(), half_words.end());
  std::vector<std::string> consumers = table.trigger_words(std::vector<std::string>{
      std::string(kConvolutionFamily), std::string(kNormalizationFamily)});
  consumers.emplace_back("Sequential");
  consumers.emplace_back("create_model");
  consumers.emplace_back("get_model");
  for (const std::string_view builder : kImageModelBuilders) consumers.emplace_back(builder);
  const std::vector<std::string> optimizers = table.trigger_words(std::vector<std::string>{std::string(kOptimizerFamily)});
  // In a method, the consumer must be built or called there (`nn.Conv2d(...)`, `conv(x)` through a
  // name bound to one: a model class's isinstance tests name every layer type), and not in __init__,
  // which builds layers and applies none.
  // A helper naming numpy may return an array of numpy's default float64 (`def load(): return
  // np.random.rand(8, 3)`) that a relevant chunk hands to torch.from_numpy.
  out.pairs.push_back({.first = sources, .second = consumers, .second_classes = true,
                               .second_called_in_methods = true, .init_counts = false,
                               .helper_words = {"np", "numpy"}});
  out.pairs.push_back({.first = half_words, .second = {std::string(kSmallFloatLiteral)}});
  // A trainer's __init__ may build a float16 model and its optimizer.
  out.pairs.push_back({.first = half_words, .second = optimizers, .second_called_in_methods = true});
  // An optimizer on a model class that holds a float16 layer (`self.fc = nn.Linear(...).half()`,
  // model = Net()): the class stands for the float16 half where its name is used.
  out.pairs.push_back({.first = optimizers, .second = half_words, .second_classes = true, .second_only_through_classes = true});
  // Keras `set_global_policy("mixed_float16")` at module level makes every layer's inputs float16:
  // the epsilons in a layer class's `call`.
  out.pairs.push_back(
      {.first = {"mixed_float16"}, .second = {std::string(kSmallFloatLiteral)}, .first_anywhere = true, .classes = true});
  // The policy is a string: the first pass's quoted words find `"mixed_float16"` on their own.
  out.quoted.emplace_back("mixed_float16");
  // Read from the whole text: the default-dtype and autocast switches, a mixed_float16 policy's
  // line, and which `import torch` lines bind torch.
  out.whole_text_words = {"set_default_dtype", "set_default_tensor_type", "set_autocast_enabled", "amp.initialize",
                          "import "};
  out.whole_text_lines = {"mixed_float16", "set_floatx("};
  out.whole_text_line_starts = {"import "};
  return out;
}

std::optional<FirstLayer> first_layer_of_model_class(TSNode class_definition, Resolver& r) {
  const auto consumer = project_model(class_definition, r, 0);
  if (!consumer) return std::nullopt;
  return FirstLayer{consumer->api, consumer->framework, consumer->built};
}

}  // namespace cudnnlint::python
