#include "python/extract/loader.h"

#include "python/regions.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cudnnlint::python {

namespace {

constexpr int kMaxDepth = 6;

std::string short_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out.push_back(c);
  }
  if (out.size() > 60) out = out.substr(0, 57) + "...";
  return out;
}

TSNode strip(TSNode node) {
  const Grammar& g = Grammar::get();
  while (is(node, g.parenthesized_expression) && ts_node_named_child_count(node) == 1)
    node = ts_node_named_child(node, 0);
  return node;
}

// `ds = ds.map(f)` then `ds = ds.batch(16)`: the value of the assignment to `identifier` in the
// statement just before the use's, in the same block, with nothing between that may rebind it.
TSNode previous_assignment(TSNode identifier, Resolver& r) {
  const Grammar& g = Grammar::get();
  const std::string_view name = r.text(identifier);
  TSNode statement = identifier;
  while (!ts_node_is_null(statement) && !ts_node_is_null(ts_node_parent(statement)) &&
         !is(ts_node_parent(statement), g.block) && !is(ts_node_parent(statement), g.module))
    statement = ts_node_parent(statement);
  if (ts_node_is_null(statement)) return {};
  for (TSNode before = ts_node_prev_named_sibling(statement); !ts_node_is_null(before);
       before = ts_node_prev_named_sibling(before)) {
    if (is(before, g.comment)) continue;
    const TSNode assignment = is(before, g.expression_statement) ? ts_node_named_child(before, 0) : TSNode{};
    if (is(assignment, g.assignment) && is(field(assignment, g.f_left), g.identifier) &&
        r.text(field(assignment, g.f_left)) == name)
      return field(assignment, g.f_right);
    // Anything else that may bind the name (a loop, a branch, a `with ... as`) ends the search.
    if (mentions_identifier(r.text(before), name)) return {};
  }
  return {};
}

// The right-hand side of the assignment that binds `identifier` where the walk stands: the
// scope's single one, else the one just before the use.
TSNode definition_of(TSNode identifier, Resolver& r) {
  if (!is(identifier, Grammar::get().identifier)) return {};
  const auto [scope, binding] = r.lookup(r.text(identifier));
  if (binding == nullptr) return {};
  if (binding->simple()) return binding->value;
  return previous_assignment(identifier, r);
}

ProvenanceStep defined_here(TSNode identifier, TSNode value, Resolver& r) {
  TSNode statement = ts_node_parent(value);
  if (ts_node_is_null(statement)) statement = value;
  return ProvenanceStep{r.locate(statement),
                        std::string(r.text(identifier)) + " = " + short_text(r.text(value)) + " is defined here"};
}

std::optional<IntegerValue> integer_of(TSNode node, Resolver& r) {
  const auto folded = r.fold(node);
  if (!folded || folded->value != std::floor(folded->value) || std::fabs(folded->value) > 9.0e15) return std::nullopt;
  return IntegerValue{static_cast<std::int64_t>(folded->value), std::string(r.text(node)), r.locate(node),
                      folded->provenance};
}

std::string qualified(TSNode callee, Resolver& r) { return r.qualified_name(callee).value_or(""); }

// `a // b`, `int(a / b)`, `math.floor(a / b)`: the dividend and the divisor.
struct Division {
  TSNode dividend, divisor, whole;
};

std::optional<Division> division_of(TSNode node, Resolver& r) {
  const Grammar& g = Grammar::get();
  node = strip(node);
  if (is(node, g.binary_operator) && r.text(field(node, g.f_operator)) == "//")
    return Division{field(node, g.f_left), field(node, g.f_right), node};
  if (!is(node, g.call)) return std::nullopt;
  const TSNode callee = field(node, g.f_function);
  if (!r.is_builtin(callee, "int") && qualified(callee, r) != "math.floor") return std::nullopt;
  const CallArgs args = collect_args(field(node, g.f_arguments), r.source());
  if (args.positional.size() != 1 || !args.keywords.empty()) return std::nullopt;
  const TSNode inner = strip(args.positional.front());
  if (is(inner, g.binary_operator) && r.text(field(inner, g.f_operator)) == "/")
    return Division{field(inner, g.f_left), field(inner, g.f_right), node};
  return std::nullopt;
}

// The dimensions a tensor factory is given: `(0, 28, 28, 3)`, `[n, 3]`, or `10, 3` as positionals.
std::vector<std::optional<IntegerValue>> dims_of(const CallArgs& args, Resolver& r) {
  const Grammar& g = Grammar::get();
  std::vector<std::optional<IntegerValue>> out;
  TSNode shape{};
  for (const auto& [name, value] : args.keywords)
    if (name == "shape" || name == "size") shape = value;
  if (ts_node_is_null(shape) && !args.positional.empty() && args.first_star != 0) shape = args.positional.front();
  if (ts_node_is_null(shape)) return out;
  shape = strip(shape);
  if (is(shape, g.tuple) || is(shape, g.list)) {
    const uint32_t n = ts_node_named_child_count(shape);
    for (uint32_t i = 0; i < n; ++i) out.push_back(integer_of(ts_node_named_child(shape, i), r));
    return out;
  }
  // `torch.randn(10, 3)`: every positional is a dimension.
  for (std::size_t i = 0; i < args.positional.size(); ++i) {
    if (args.first_star >= 0 && static_cast<int>(i) >= args.first_star) break;
    out.push_back(integer_of(args.positional[i], r));
  }
  return out;
}

bool one_of(const std::string& name, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return name == n; });
}

bool shape_factory(const std::string& name) {
  return one_of(name, {"torch.randn", "torch.rand", "torch.zeros", "torch.ones", "torch.empty", "numpy.zeros",
                       "numpy.ones", "numpy.empty", "numpy.random.rand", "numpy.random.randn", "numpy.random.random",
                       "tensorflow.zeros", "tensorflow.ones", "tensorflow.random.normal", "tensorflow.random.uniform"});
}

// The literal shape a tensor is built with, through names bound once, `tf.constant(...)` and
// `.astype(...)`; `text` gets the factory call as written.
std::vector<std::optional<IntegerValue>> literal_shape(TSNode node, Resolver& r, std::string& text, int depth = 0) {
  const Grammar& g = Grammar::get();
  node = strip(node);
  if (depth > kMaxDepth) return {};
  if (is(node, g.identifier)) {
    const TSNode value = definition_of(node, r);
    return ts_node_is_null(value) ? std::vector<std::optional<IntegerValue>>{} : literal_shape(value, r, text, depth + 1);
  }
  if (!is(node, g.call)) return {};
  const TSNode callee = field(node, g.f_function);
  const CallArgs args = collect_args(field(node, g.f_arguments), r.source());
  if (is(callee, g.attribute) && (r.text(field(callee, g.f_attribute)) == "astype" ||
                                  r.text(field(callee, g.f_attribute)) == "float"))
    return literal_shape(field(callee, g.f_object), r, text, depth + 1);
  const std::string name = qualified(callee, r);
  if (shape_factory(name)) {
    text = short_text(r.text(node));
    return dims_of(args, r);
  }
  if (one_of(name, {"tensorflow.constant", "tensorflow.convert_to_tensor", "numpy.asarray", "numpy.array",
                    "torch.as_tensor", "torch.from_numpy"}) &&
      !args.positional.empty())
    return literal_shape(args.positional.front(), r, text, depth + 1);
  return {};
}

// How many samples a dataset, a sampler or a tf.data pipeline holds, where the code makes it plain.
std::optional<IntegerValue> rows_of(TSNode node, Resolver& r, std::vector<ProvenanceStep>& steps, int depth = 0) {
  const Grammar& g = Grammar::get();
  node = strip(node);
  if (depth > kMaxDepth || ts_node_is_null(node)) return std::nullopt;
  if (is(node, g.identifier)) {
    const TSNode value = definition_of(node, r);
    if (ts_node_is_null(value)) return std::nullopt;
    auto rows = rows_of(value, r, steps, depth + 1);
    if (rows) steps.push_back(defined_here(node, value, r));
    return rows;
  }
  if (is(node, g.list) || is(node, g.tuple)) {
    const uint32_t n = ts_node_named_child_count(node);
    for (uint32_t i = 0; i < n; ++i)
      if (is(ts_node_named_child(node, i), g.list_splat)) return std::nullopt;
    return IntegerValue{n, std::string(r.text(node)), r.locate(node), {}};
  }
  if (!is(node, g.call)) return std::nullopt;
  const TSNode callee = field(node, g.f_function);
  const CallArgs args = collect_args(field(node, g.f_arguments), r.source());
  if (args.first_star >= 0 || args.has_double_star) return std::nullopt;
  auto range_size = [&]() -> std::optional<IntegerValue> {
    if (args.positional.size() == 1) {
      auto n = integer_of(args.positional[0], r);
      if (n && n->value < 0) n->value = 0;
      return n;
    }
    if (args.positional.size() == 2) {
      auto a = integer_of(args.positional[0], r), b = integer_of(args.positional[1], r);
      if (!a || !b) return std::nullopt;
      IntegerValue out = *b;
      out.value = std::max<std::int64_t>(0, b->value - a->value);
      out.spelling = std::string(r.text(node));
      out.where = r.locate(node);
      return out;
    }
    return std::nullopt;
  };
  if (r.is_builtin(callee, "range")) return range_size();
  if ((r.is_builtin(callee, "list") || r.is_builtin(callee, "tuple")) && args.positional.size() == 1)
    return rows_of(args.positional[0], r, steps, depth + 1);
  // tf.data pipelines: methods that keep the number of elements, and take(n).
  if (is(callee, g.attribute)) {
    const std::string method(r.text(field(callee, g.f_attribute)));
    const TSNode object = field(callee, g.f_object);
    if (one_of(method, {"map", "shuffle", "prefetch", "cache", "with_options"}) && qualified(callee, r).empty())
      return rows_of(object, r, steps, depth + 1);
    if (method == "take" && args.positional.size() == 1 && qualified(callee, r).empty()) {
      auto inner = rows_of(object, r, steps, depth + 1);
      auto n = integer_of(args.positional[0], r);
      if (!inner || !n || n->value < 0) return std::nullopt;
      return n->value < inner->value ? n : inner;
    }
  }
  const std::string name = qualified(callee, r);
  if (name == "tensorflow.data.Dataset.range") return range_size();
  if (one_of(name, {"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset",
                    "tensorflow.data.Dataset.from_tensor_slices"}) &&
      !args.positional.empty()) {
    TSNode first = strip(args.positional.front());
    if (is(first, g.tuple) || is(first, g.list)) {
      if (name != "tensorflow.data.Dataset.from_tensor_slices" || ts_node_named_child_count(first) == 0)
        return std::nullopt;
      first = ts_node_named_child(first, 0);  // (features, labels): the features' rows
    }
    std::string text;
    const auto shape = literal_shape(first, r, text);
    if (!shape.empty() && shape.front()) return shape.front();
    // torch.tensor([[...], [...]]) / np.array([...]): the outer list's length.
    if (is(strip(first), g.call)) {
      const TSNode inner_callee = field(strip(first), g.f_function);
      const CallArgs inner = collect_args(field(strip(first), g.f_arguments), r.source());
      const std::string inner_name = qualified(inner_callee, r);
      if (one_of(inner_name, {"torch.tensor", "numpy.array", "tensorflow.constant"}) && !inner.positional.empty() &&
          is(strip(inner.positional.front()), g.list))
        return rows_of(inner.positional.front(), r, steps, depth + 1);
      if (inner_name == "torch.arange") {
        std::vector<ProvenanceStep> unused;
        const CallArgs range_args = inner;
        if (range_args.positional.size() == 1) return integer_of(range_args.positional[0], r);
      }
    }
    return std::nullopt;
  }
  if (one_of(name, {"torch.utils.data.Subset", "torch.utils.data.dataset.Subset"})) {
    TSNode indices{};
    if (args.positional.size() >= 2) indices = args.positional[1];
    for (const auto& [kw, value] : args.keywords)
      if (kw == "indices") indices = value;
    return rows_of(indices, r, steps, depth + 1);
  }
  return std::nullopt;
}

// An assert or if-test in `scope` (the function or module the loader is built in) that checks
// one of `names`: `assert bs > 0`, `if world_size > batch: raise ...`.
std::string guard_in(const Scope* scope, const std::vector<std::string>& names, Resolver& r) {
  if (scope == nullptr || ts_node_is_null(scope->node)) return {};
  const Grammar& g = Grammar::get();
  std::string found;
  auto mentions = [&](std::string_view text) {
    return std::any_of(names.begin(), names.end(), [&](const std::string& name) {
      if (name.empty()) return false;
      if (name.find_first_of(".[") != std::string::npos) return text.find(name) != std::string_view::npos;
      return mentions_identifier(text, name);
    });
  };
  walk_tree(
      scope->node,
      [&](TSNode node, const TSTreeCursor*) {
        if (!found.empty()) return false;
        TSNode test{};
        if (std::strcmp(ts_node_type(node), "assert_statement") == 0) test = node;
        else if (is(node, g.if_statement) || is(node, g.elif_clause)) test = field(node, g.f_condition);
        if (!ts_node_is_null(test) && mentions(r.text(test))) {
          found = short_text(is(node, g.if_statement) || is(node, g.elif_clause) ? "if " + std::string(r.text(test))
                                                                                  : std::string(r.text(test)));
          return false;
        }
        return true;
      },
      [](TSNode) {});
  return found;
}


// Modules that keep their input's shape: they may sit between a layer and its batch norm.
bool shape_preserving(const std::string& name) {
  return one_of(name, {"torch.nn.ReLU", "torch.nn.ReLU6", "torch.nn.LeakyReLU", "torch.nn.GELU", "torch.nn.SiLU",
                       "torch.nn.ELU", "torch.nn.PReLU", "torch.nn.Tanh", "torch.nn.Sigmoid", "torch.nn.Dropout",
                       "torch.nn.Identity", "torch.nn.Mish", "torch.nn.Hardswish"});
}

// Whether a global pooling call leaves one value per channel (`AdaptiveAvgPool2d(1)`, `((1, 1))`).
bool pools_to_one(TSNode call, Resolver& r) {
  const Grammar& g = Grammar::get();
  const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
  TSNode size = args.positional.empty() ? TSNode{} : args.positional.front();
  for (const auto& [name, value] : args.keywords)
    if (name == "output_size") size = value;
  if (ts_node_is_null(size)) return false;
  size = strip(size);
  std::vector<TSNode> parts;
  if (is(size, g.tuple) || is(size, g.list)) {
    for (uint32_t i = 0; i < ts_node_named_child_count(size); ++i) parts.push_back(ts_node_named_child(size, i));
  } else {
    parts.push_back(size);
  }
  return std::all_of(parts.begin(), parts.end(), [&](TSNode part) {
    const auto n = integer_of(part, r);
    return n && n->value == 1;
  });
}

// In an nn.Sequential(...) call: a batch norm that sees one value per channel for a batch of one
// (after nn.Linear / nn.Flatten for BatchNorm1d, after global pooling to 1 for BatchNorm2d).
std::optional<std::pair<TSNode, std::string>> single_sample_norm_in(TSNode sequential, Resolver& r) {
  const Grammar& g = Grammar::get();
  const CallArgs args = collect_args(field(sequential, g.f_arguments), r.source());
  std::string before;  // "linear" or "pooled": the shape the last shape-changing module leaves
  TSNode before_node{};
  for (TSNode arg : args.positional) {
    arg = strip(arg);
    if (!is(arg, g.call)) {
      before.clear();
      continue;
    }
    const std::string name = qualified(field(arg, g.f_function), r);
    if (one_of(name, {"torch.nn.Linear", "torch.nn.LazyLinear", "torch.nn.Flatten"})) {
      before = "linear";
      before_node = arg;
    } else if (one_of(name, {"torch.nn.AdaptiveAvgPool2d", "torch.nn.AdaptiveMaxPool2d"})) {
      before = pools_to_one(arg, r) ? "pooled" : "";
      before_node = arg;
    } else if ((before == "linear" && one_of(name, {"torch.nn.BatchNorm1d", "torch.nn.LazyBatchNorm1d"})) ||
               (before == "pooled" && one_of(name, {"torch.nn.BatchNorm2d", "torch.nn.LazyBatchNorm2d"}))) {
      return std::pair{arg, short_text(r.text(before_node)) + ", then " + short_text(r.text(arg))};
    } else if (!shape_preserving(name)) {
      before.clear();
    }
  }
  return std::nullopt;
}

// The model a call `m(x)` makes: `m = nn.Sequential(...)` or `m = Net(...)` with Net a class of
// this module whose body builds such a Sequential.
std::optional<std::pair<TSNode, std::string>> single_sample_model(TSNode callee, Resolver& r) {
  const Grammar& g = Grammar::get();
  const TSNode value = strip(definition_of(callee, r));
  if (!is(value, g.call)) return std::nullopt;
  const TSNode function = field(value, g.f_function);
  if (qualified(function, r) == "torch.nn.Sequential") return single_sample_norm_in(value, r);
  if (!is(function, g.identifier)) return std::nullopt;
  const auto [scope, binding] = r.lookup(r.text(function));
  if (binding == nullptr || !binding->only_definition() || !is(binding->definition, g.class_definition))
    return std::nullopt;
  std::optional<std::pair<TSNode, std::string>> found;
  walk_tree(
      binding->definition,
      [&](TSNode node, const TSTreeCursor*) {
        if (found) return false;
        if (is(node, g.call) && qualified(field(node, g.f_function), r) == "torch.nn.Sequential")
          found = single_sample_norm_in(node, r);
        return !found;
      },
      [](TSNode) {});
  return found;
}

// Whether the model `callee` names stays in training mode where the loop runs: a local of the
// loop's function that the function neither switches to eval (`m.eval()`, `m.train(False)`) nor
// hands to another call (which may); a module-level model that no code in the file switches.
bool left_in_training(TSNode callee, const Scope* scope, Resolver& r) {
  const Grammar& g = Grammar::get();
  const std::string model(r.text(callee));
  const auto [defining, binding] = r.lookup(model);
  if (defining == nullptr) return false;
  const bool local = defining == scope;
  const std::string_view text = local ? r.text(scope->node) : r.source();
  if (text.find(model + ".eval()") != std::string_view::npos ||
      text.find(model + ".train(False)") != std::string_view::npos)
    return false;
  if (!local) return true;
  bool handed_on = false;
  walk_tree(
      scope->node,
      [&](TSNode node, const TSTreeCursor*) {
        if (handed_on) return false;
        if (is(node, g.argument_list)) {
          const CallArgs args = collect_args(node, r.source());
          for (const TSNode arg : args.positional)
            if (is(strip(arg), g.identifier) && r.text(strip(arg)) == model) handed_on = true;
          for (const auto& [name, value] : args.keywords)
            if (is(strip(value), g.identifier) && r.text(strip(value)) == model) handed_on = true;
        }
        return !handed_on;
      },
      [](TSNode) {});
  return !handed_on;
}

// `for x, y in loader:` (also through enumerate() / tqdm()) in `scope` calling a model whose
// batch norm sees one value per channel for a single-sample batch, left in training mode.
void find_single_sample_consumer(LoaderFact& fact, std::string_view loader, const Scope* scope, Resolver& r) {
  if (scope == nullptr || ts_node_is_null(scope->node)) return;
  const Grammar& g = Grammar::get();
  auto iterates_loader = [&](TSNode iterable) {
    iterable = strip(iterable);
    if (is(iterable, g.call)) {
      const CallArgs args = collect_args(field(iterable, g.f_arguments), r.source());
      if (args.positional.empty()) return false;
      iterable = strip(args.positional.front());
    }
    return is(iterable, g.identifier) && r.text(iterable) == loader;
  };
  walk_tree(
      scope->node,
      [&](TSNode node, const TSTreeCursor*) {
        if (fact.feeds) return false;
        if (!is(node, g.for_statement) || !iterates_loader(field(node, g.f_right))) return true;
        walk_tree(
            field(node, g.f_body),
            [&](TSNode inner, const TSTreeCursor*) {
              if (fact.feeds) return false;
              if (!is(inner, g.call) || !is(field(inner, g.f_function), g.identifier)) return true;
              const TSNode callee = field(inner, g.f_function);
              const std::string model(r.text(callee));
              if (!left_in_training(callee, scope, r)) return true;
              if (auto norm = single_sample_model(callee, r)) {
                fact.single_sample_norm = r.locate(norm->first);
                fact.single_sample_norm_text = norm->second;
                fact.feeds = r.locate(inner);
                fact.feeds_text = short_text(r.text(inner));
              }
              return true;
            },
            [](TSNode) {});
        return false;
      },
      [](TSNode) {});
}
}  // namespace

bool LoaderExtractor::handles(const ApiEntry& api) const {
  if (api.family == kLoaderFamily) return !api.is_method;
  // TensorFlow's functional convolutions and batch norms: a zero-size input is read at the call.
  return (api.family == kConvolutionFamily || api.family == kNormalizationFamily) && !api.is_class &&
         (api.framework == "tensorflow" || api.framework == "keras");
}

void LoaderExtractor::set_value(SettleableValue& slot, const ApiUse& use, std::string_view role,
                                const ArgBinding& binding, Resolver& r) {
  const ApiEntry& api = use.api;
  switch (binding.source) {
    case ArgBinding::Source::Explicit: {
      slot.source = EpsSource::Explicit;
      slot.location = r.locate(binding.value);
      Value value = r.evaluate(binding.value);
      if (value.constant) {
        slot.value = std::move(value.constant);
      } else {
        slot.source = EpsSource::NotConstant;
        if (!role.empty()) r.note_forwarding(use, role, value, binding.value);
        slot.ref = std::move(value.ref);
      }
      break;
    }
    case ArgBinding::Source::Default: {
      slot.source = EpsSource::Default;
      const ApiArg* arg = role.empty() ? nullptr : api.arg(role);
      if (arg == nullptr) break;
      if (!api.from_project) {
        if (arg->default_number) slot.value = ConstantValue{*arg->default_number, "default", {}};
        break;
      }
      if (!arg->project_default) break;
      const Value& d = *arg->project_default;
      slot.location = d.where;
      slot.via = "the default of `" + arg->name + "`, used by " + short_text(r.text(use.site)) + " at " +
                 r.locate(use.site).path + ":" + std::to_string(r.locate(use.site).range.begin.line);
      if (d.constant) {
        slot.source = EpsSource::Explicit;
        slot.value = d.constant;
        slot.value->spelling = d.spelling;
      } else if (d.ref) {
        slot.source = EpsSource::NotConstant;
        slot.ref = d.ref;
      }
      break;
    }
    case ArgBinding::Source::Unresolvable:
      slot.source = EpsSource::Unresolvable;
      break;
  }
}

void LoaderExtractor::emit(const ApiUse& use, TSNode receiver, Resolver& r) {
  const Grammar& g = Grammar::get();
  const ApiEntry& api = use.api;
  for (const std::string_view role : {std::string_view("batch_size"), std::string_view("eval_batch_size")}) {
    const ApiArg* arg = api.arg(role);
    if (arg == nullptr) continue;
    const ArgBinding binding = bind_arg(*arg, use.args, use.shift);
    // Keras: only a batch size the call writes is read (fit's others are sklearn's too).
    if (api.is_method && !arg->index && binding.source != ArgBinding::Source::Explicit) continue;
    LoaderFact fact;
    fact.api = api.from_project ? api.underlying : use.qualified;
    fact.spelled_as = api.from_project ? api.underlying_spelled : use.spelled;
    fact.framework = api.framework;
    fact.batch_param = arg->name;
    fact.call = r.locate(use.site);
    fact.origin = use.origin;
    std::vector<std::string> guard_names;
    if (binding.source == ArgBinding::Source::Explicit && is(strip(binding.value), g.none)) {
      fact.batch_none = true;
    } else if (binding.source == ArgBinding::Source::Explicit) {
      TSNode expr = strip(binding.value);
      std::vector<ProvenanceStep> steps;
      if (is(expr, g.identifier)) {
        guard_names.emplace_back(r.text(expr));
        const TSNode value = definition_of(expr, r);
        if (!ts_node_is_null(value) && division_of(value, r)) {
          steps.push_back(defined_here(expr, value, r));
          expr = value;
        }
      }
      if (const auto d = division_of(expr, r)) {
        fact.division = short_text(r.text(d->whole));
        fact.division_location = r.locate(d->whole);
        set_value(fact.batch, use, {}, ArgBinding{ArgBinding::Source::Explicit, d->dividend}, r);
        set_value(fact.divisor, use, {}, ArgBinding{ArgBinding::Source::Explicit, d->divisor}, r);
        guard_names.emplace_back(r.text(strip(d->dividend)));
        guard_names.emplace_back(r.text(strip(d->divisor)));
        fact.uses = std::move(steps);
      } else {
        set_value(fact.batch, use, role, binding, r);
        guard_names.emplace_back(r.text(expr));
      }
      if (!fact.division.empty() || fact.batch.source == EpsSource::NotConstant)
        fact.guard = guard_in(r.scope(), guard_names, r);
    } else {
      set_value(fact.batch, use, role, binding, r);
    }
    if (api.from_project)
      for (const auto& step : api.forwards) fact.uses.push_back(step);
    if (const ApiArg* drop = api.arg("drop_last")) {
      fact.drop_param = drop->name;
      const ArgBinding b = bind_arg(*drop, use.args, use.shift);
      if (b.source == ArgBinding::Source::Explicit) {
        const TSNode v = strip(b.value);
        if (is(v, g.true_)) fact.drop_last = true;
        else if (is(v, g.false_)) fact.drop_last = false;
        fact.drop_location = r.locate(b.value);
      } else if (b.source == ArgBinding::Source::Default && drop->default_text == "false") {
        fact.drop_last = false;
      }
    }
    std::vector<ProvenanceStep> steps;
    TSNode dataset = receiver;
    if (const ApiArg* data = api.arg("dataset")) {
      const ArgBinding b = bind_arg(*data, use.args, use.shift);
      if (b.source == ArgBinding::Source::Explicit) dataset = b.value;
    }
    if (!ts_node_is_null(dataset)) {
      fact.dataset_size = rows_of(dataset, r, steps);
      if (fact.dataset_size) {
        fact.dataset_text = short_text(r.text(dataset));
        fact.dataset_size->provenance.insert(fact.dataset_size->provenance.end(), steps.begin(), steps.end());
      }
    }
    // PyTorch: a model fed by the loader whose batch norm fails on a single-sample batch.
    if (fact.framework == "torch" && fact.dataset_size) {
      const TSNode parent = ts_node_parent(use.site);
      if (is(parent, g.assignment) && is(field(parent, g.f_left), g.identifier))
        find_single_sample_consumer(fact, r.text(field(parent, g.f_left)), r.scope(), r);
    }
    r.out().loaders.push_back(std::move(fact));
  }
}

void LoaderExtractor::on_use(const ApiUse& use, Resolver& r) {
  if (use.api.family == kLoaderFamily) {
    if (!ts_node_is_null(use.partial) || use.origin == "functools.partial") return;  // not a loader's construction
    emit(use, {}, r);
    return;
  }
  // tf.nn.conv2d(x, ...), tf.nn.batch_normalization(x, ...): the input is the first argument.
  if (!use.args.positional.empty() && use.args.first_star != 0)
    zero_size_input(use.qualified, use.api.framework, use.args.positional.front(), r);
}

void LoaderExtractor::zero_size_input(const std::string& consumer, const std::string& framework, TSNode argument,
                                      Resolver& r) {
  const Grammar& g = Grammar::get();
  std::string text;
  const auto shape = literal_shape(argument, r, text);
  if (shape.empty() || !shape.front() || shape.front()->value != 0) return;
  TensorInputFact fact;
  fact.consumer = consumer;
  fact.use = r.locate(argument);
  if (is(strip(argument), g.identifier)) fact.variable = std::string(r.text(strip(argument)));
  fact.shape = shape;
  fact.framework = framework;
  fact.tensor_text = text;
  r.out().tensor_inputs.push_back(std::move(fact));
}

void LoaderExtractor::on_other_call(TSNode call, Resolver& r) {
  const Grammar& g = Grammar::get();
  const TSNode callee = field(call, g.f_function);
  const auto& frameworks = r.out().frameworks;
  auto imports = [&](std::string_view key) { return std::find(frameworks.begin(), frameworks.end(), key) != frameworks.end(); };
  const bool tensorflow = imports("tensorflow") || imports("keras");
  if (is(callee, g.attribute)) {
    const std::string method(r.text(field(callee, g.f_attribute)));
    for (const auto& [leaf, api] : methods_) {
      if (leaf != method) continue;
      if (!(imports(api->framework) || (api->framework == "keras" && imports("tensorflow")))) continue;
      const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
      // Named as its class's method ("Dataset.batch", "Model.fit"): the receiver may be a whole pipeline.
      const std::string owner = api->canonical.substr(0, api->canonical.rfind('.'));
      const std::string owner_leaf = owner.substr(owner.rfind('.') + 1);
      const ApiUse use{*api, owner + "." + leaf, owner_leaf + "." + leaf, call, args, 0, "method call"};
      emit(use, api->framework == "tensorflow" ? field(callee, g.f_object) : TSNode{}, r);
      break;
    }
    // model.predict(x): Keras splits x into batches; zero samples leave it nothing to predict.
    if (method == "predict" && tensorflow) {
      const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
      if (!args.positional.empty() && args.first_star != 0)
        zero_size_input("keras.Model.predict", "keras", args.positional.front(), r);
    }
    return;
  }
  if (!tensorflow) return;
  // A layer called on a tensor: `Conv2D(32, 3)(x)`, or `conv = Conv2D(32, 3)` then `conv(x)`.
  TSNode construction = strip(callee);
  if (is(construction, g.identifier)) construction = strip(definition_of(construction, r));
  if (!is(construction, g.call)) return;
  const std::string layer = qualified(field(construction, g.f_function), r);
  const ApiEntry* api = r.table().find(layer);
  if (api == nullptr || !api->is_class || (api->framework != "keras" && api->framework != "tensorflow") ||
      (api->family != kConvolutionFamily && api->family != kNormalizationFamily))
    return;
  const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
  if (!args.positional.empty() && args.first_star != 0) zero_size_input(layer, api->framework, args.positional.front(), r);
}

}  // namespace cudnnlint::python
