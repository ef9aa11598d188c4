#include "python/extract/shape_chain.h"

#include "python/extract/conv_geometry.h"
#include "python/extract/local_values.h"
#include "python/extract/model_forward.h"
#include "python/extract/shape_steps.h"
#include "core/sizes_text.h"

#include <algorithm>
#include <string>
#include <vector>

namespace cudnnlint::python {

namespace {

constexpr int kMaxDepth = 4;

// The spatial size and channels a Keras `shape` tuple (no batch axis) gives, and the layout the
// layers' data_format says (channels_last unless they say channels_first). False when a size is
// not fixed (None) or the layout cannot be told.
bool keras_start(TSNode shape, const std::vector<BoundLayer>& layers, std::size_t first_layer, ShapeChainFact& fact,
                 std::vector<std::int64_t>& spatial, std::int64_t& channels, Resolver& r) {
  const Grammar& g = Grammar::get();
  if (ts_node_is_null(shape)) return false;
  shape = strip(shape);
  // `input_shape = (28, 28, 1)` then `keras.Input(shape=input_shape)`: a name bound once, in the
  // same scope or at module level (the planner parses that binding with the code that uses it).
  if (is(shape, g.identifier)) {
    const auto [scope, binding] = r.lookup(r.text(shape));
    if (binding == nullptr || !binding->simple() || scope == nullptr ||
        (scope != r.scope() && scope->kind != Scope::Kind::Module))
      return false;
    shape = strip(binding->value);
  }
  if (!(is(shape, g.tuple) || is(shape, g.list))) return false;
  std::vector<std::int64_t> dims;
  const uint32_t n = ts_node_named_child_count(shape);
  for (uint32_t i = 0; i < n; ++i) {
    const auto v = integer_of(ts_node_named_child(shape, i), r);
    if (!v || v->value <= 0) return false;  // None: a size known only at run time
    dims.push_back(v->value);
  }
  // `Input(shape=(20,))` then `Embedding(n, 50)`: a sequence of 20 tokens, which the embedding
  // makes 20 steps of 50 channels (ChainBuilder reads the Embedding layer).
  if (dims.size() == 1 && first_layer < layers.size() && is(strip(layers[first_layer].construction), g.call) &&
      keras_name(qualified(field(strip(layers[first_layer].construction), g.f_function), r)) == "keras.layers.Embedding") {
    fact.layout = "NHWC";
    spatial = dims;
    channels = 0;
    return true;
  }
  if (dims.size() < 2) return false;
  // channels_first only when the stack's layers say so (a global `set_image_data_format` in the
  // file makes the default unknown).
  if (r.source().find("image_data_format") != std::string_view::npos) return false;
  fact.layout = "NHWC";
  for (std::size_t i = first_layer; i < layers.size(); ++i) {
    const TSNode layer = strip(layers[i].construction);
    if (!is(layer, g.call)) break;
    const CallArgs a = collect_args(field(layer, g.f_arguments), r.source());
    for (const auto& [key, value] : a.keywords)
      if (key == "data_format")
        if (const auto f = string_literal(strip(value), r.source()); f && *f == "channels_first") fact.layout = "NCHW";
  }
  if (fact.layout == "NHWC") {
    spatial.assign(dims.begin(), dims.end() - 1);
    channels = dims.back();
  } else {
    spatial.assign(dims.begin() + 1, dims.end());
    channels = dims.front();
  }
  return true;
}

// Keras functional graphs: `x = layers.Conv2D(8, 3)(x)` applications, followed back through the
// names of one function (or of the module's statements) to `keras.Input(shape=...)`. Fills
// `layers` (the layer constructions, source first) and `input` (the Input call); false when the
// chain leaves the scope, branches or meets anything else.
// The layers a Keras model or layer class of this module applies in its `call`, in order, where the
// code makes that plain: `return self.a(x)`, `return self.b(self.a(x))`, or `x = self.a(x)`
// statements then `return x`, each `self.a` set once, in __init__, to a layer construction.
// Empty when the class is anything else.
std::vector<BoundLayer> keras_class_layers(TSNode class_definition, Resolver& r) {
  const Grammar& g = Grammar::get();
  const TSNode bases = field(class_definition, g.f_superclasses);
  if (ts_node_is_null(bases)) return {};
  const std::string_view base_text = r.text(bases);
  if (base_text.find("Model") == std::string_view::npos && base_text.find("Layer") == std::string_view::npos)
    return {};
  const Scope* model = r.scope_of(class_definition);
  if (model == nullptr) return {};
  TSNode call_method{};
  for (const TSNode member : named_children(field(class_definition, g.f_body)))
    if (is(member, g.function_definition) && r.text(field(member, g.f_name)) == "call") call_method = member;
  const Scope* method = ts_node_is_null(call_method) ? nullptr : r.scope_of(call_method);
  if (method == nullptr || method->parameters.size() < 2) return {};
  const std::string_view self = method->parameters[0].name;
  std::string_view current = method->parameters[1].name;
  std::vector<BoundLayer> out;
  // `self.a(<inner>)`, with <inner> the current tensor: appends a's construction, innermost first.
  auto applied = [&](auto&& recurse, TSNode node) -> bool {
    node = strip(node);
    if (is(node, g.identifier)) return r.text(node) == current;
    if (!is(node, g.call)) return false;
    const TSNode callee = strip(field(node, g.f_function));
    const CallArgs args = collect_args(field(node, g.f_arguments), r.source());
    if (!is(callee, g.attribute) || r.text(strip(field(callee, g.f_object))) != self || args.positional.size() != 1 ||
        args.first_star == 0)
      return false;
    if (!recurse(recurse, args.positional.front())) return false;
    const auto it = model->self_attributes.find(r.text(field(callee, g.f_attribute)));
    if (it == model->self_attributes.end() || it->second.count != 1 || it->second.method == nullptr ||
        it->second.method->name != "__init__" || !is(strip(it->second.value), g.call))
      return false;
    out.push_back({strip(it->second.value), it->second.method, nullptr});
    return true;
  };
  for (const TSNode statement : named_children(field(call_method, g.f_body))) {
    if (is(statement, g.comment)) continue;
    if (is(statement, g.return_statement)) {
      const TSNode value = ts_node_named_child(statement, 0);
      return !ts_node_is_null(value) && applied(applied, value) ? out : std::vector<BoundLayer>{};
    }
    const TSNode assignment = is(statement, g.expression_statement) ? ts_node_named_child(statement, 0) : TSNode{};
    if (!is(assignment, g.assignment) || !is(field(assignment, g.f_left), g.identifier) ||
        !applied(applied, field(assignment, g.f_right)))
      return {};
    current = r.text(field(assignment, g.f_left));
  }
  return {};
}

// The Keras model class of this module an application's callee builds (`Block()` in `Block()(x)`).
TSNode keras_class_built(TSNode construction, Resolver& r) {
  const Grammar& g = Grammar::get();
  if (!is(construction, g.call)) return {};
  const TSNode name = strip(field(construction, g.f_function));
  if (!is(name, g.identifier)) return {};
  const auto [scope, binding] = r.lookup(r.text(name));
  if (binding == nullptr || !binding->only_definition() || !is(binding->definition, g.class_definition)) return {};
  return binding->definition;
}

// `def conv_bn(x, filters, kernel): ...`: a function of the module (not a method, not nested)
// that `callee` names; null otherwise.
TSNode module_function(TSNode callee, Resolver& r) {
  const Grammar& g = Grammar::get();
  if (!is(callee, g.identifier)) return {};
  const auto [scope, binding] = r.lookup(r.text(callee));
  if (scope == nullptr || scope->kind != Scope::Kind::Module || binding == nullptr || !binding->only_definition() ||
      !is(binding->definition, g.function_definition))
    return {};
  return binding->definition;
}

// The layers of a Keras merge of `branches` (each the layers from one input, in order): the layers
// all branches share, then the merge holding what each adds after them.
std::vector<BoundLayer> merged_layers(BoundLayer merge, const std::vector<std::vector<BoundLayer>>& branches) {
  auto same = [](const BoundLayer& a, const BoundLayer& b) {
    return ts_node_eq(a.construction, b.construction) && a.bindings == b.bindings && a.scope == b.scope;
  };
  auto shared_at = [&](std::size_t k) {
    return k < branches.front().size() &&
           std::all_of(branches.begin() + 1, branches.end(),
                       [&](const std::vector<BoundLayer>& b) { return k < b.size() && same(b[k], branches.front()[k]); });
  };
  std::size_t common = 0;
  while (shared_at(common)) ++common;
  std::vector<BoundLayer> out(branches.front().begin(), branches.front().begin() + static_cast<std::ptrdiff_t>(common));
  for (const auto& branch : branches)
    merge.branches.emplace_back(branch.begin() + static_cast<std::ptrdiff_t>(common), branch.end());
  out.push_back(std::move(merge));
  return out;
}

// A Keras model class of the module whose `call` applies one merge layer (`return self.add(x)` with
// `self.add = layers.Add()`), built by `construction`: that layer, read in __init__.
std::optional<BoundLayer> wrapped_merge(TSNode construction, Resolver& r) {
  const Grammar& g = Grammar::get();
  const TSNode model = keras_class_built(construction, r);
  if (ts_node_is_null(model)) return std::nullopt;
  std::vector<BoundLayer> inner = keras_class_layers(model, r);
  if (inner.size() != 1 || !keras_merge(keras_name(qualified(field(strip(inner.front().construction), g.f_function), r))))
    return std::nullopt;
  return std::move(inner.front());
}

// The layers a Keras block helper of this module applies to the tensor its first parameter takes
// (`def fire_module(x, fire_id, squeeze=16): ... return layers.concatenate([left, right])`), in
// order, where the code makes that plain: assignments `y = Layer(...)(x)` (nested applications
// too) of names the parameter flows into, merges of such names (shape_steps.h keras_merge), calls
// of another such helper, statements naming none of those names, and a last `return`. The layers
// are read in the helper's scope, with the numbers the call gives its other parameters. nullopt
// for anything else (a branch or a loop on the way, a layer object applied by name, a parameter
// rebound).
class KerasBlockReader {
 public:
  using Chain = std::vector<BoundLayer>;
  KerasBlockReader(Resolver& r, int depth) : r_(r), g_(Grammar::get()), depth_(depth) {}

  // `call` applies `function` (whose scope is `helper`); read in the caller's scope.
  std::optional<Chain> read(TSNode function, const Scope& helper, TSNode call) {
    if (depth_ > kMaxDepth || helper.parameters.empty() || helper.parameters.front().kind != Parameter::Kind::Normal)
      return std::nullopt;
    const CallArgs args = collect_args(field(call, g_.f_arguments), r_.source());
    if (args.first_star >= 0 || args.has_double_star) return std::nullopt;
    bindings_ = std::make_shared<ConstantBindings>();
    bindings_->scope = &helper;
    for (const Parameter& parameter : helper.parameters) {
      if (parameter.kind != Parameter::Kind::Normal) return std::nullopt;
      TSNode value = argument_for_parameter(args, parameter);
      if (ts_node_is_null(value)) value = parameter.default_value;
      if (ts_node_is_null(value)) return std::nullopt;  // a TypeError
      if (&parameter == &helper.parameters.front()) continue;
      if (auto number = r_.fold(value)) bindings_->values.emplace_back(parameter.name, std::move(*number));
    }
    scope_ = &helper;
    Resolver::ScopeVisit in_helper(r_, &helper);
    Resolver::BindingsVisit with_numbers(r_, bindings_.get());
    chains_.push_back({helper.parameters.front().name, {}});
    for (const TSNode statement : named_children(field(function, g_.f_body))) {
      if (is(statement, g_.comment)) continue;
      if (is(statement, g_.return_statement)) {
        const TSNode value = ts_node_named_child(statement, 0);
        return ts_node_is_null(value) ? std::nullopt : applied(value);
      }
      if (!is(statement, g_.expression_statement) || ts_node_named_child_count(statement) != 1) return std::nullopt;
      const TSNode expression = ts_node_named_child(statement, 0);
      if (is(expression, g_.string)) continue;  // a docstring
      if (!is(expression, g_.assignment)) {
        if (names_a_chain(expression)) return std::nullopt;
        continue;
      }
      const TSNode left = field(expression, g_.f_left);
      const TSNode right = field(expression, g_.f_right);
      if (!is(left, g_.identifier) || ts_node_is_null(right) || bindings_->find(r_.text(left)) != nullptr)
        return std::nullopt;
      std::optional<Chain> chain;
      if (names_a_chain(right)) {
        chain = applied(right);
        if (!chain) return std::nullopt;
      }
      std::erase_if(chains_, [&](const auto& entry) { return entry.first == r_.text(left); });
      if (chain) chains_.push_back({r_.text(left), std::move(*chain)});
    }
    return std::nullopt;  // no return
  }

 private:
  const Chain* chain_of(std::string_view name) const {
    for (const auto& [bound, chain] : chains_)
      if (bound == name) return &chain;
    return nullptr;
  }

  bool names_a_chain(TSNode node) const {
    bool found = false;
    walk_tree(
        node,
        [&](TSNode n, const TSTreeCursor*) {
          if (is(n, g_.identifier) && chain_of(r_.text(n)) != nullptr) found = true;
          return !found;
        },
        [](TSNode) {});
    return found;
  }

  // What `node` holds: a name's chain, a layer applied to one, a merge of them, a helper's block.
  std::optional<Chain> applied(TSNode node) {
    node = strip(node);
    if (is(node, g_.identifier)) {
      const Chain* chain = chain_of(r_.text(node));
      return chain != nullptr ? std::optional<Chain>(*chain) : std::nullopt;
    }
    if (!is(node, g_.call)) return std::nullopt;
    const TSNode function = strip(field(node, g_.f_function));
    const CallArgs args = collect_args(field(node, g_.f_arguments), r_.source());
    if (args.first_star >= 0 || args.has_double_star) return std::nullopt;
    if (is(function, g_.call)) {  // `Layer(...)(x)`, `layers.Add()([x, y])`, `Block()(x)`
      if (args.positional.size() != 1) return std::nullopt;
      if (keras_merge(keras_name(qualified(field(function, g_.f_function), r_))))
        return merged({node, scope_, bindings_}, args.positional.front());
      if (auto wrapped = wrapped_merge(function, r_)) return merged(std::move(*wrapped), args.positional.front());
      auto chain = applied(args.positional.front());
      if (!chain) return std::nullopt;
      if (const TSNode model = keras_class_built(function, r_); !ts_node_is_null(model)) {
        const std::vector<BoundLayer> inner = keras_class_layers(model, r_);
        if (inner.empty()) return std::nullopt;
        chain->insert(chain->end(), inner.begin(), inner.end());
        return chain;
      }
      chain->push_back({function, scope_, bindings_});
      return chain;
    }
    if (keras_merge(keras_name(qualified(function, r_))))
      return merged({node, scope_, bindings_}, argument(args, 0, "inputs"));
    const TSNode helper = module_function(function, r_);
    const Scope* helper_scope = ts_node_is_null(helper) ? nullptr : r_.scope_of(helper);
    if (helper_scope == nullptr || helper_scope->parameters.empty()) return std::nullopt;
    const TSNode from = argument_for_parameter(args, helper_scope->parameters.front());
    if (ts_node_is_null(from)) return std::nullopt;
    auto chain = applied(from);
    if (!chain) return std::nullopt;
    auto block = KerasBlockReader(r_, depth_ + 1).read(helper, *helper_scope, node);
    if (!block) return std::nullopt;
    chain->insert(chain->end(), block->begin(), block->end());
    return chain;
  }

  // A merge of the chains `inputs` lists: their common layers, then the merge with what each adds.
  std::optional<Chain> merged(BoundLayer merge, TSNode inputs) {
    inputs = strip(inputs);
    if (!is(inputs, g_.list) && !is(inputs, g_.tuple)) return std::nullopt;
    std::vector<Chain> branches;
    for (const TSNode element : named_children(inputs)) {
      if (is(element, g_.comment)) continue;
      auto chain = applied(element);
      if (!chain) return std::nullopt;
      branches.push_back(std::move(*chain));
    }
    if (branches.size() < 2) return std::nullopt;
    return merged_layers(std::move(merge), branches);
  }

  Resolver& r_;
  const Grammar& g_;
  int depth_;
  const Scope* scope_ = nullptr;
  std::shared_ptr<ConstantBindings> bindings_;
  std::vector<std::pair<std::string_view, Chain>> chains_;  // names the first parameter flows into
};

// The layers `call` applies when it calls a Keras block helper of the module; nullopt otherwise.
std::optional<std::vector<BoundLayer>> keras_block_layers(TSNode call, Resolver& r) {
  const Grammar& g = Grammar::get();
  const TSNode helper = module_function(strip(field(call, g.f_function)), r);
  const Scope* scope = ts_node_is_null(helper) ? nullptr : r.scope_of(helper);
  if (scope == nullptr) return std::nullopt;
  return KerasBlockReader(r, 0).read(helper, *scope, call);
}

// The value a functional graph's tensor argument holds: `x` followed to its assignment before
// this statement in the same scope; null when the reader cannot tell.
TSNode tensor_before(TSNode from, Resolver& r) {
  const Grammar& g = Grammar::get();
  if (ts_node_is_null(from)) return {};
  from = strip(from);
  if (!is(from, g.identifier)) return from;
  const auto [scope, binding] = r.lookup(r.text(from));
  if (binding == nullptr || scope != r.scope() || binding->parameter >= 0) return {};
  TSNode earlier = previous_assignment(from, r, nullptr, /*values_only=*/true);
  if (ts_node_is_null(earlier) && binding->simple()) earlier = binding->value;
  return earlier;
}

bool functional_layers(TSNode value, std::vector<BoundLayer>& layers, TSNode& input, Resolver& r, int depth = 0);

// `layers.concatenate([a, b])` / `layers.Add()([a, b])` in a functional graph: each input followed
// back to the same keras.Input; their common layers, then the merge with what each adds.
bool functional_merge(BoundLayer merge, TSNode inputs, std::vector<BoundLayer>& layers, TSNode& input, Resolver& r,
                      int depth) {
  const Grammar& g = Grammar::get();
  inputs = strip(inputs);
  if (!is(inputs, g.list) && !is(inputs, g.tuple)) return false;
  std::vector<std::vector<BoundLayer>> branches;
  for (const TSNode element : named_children(inputs)) {
    if (is(element, g.comment)) continue;
    const TSNode from = tensor_before(element, r);
    std::vector<BoundLayer> branch;
    TSNode source{};
    if (ts_node_is_null(from) || !functional_layers(from, branch, source, r, depth + 1)) return false;
    if (!ts_node_is_null(input) && !ts_node_eq(input, source)) return false;  // two graph inputs
    input = source;
    branches.push_back(std::move(branch));
  }
  if (branches.size() < 2) return false;
  const std::vector<BoundLayer> merged = merged_layers(std::move(merge), branches);
  layers.insert(layers.end(), merged.begin(), merged.end());
  return true;
}

bool functional_layers(TSNode value, std::vector<BoundLayer>& layers, TSNode& input, Resolver& r, int depth) {
  const Grammar& g = Grammar::get();
  value = strip(value);
  if (depth > 64) return false;
  if (is(value, g.identifier))  // `shortcut = x`: what x held there
    return functional_layers(tensor_before(value, r), layers, input, r, depth + 1);
  if (!is(value, g.call)) return false;
  const TSNode callee = strip(field(value, g.f_function));
  const CallArgs args = collect_args(field(value, g.f_arguments), r.source());
  if (is(callee, g.call) && keras_merge(keras_name(qualified(field(callee, g.f_function), r))))
    return args.positional.size() == 1 && args.first_star < 0 &&
           functional_merge({value, nullptr, nullptr}, args.positional.front(), layers, input, r, depth);
  if (is(callee, g.call) && args.positional.size() == 1 && args.first_star < 0)
    if (auto wrapped = wrapped_merge(callee, r))
      return functional_merge(std::move(*wrapped), args.positional.front(), layers, input, r, depth);
  if (!is(callee, g.call)) {
    const std::string name = keras_name(qualified(callee, r));
    if (one_of(name, {"keras.Input", "keras.layers.Input"})) {
      input = value;
      return true;
    }
    if (keras_merge(name))
      return args.first_star < 0 &&
             functional_merge({value, nullptr, nullptr}, argument(args, 0, "inputs"), layers, input, r, depth);
    // `x = fire_module(x, 2, squeeze=16)`: a block helper of the module applied to the tensor.
    const TSNode helper = module_function(callee, r);
    const Scope* scope = ts_node_is_null(helper) ? nullptr : r.scope_of(helper);
    if (scope == nullptr || scope->parameters.empty() || args.first_star >= 0) return false;
    const TSNode from = tensor_before(argument_for_parameter(args, scope->parameters.front()), r);
    if (ts_node_is_null(from)) return false;
    const auto block = KerasBlockReader(r, 0).read(helper, *scope, value);
    if (!block || block->empty() || !functional_layers(from, layers, input, r, depth + 1)) return false;
    layers.insert(layers.end(), block->begin(), block->end());
    return true;
  }
  if (args.positional.size() != 1 || args.first_star == 0) return false;
  const TSNode from = tensor_before(args.positional.front(), r);
  if (ts_node_is_null(from) || !functional_layers(from, layers, input, r, depth + 1)) return false;
  if (const TSNode model = keras_class_built(callee, r); !ts_node_is_null(model)) {
    const std::vector<BoundLayer> inner = keras_class_layers(model, r);
    if (inner.empty()) return false;
    layers.insert(layers.end(), inner.begin(), inner.end());
    return true;
  }
  layers.push_back({callee, nullptr, nullptr});
  return true;
}

// Cheap tests first: this runs for every call the API table does not know.
bool ends_with_sequential(std::string_view text) { return text.ends_with("Sequential"); }

// A call of a module-level function of this file (`lenet_bn()`, `vgg(CONV_ARCH)`), which may return
// a stack (python/extract/layer_stacks.h decides).
bool builds_stack(TSNode construction, Resolver& r) {
  return !ts_node_is_null(module_function(strip(field(construction, Grammar::get().f_function)), r));
}

// `for layer in net: x = layer(x)` (d2l's layer-by-layer shape walk): the stack the loop runs
// (`net`) and the value x holds when the loop starts (the assignment just before it, in the same
// block). `found` when `call` is such a loop's application; the nodes are null when it is one the
// reader cannot follow.
struct LayerLoop {
  bool found = false;
  TSNode stack{};
  TSNode input{};
};
LayerLoop layer_loop(TSNode call, TSNode callee, TSNode input, Resolver& r) {
  const Grammar& g = Grammar::get();
  LayerLoop out;
  if (!is(callee, g.identifier) || !is(input, g.identifier)) return out;
  // `x = layer(x)`, a statement of the loop's own body.
  const TSNode assignment = ts_node_parent(call);
  if (!is(assignment, g.assignment) || !is(field(assignment, g.f_left), g.identifier) ||
      r.text(field(assignment, g.f_left)) != r.text(input))
    return out;
  const TSNode statement = ts_node_parent(assignment);
  const TSNode body = ts_node_parent(statement);
  const TSNode loop = ts_node_parent(body);
  if (!is(statement, g.expression_statement) || !is(body, g.block) || !is(loop, g.for_statement)) return out;
  const TSNode target = field(loop, g.f_left);
  if (!is(target, g.identifier) || r.text(target) != r.text(callee)) return out;
  out.found = true;
  const TSNode iterable = strip(field(loop, g.f_right));
  if (!is(iterable, g.identifier)) return out;
  // What x holds on the loop's first run: the statement before the loop binds it, and nothing in
  // the body before this statement mentions it (local_values.h, shared with the dtype reader).
  const TSNode first = value_before_loop(input, r);
  if (ts_node_is_null(first)) return out;
  out.stack = iterable;
  out.input = strip(first);
  return out;
}

// `Net()`, or `net` bound in this scope to `Net()` (`.eval()`, `.to(device)` and the like kept,
// also as `net = net.eval()` on the line before), where Net is a class of this module: the class
// definition; null otherwise.
TSNode model_class_of(TSNode model, Resolver& r, TSNode* construction = nullptr) {
  const Grammar& g = Grammar::get();
  TSNode value = strip(model);
  for (int depth = 0; depth < kMaxDepth; ++depth) {
    if (is(value, g.identifier)) {
      const auto [scope, binding] = r.lookup(r.text(value));
      if (binding == nullptr || scope != r.scope()) return {};
      value = strip(definition_of(value, r));
      continue;
    }
    if (!is(value, g.call)) break;
    const TSNode function = strip(field(value, g.f_function));
    if (const TSNode built = factory_return(value, r); !ts_node_is_null(built)) {
      value = built;  // `net = ResNet18()` with `def ResNet18(): return ResNet(BasicBlock, [2, 2, 2, 2])`
      continue;
    }
    if (!is(function, g.attribute)) break;
    const std::string method(r.text(field(function, g.f_attribute)));
    if (!one_of(method, {"eval", "train", "to", "cuda", "cpu", "float", "double", "half"})) return {};
    value = strip(field(function, g.f_object));
  }
  if (!is(value, g.call)) return {};
  if (construction != nullptr) *construction = value;
  const TSNode class_name = strip(field(value, g.f_function));
  if (!is(class_name, g.identifier)) return {};
  std::optional<Resolver::ScopeVisit> at_construction;  // a factory's scope (the walk's own keeps its shadows)
  if (const Scope* around = r.scope_around(value); around != r.scope()) at_construction.emplace(r, around);
  const auto [scope, binding] = r.lookup(r.text(class_name));
  if (binding == nullptr || !binding->only_definition() || scope == nullptr || scope->kind != Scope::Kind::Module)
    return {};
  TSNode definition = binding->definition;
  if (is(definition, g.decorated_definition) && ts_node_named_child_count(definition) > 0)
    definition = ts_node_named_child(definition, ts_node_named_child_count(definition) - 1);
  return is(definition, g.class_definition) ? definition : TSNode{};
}

// Whether the code around `use` may change the model `name` holds before running it: a layer
// replaced (`net.conv1 = nn.Conv2d(...)`, `model[0] = ...`, `setattr(net, ...)`), the model handed
// to another call (`fuse_modules(net, ...)`), or a module added or hooked. Read over the function
// (or the module's statements) holding `use`.
bool model_changed_in_scope(TSNode use, std::string_view name, Resolver& r) {
  const Grammar& g = Grammar::get();
  TSNode scope = use;
  while (!ts_node_is_null(ts_node_parent(scope)) && !is(scope, g.function_definition)) scope = ts_node_parent(scope);
  auto rooted_at_name = [&](TSNode node) {
    for (int depth = 0; depth < 16 && !ts_node_is_null(node); ++depth) {
      node = strip(node);
      if (is(node, g.identifier)) return r.text(node) == name;
      if (is(node, g.attribute)) node = field(node, g.f_object);
      else if (is(node, g.subscript)) node = field(node, g.f_value);
      else return false;
    }
    return false;
  };
  bool changed = false;
  walk_tree(
      scope,
      [&](TSNode node, const TSTreeCursor*) {
        if (changed) return false;
        if (is(node, g.assignment) || is(node, g.augmented_assignment)) {
          const TSNode left = strip(field(node, g.f_left));
          if (!is(left, g.identifier) && rooted_at_name(left)) changed = true;
        } else if (is(node, g.call) && !ts_node_eq(node, use)) {
          const TSNode callee = strip(field(node, g.f_function));
          if (is(callee, g.attribute) && rooted_at_name(field(callee, g.f_object))) {
            const std::string method(r.text(field(callee, g.f_attribute)));
            if (one_of(method, {"add_module", "register_module", "register_forward_pre_hook", "register_forward_hook",
                                "fuse_model", "apply", "__setattr__"}))
              changed = true;
          }
          const CallArgs args = collect_args(field(node, g.f_arguments), r.source());
          auto names_model = [&](TSNode arg) { return is(strip(arg), g.identifier) && r.text(strip(arg)) == name; };
          const bool exports = is(callee, g.attribute) && one_of(std::string(r.text(field(callee, g.f_attribute))),
                                                                  {"export", "trace"});
          if (!exports && (std::any_of(args.positional.begin(), args.positional.end(), names_model) ||
                           std::any_of(args.keywords.begin(), args.keywords.end(),
                                       [&](const auto& kw) { return names_model(kw.second); })))
            changed = true;
        }
        return !changed;
      },
      [](TSNode) {});
  return changed;
}

// A model class of this module run on a literal-shaped tensor: `net(torch.randn(1, 3, 8, 8))`,
// `Net()(x)`, `torch.onnx.export(net, x, ...)`, `torch.jit.trace(net, x)`. True when `call` is one
// (read, whether or not it ends in a fact).
bool model_class_call(TSNode call, TSNode callee, Resolver& r) {
  const Grammar& g = Grammar::get();
  // This runs for every call the API table does not know: the cheap tests first.
  TSNode definition{}, input{}, model = callee, construction{};
  if (is(callee, g.attribute)) {
    // Export and tracing run the model on their example input.
    const std::string_view leaf = r.text(field(callee, g.f_attribute));
    if (leaf != "export" && leaf != "trace") return false;
    const std::string name = qualified(callee, r);
    if (!one_of(name, {"torch.onnx.export", "torch.jit.trace", "torch.export.export"})) return false;
    const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
    if (args.positional.size() < 2 || (args.first_star >= 0 && args.first_star < 2)) return false;
    model = strip(args.positional[0]);
    definition = model_class_of(model, r, &construction);
    input = strip(args.positional[1]);
    if (is(input, g.tuple)) {  // (x,)
      if (ts_node_named_child_count(input) != 1) return !ts_node_is_null(definition);
      input = strip(ts_node_named_child(input, 0));
    }
    if (ts_node_is_null(definition)) return false;
  } else if (is(callee, g.identifier) || is(callee, g.call)) {
    definition = model_class_of(callee, r, &construction);
    if (ts_node_is_null(definition) || !is_model_class(definition, r)) return false;
    const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
    // Keras models take `training=` (and `mask=`) beside the input; neither changes a size.
    const bool keras_keywords = !is_torch_module_class(definition, r) &&
                                std::all_of(args.keywords.begin(), args.keywords.end(), [](const auto& keyword) {
                                  return keyword.first == "training" || keyword.first == "mask";
                                });
    if (args.positional.size() != 1 || args.first_star == 0 || args.has_double_star ||
        (!args.keywords.empty() && !keras_keywords))
      return true;
    input = strip(args.positional.front());
  } else {
    return false;
  }
  std::optional<std::int64_t> batch_size;
  std::optional<ShapeSource> source;
  if (is(input, g.identifier)) {
    const auto [scope, binding] = r.lookup(r.text(input));
    if (binding == nullptr || scope != r.scope()) return true;
    if (!binding->simple()) {
      // `for x, y in loader: net(x)`: the dataset's tensor, in batches (or a dataset's samples).
      const auto batch = loop_batch(input, r, true);
      if (!batch) return true;
      if (!ts_node_is_null(batch->dataset) && !(source = dataset_batch_source(*batch, r))) return true;
      input = strip(batch->tensor);
      if (!ts_node_is_null(batch->batch_size))
        if (const auto b = integer_of(batch->batch_size, r); b && b->value > 0) batch_size = b->value;
    }
  } else if (!is(input, g.call)) {
    return true;
  }
  if (is(model, g.identifier) && model_changed_in_scope(call, r.text(model), r)) return true;
  if (!source) source = torch_shape_source(input, r);
  if (!source || source->dims.size() < 2) return true;
  if (batch_size && *batch_size < source->dims[0]) source->dims[0] = *batch_size;
  read_model_forward(definition, call, *source, r, construction);
  return true;
}

// Where a size chain starts: the fact's source, the input's spatial size, channels and batch, and
// the layers it runs through (from `first_layer`).
struct ChainStart {
  ShapeChainFact fact;
  std::vector<std::int64_t> spatial;
  std::int64_t channels = 0;
  std::int64_t batch = 1;
  std::vector<BoundLayer> layers;
  std::size_t first_layer = 0;
  bool symbolic_keras = false;  // a Keras graph on keras.Input or input_shape= (ChainBuilder::symbolic_keras_graph)
};

// `keras.Sequential([keras.Input(shape=(H, W, C)), ...])`, or its first layer's input_shape=; the
// layers written, and those `model.add(...)` gives it after `model = keras.Sequential(...)`.
std::optional<ChainStart> keras_sequential_start(TSNode call, TSNode callee, Resolver& r) {
  const Grammar& g = Grammar::get();
  ChainStart out;
  out.fact.call = r.locate(call);
  out.fact.framework = "keras";
  auto stack = stack_layers(call, r, TSNode{}, true);
  if (!stack || stack->empty()) return std::nullopt;
  out.layers = std::move(*stack);
  const TSNode first = strip(out.layers.front().construction);
  if (!is(first, g.call)) return std::nullopt;
  const std::string first_name = keras_name(qualified(field(first, g.f_function), r));
  const CallArgs first_args = collect_args(field(first, g.f_arguments), r.source());
  TSNode shape{};
  if (one_of(first_name, {"keras.Input", "keras.layers.Input"})) {
    shape = argument(first_args, 0, "shape");
    out.first_layer = 1;
  } else if (first_name == "keras.layers.InputLayer") {
    shape = argument(first_args, 0, "shape");
    if (ts_node_is_null(shape)) shape = argument(first_args, 0, "input_shape");
    out.first_layer = 1;
  } else {
    for (const auto& [key, value] : first_args.keywords)
      if (key == "input_shape") shape = value;
  }
  if (!keras_start(shape, out.layers, out.first_layer, out.fact, out.spatial, out.channels, r)) return std::nullopt;
  out.fact.source_text =
      out.first_layer == 1 ? short_text(r.text(first)) : "input_shape=" + short_text(r.text(shape));
  out.fact.source = r.locate(shape);
  out.fact.model_text = short_text(r.text(callee)) + "([...])";
  out.symbolic_keras = true;  // built where it is written, on the input shape
  return out;
}

// The stack `model(x)` runs and the tensor it gets: model bound to an nn.Sequential or a Keras
// Sequential (or the construction itself, or a helper returning one), x a literal-shaped factory or
// a batch of a DataLoader over one; or `for layer in model: x = layer(x)` with x set just before the
// loop. `input` gets the factory, `batch_size` a loader's batch size.
struct ModelCall {
  std::vector<BoundLayer> layers;
  std::string stack;  // "torch" or "keras"
  TSNode input{};
  std::optional<std::int64_t> batch_size;
  std::optional<ShapeSource> dataset;  // batches of a dataset the API table knows, instead of `input`
};

std::optional<ModelCall> model_call(TSNode call, TSNode callee, Resolver& r) {
  const Grammar& g = Grammar::get();
  const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
  if (args.positional.size() != 1 || args.first_star == 0 || !args.keywords.empty()) return std::nullopt;
  ModelCall out;
  TSNode model = callee;
  out.input = strip(args.positional.front());
  const LayerLoop loop = layer_loop(call, callee, out.input, r);
  if (loop.found && (ts_node_is_null(loop.stack) || ts_node_is_null(loop.input))) return std::nullopt;
  if (loop.found) {
    model = loop.stack;
    out.input = loop.input;
  }
  TSNode construction = model;
  int depth = 0;
  while (is(construction, g.identifier) && depth++ < kMaxDepth) construction = strip(definition_of(construction, r));
  if (ts_node_is_null(construction) || !is(construction, g.call)) return std::nullopt;
  if (const TSNode keras_model = keras_class_built(construction, r); !ts_node_is_null(keras_model)) {
    // `model = Net()`, Net a Keras model class whose call applies one Keras Sequential that its
    // __init__ builds: that stack.
    if (is(model, g.identifier) && model_changed_in_scope(call, r.text(model), r)) return std::nullopt;
    const std::vector<BoundLayer> applied = keras_class_layers(keras_model, r);
    if (applied.size() != 1 || applied.front().scope == nullptr) return std::nullopt;
    Resolver::ScopeVisit in_init(r, applied.front().scope);
    const TSNode sequential = strip(applied.front().construction);
    if (framework_of_sequential(qualified(field(sequential, g.f_function), r)) != "keras") return std::nullopt;
    auto built = stack_layers(sequential, r, TSNode{});
    if (!built || built->empty()) return std::nullopt;
    out.layers = std::move(*built);
    out.stack = "keras";
  } else {
    out.stack = framework_of_sequential(qualified(field(construction, g.f_function), r));
    if (out.stack.empty() && !builds_stack(construction, r)) return std::nullopt;
    if (is(model, g.identifier) && model_changed_in_scope(call, r.text(model), r)) return std::nullopt;
    // The stack as the code builds it up to this call (`nn.Sequential(*layers)` after a loop of
    // appends, a helper that returns one), when the reader can follow it.
    auto built = stack_layers(construction, r, call);
    if (!built || built->empty()) return std::nullopt;
    out.layers = std::move(*built);
  }
  if (out.stack.empty()) {
    // A helper's stack: PyTorch's when its first layer is (nn.Sequential's layers are modules).
    if (out.layers.size() < 2) return std::nullopt;
    std::optional<Resolver::ScopeVisit> in_builder;
    if (out.layers.front().scope != nullptr && out.layers.front().scope != r.scope())
      in_builder.emplace(r, out.layers.front().scope);
    const TSNode first = strip(out.layers.front().construction);
    if (!is(first, g.call) || !qualified(field(first, g.f_function), r).starts_with("torch.nn.")) return std::nullopt;
    out.stack = "torch";
  }
  if (loop.found) {
    if (!is(out.input, g.call)) return std::nullopt;
  } else if (is(out.input, g.identifier)) {
    const auto [scope, binding] = r.lookup(r.text(out.input));
    if (binding == nullptr || scope != r.scope()) return std::nullopt;
    if (!binding->simple()) {
      // `for X, y in train_iter: net(X)`: the dataset's tensor, in batches.
      const auto batch = loop_batch(out.input, r, true);
      if (!batch) return std::nullopt;
      if (!ts_node_is_null(batch->dataset) && !(out.dataset = dataset_batch_source(*batch, r))) return std::nullopt;
      out.input = strip(batch->tensor);
      if (!ts_node_is_null(batch->batch_size))
        if (const auto b = integer_of(batch->batch_size, r); b && b->value > 0) out.batch_size = b->value;
    }
  } else if (!is(out.input, g.call)) {
    return std::nullopt;
  }
  return out;
}

// A Keras Sequential without an input shape, built on its first call (`model(tf.zeros([1, 4, 4,
// 3]))`: measured, the same ValueError); one with an Input is read where it is built.
bool keras_first_call(ChainStart& out, const ShapeSource& source, TSNode callee, Resolver& r) {
  const Grammar& g = Grammar::get();
  const std::vector<std::int64_t>& dims = source.dims;
  if (std::find(dims.begin(), dims.end(), 0) != dims.end()) return false;  // a torchvision transform
  const TSNode first = strip(out.layers.front().construction);
  if (!is(first, g.call)) return false;
  const std::string first_name = keras_name(qualified(field(first, g.f_function), r));
  if (one_of(first_name, {"keras.Input", "keras.layers.Input", "keras.layers.InputLayer"})) return false;
  const CallArgs first_args = collect_args(field(first, g.f_arguments), r.source());
  for (const auto& [key, value] : first_args.keywords)
    if (key == "input_shape" || key == "input_dim") return false;
  // The batch axis, then the rest as Keras reads an Input's shape.
  out.fact.framework = "keras";
  if (dims.size() < 3) return false;
  if (r.source().find("image_data_format") != std::string_view::npos) return false;
  out.fact.layout = "NHWC";
  for (const BoundLayer& bound : out.layers) {
    const TSNode layer = strip(bound.construction);
    if (!is(layer, g.call)) break;
    const CallArgs a = collect_args(field(layer, g.f_arguments), r.source());
    for (const auto& [key, value] : a.keywords)
      if (key == "data_format")
        if (const auto f = string_literal(strip(value), r.source()); f && *f == "channels_first") out.fact.layout = "NCHW";
  }
  out.batch = dims[0];
  if (out.fact.layout == "NHWC") {
    out.spatial.assign(dims.begin() + 1, dims.end() - 1);
    out.channels = dims.back();
  } else {
    out.spatial.assign(dims.begin() + 2, dims.end());
    out.channels = dims[1];
  }
  out.fact.source_text = source.text;
  out.fact.source = source.where[1];
  for (std::size_t i = 1; i < dims.size(); ++i)
    for (const auto& step : source.provenance[i]) out.fact.source_provenance.push_back(step);
  out.fact.model_text = short_text(r.text(callee));
  return true;
}

// A PyTorch stack's input: (N, C, spatial...) batched, or (C, spatial...) unbatched; the first
// convolution decides.
bool torch_call(ChainStart& out, const ShapeSource& source, TSNode callee, Resolver& r) {
  const Grammar& g = Grammar::get();
  const std::vector<std::int64_t>& dims = source.dims;
  out.fact.framework = "torch";
  out.fact.layout = "NCHW";
  const TSNode first = strip(out.layers.front().construction);
  const ApiEntry* first_api = is(first, g.call) ? r.table().find(qualified(field(first, g.f_function), r)) : nullptr;
  if (first_api == nullptr || first_api->family != kConvolutionFamily) return false;
  const auto axes = static_cast<std::size_t>(first_api->spatial_dims);
  if (dims.size() == axes + 2) {
    out.batch = dims[0];
    out.channels = dims[1];
  } else if (dims.size() == axes + 1) {
    out.channels = dims[0];
  } else {
    return false;
  }
  out.spatial.assign(dims.end() - static_cast<std::ptrdiff_t>(axes), dims.end());
  out.fact.source_text = source.text;
  out.fact.source = source.where[dims.size() - axes];  // the first spatial size, where it is written
  for (std::size_t i = dims.size() - axes; i < dims.size(); ++i)
    for (const auto& step : source.provenance[i]) out.fact.source_provenance.push_back(step);
  out.fact.model_text = short_text(r.text(callee));
  return true;
}

std::optional<ChainStart> model_call_start(TSNode call, TSNode callee, Resolver& r) {
  auto model = model_call(call, callee, r);
  if (!model) return std::nullopt;
  auto source = model->dataset ? std::move(model->dataset) : torch_shape_source(model->input, r);
  if (!source || source->dims.size() < 3) return std::nullopt;
  if (model->batch_size && *model->batch_size < source->dims[0]) source->dims[0] = *model->batch_size;
  ChainStart out;
  out.fact.call = r.locate(call);
  out.layers = std::move(model->layers);
  // A Keras Sequential is built on its first call, with that tensor's shape (tf_shapes.py).
  out.symbolic_keras = model->stack == "keras";
  const bool started = model->stack == "keras" ? keras_first_call(out, *source, callee, r)
                                               : torch_call(out, *source, callee, r);
  if (!started) return std::nullopt;
  return out;
}

}  // namespace

void ShapeChainExtractor::on_other_call(TSNode call, Resolver& r) {
  const Grammar& g = Grammar::get();
  if (!names_sequential_) {
    names_sequential_ = r.source().find("Sequential") != std::string_view::npos;
    names_input_ = r.source().find("Input(") != std::string_view::npos;
    // A PyTorch module's forward, or a Keras model's or layer's call.
    names_forward_ = r.source().find("def forward") != std::string_view::npos ||
                     r.source().find("def call(") != std::string_view::npos;
  }
  if (!*names_sequential_ && !*names_input_ && !*names_forward_) return;
  // What the region planner parses for this family (a function or a method, or the module's
  // statements, holding both `Sequential` and a size source; never a class body as a whole): read
  // the same here, so that the facts do not depend on how much of the file is parsed. Stacks built
  // in a class body's own statements are not read.
  if (r.scope() != nullptr && r.scope()->kind == Scope::Kind::Class) return;
  const TSNode callee = strip(field(call, g.f_function));
  // A Keras model class of the module applied in a functional graph (`x = Block()(x)` after
  // `keras.Input(...)`): its layers are the graph's.
  if (*names_input_ && is(callee, g.call) && !ts_node_is_null(keras_class_built(callee, r))) functional(call, r);
  // A Keras block helper of the module applied in a functional graph (`x = fire_module(x, 2)`).
  if (*names_input_ && !ts_node_is_null(module_function(callee, r))) functional(call, r);
  if (*names_forward_ && model_class_call(call, callee, r)) return;
  if (!*names_sequential_ && !*names_input_) return;
  // keras.Sequential([...]) itself, nn.Sequential(...)(x), or model(x) with model a name.
  if (is(callee, g.call)) {
    if (!ends_with_sequential(r.text(field(callee, g.f_function)))) {
      functional(call, r);
      return;
    }
  } else if ((is(callee, g.identifier) || is(callee, g.attribute)) && *names_sequential_) {
    if (!ends_with_sequential(r.text(callee))) {
      // model(x): the name's one binding in its scope must be `model = ...Sequential(...)`. A name
      // bound more than once is not followed (definition_of would, at a cost paid on every call).
      if (!is(callee, g.identifier)) return;
      const auto [scope, binding] = r.lookup(r.text(callee));
      if (binding == nullptr || scope != r.scope()) return;
      if (!binding->simple()) {
        // `for layer in net: x = layer(x)`: read below.
        const TSNode parent = ts_node_parent(call);
        if (!is(parent, g.assignment)) return;
      } else {
        const TSNode value = strip(binding->value);
        if (!is(value, g.call) || (!ends_with_sequential(r.text(field(value, g.f_function))) &&
                                   !builds_stack(value, r) && ts_node_is_null(keras_class_built(value, r))))
          return;
      }
    }
  } else {
    return;
  }
  const std::string name = qualified(callee, r);
  auto start = framework_of_sequential(name) == "keras" ? keras_sequential_start(call, callee, r)
                                                          : model_call_start(call, callee, r);
  if (!start) return;
  ShapeChainFact& fact = start->fact;
  std::vector<std::int64_t>& spatial = start->spatial;
  std::int64_t channels = start->channels;
  const std::int64_t batch = start->batch;
  const std::vector<BoundLayer>& layers = start->layers;
  const std::size_t first_layer = start->first_layer;
  fact.input_spatial = spatial;
  ChainBuilder chain(fact, r);
  if (start->symbolic_keras) chain.symbolic_keras_graph();
  for (std::size_t i = first_layer; i < layers.size(); ++i)
    if (!chain.step(layers[i], spatial, channels, batch)) break;
  if (!fact.steps.empty()) ++r.out().tracked.shape_chains;
  if (fact.rejected_by.empty()) return;
  r.out().shape_chains.push_back(std::move(fact));
}

// `F.conv2d(torch.randn(1, 3, 4, 4), torch.randn(8, 3, 5, 5))`, `tf.nn.conv2d(x, w, 1, "VALID")`
// with x and w literal-shaped (inline, or names bound once in the same scope): one convolution
// whose input and kernel sizes the code fixes.
void ShapeChainExtractor::on_use(const ApiUse& use, Resolver& r) {
  const Grammar& g = Grammar::get();
  if (use.origin != "call" || use.args.positional.size() < 2 || (use.args.first_star >= 0 && use.args.first_star < 2))
    return;
  // A class body runs once, at the definition; a method's literal-shaped tensors are read as a
  // function's are.
  if (r.scope() != nullptr && r.scope()->kind == Scope::Kind::Class) return;
  const bool torch = use.api.framework == "torch";
  if (!torch && use.api.framework != "tensorflow") return;
  std::vector<std::vector<std::int64_t>> shapes;
  std::string input_text, ignored;
  TSNode input_node{};
  for (std::size_t i = 0; i < 2; ++i) {
    const TSNode node = strip(use.args.positional[i]);
    if (is(node, g.identifier)) {
      const auto [scope, binding] = r.lookup(r.text(node));
      if (binding == nullptr || !binding->simple() || scope != r.scope()) return;
    } else if (!is(node, g.call)) {
      return;
    }
    const auto shape = literal_shape(node, r, i == 0 ? input_text : ignored);
    std::vector<std::int64_t> dims;
    for (const auto& v : shape) {
      if (!v || v->value <= 0) return;
      dims.push_back(v->value);
    }
    if (i == 0 && !shape.empty()) input_node = node;
    shapes.push_back(std::move(dims));
  }
  ConvGeometryFact conv = conv_geometry_of(use.api, use.args, use.shift, use.site, r);
  const auto axes = static_cast<std::size_t>(use.api.spatial_dims);
  const auto& x = shapes[0];
  const auto& w = shapes[1];
  if (axes == 0 || w.size() != axes + 2 || (x.size() != axes + 2 && !(torch && x.size() == axes + 1))) return;
  std::vector<std::int64_t> spatial, kernel;
  std::int64_t batch = 1, channels = 0, out_channels = 0;
  std::string layout = torch ? "NCHW" : (conv.layout == "NCHW" ? "NCHW" : "NHWC");
  if (torch) {
    if (x.size() == axes + 2) batch = x[0];
    channels = x[x.size() - axes - 1];
    spatial.assign(x.end() - static_cast<std::ptrdiff_t>(axes), x.end());
    out_channels = w[0];
    kernel.assign(w.begin() + 2, w.end());
  } else {
    batch = x[0];
    if (layout == "NHWC") {
      spatial.assign(x.begin() + 1, x.end() - 1);
      channels = x.back();
    } else {
      spatial.assign(x.begin() + 2, x.end());
      channels = x[1];
    }
    kernel.assign(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(axes));  // filters: (kH, kW, in, out)
    out_channels = w.back();
  }
  // TensorFlow's dilations default to None: 1 on every axis.
  if (!torch && conv.dilation.empty() && use.args.positional.size() < 6 &&
      std::none_of(use.args.keywords.begin(), use.args.keywords.end(), [](const auto& kw) { return kw.first == "dilations"; }))
    conv.dilation.assign(axes, IntegerValue{1, "default", conv.call, {}});
  // TensorFlow's 4-element strides ([1, s_h, s_w, 1] in NHWC): the spatial ones.
  if (!torch && conv.stride.empty()) {
    const TSNode strides = argument(use.args, 2, "strides");
    const auto all = per_axis(strides, static_cast<int>(axes) + 2, r);
    if (all.size() == axes + 2 && all.front() == 1 && all.back() == 1 && layout == "NHWC")
      for (std::size_t a = 0; a < axes; ++a) conv.stride.push_back(IntegerValue{all[a + 1], std::to_string(all[a + 1]), conv.call, {}});
  }
  if (conv.stride.size() != axes || conv.dilation.size() != axes) return;
  std::vector<std::int64_t> pads(axes, 0), next(axes);
  const bool same = conv.padding_mode == "same";
  if (conv.padding_mode == "explicit") {
    for (std::size_t a = 0; a < axes; ++a) {
      if (a >= conv.padding.size() || !conv.padding[a] || conv.padding[a]->value < 0) return;
      pads[a] = conv.padding[a]->value;
    }
  } else if (!same && conv.padding_mode != "valid") {
    return;
  }
  if (same) return;  // 'same' keeps at least 1 on every axis
  std::vector<std::int64_t> strides(axes), extent(axes);
  for (std::size_t a = 0; a < axes; ++a) {
    if (!conv.stride[a] || !conv.dilation[a] || conv.stride[a]->value <= 0 || conv.dilation[a]->value <= 0) return;
    strides[a] = conv.stride[a]->value;
    extent[a] = conv.dilation[a]->value * (kernel[a] - 1) + 1;
    next[a] = floor_div(spatial[a] + 2 * pads[a] - extent[a], strides[a]) + 1;
  }
  // PyTorch refuses an output below 1; TensorFlow only a negative one (an output of 0 is an empty
  // tensor: measured with a 2x2 input and a 3x3 filter, VALID).
  const std::int64_t refused_below = torch ? 1 : 0;
  if (std::none_of(next.begin(), next.end(), [&](std::int64_t v) { return v < refused_below; })) return;
  ShapeChainFact fact;
  fact.framework = torch ? "torch" : "tensorflow";
  fact.call = r.locate(use.site);
  fact.model_text = use.spelled;
  fact.source_text = input_text;
  fact.source = r.locate(input_node);
  fact.layout = layout;
  fact.input_spatial = spatial;
  ShapeStep step;
  step.label = "conv " + sizes_text(kernel) + "/" + uniform_text(strides) + (conv.padding_mode == "valid" ? " valid" : "");
  std::vector<std::int64_t> dilations;
  for (const auto& d : conv.dilation) dilations.push_back(d->value);
  step.label += padding_dilation_text(pads, dilations);
  step.text = short_text(r.text(use.site));
  step.where = r.locate(use.site);
  step.output = next;
  fact.steps.push_back(std::move(step));
  fact.rejected_by = "conv";
  fact.channels = channels;
  for (std::size_t a = 0; a < axes; ++a) {
    fact.padded_input.push_back(spatial[a] + 2 * pads[a]);
    fact.kernel_extent.push_back(extent[a]);
  }
  conv.api = use.spelled;
  conv.spelled_as = use.spelled;
  conv.kernel.clear();
  for (const auto k : kernel) conv.kernel.push_back(IntegerValue{k, std::to_string(k), fact.source, {}});
  conv.in_channels = IntegerValue{channels, std::to_string(channels), fact.source, {}};
  conv.out_channels = IntegerValue{out_channels, std::to_string(out_channels), fact.source, {}};
  if (conv.padding_mode == "valid") conv.padding.assign(axes, IntegerValue{0, "0", fact.source, {}});
  conv.input.clear();
  conv.input.push_back(IntegerValue{batch, std::to_string(batch), fact.source, {}});
  conv.input.push_back(IntegerValue{channels, std::to_string(channels), fact.source, {}});
  for (const auto v : spatial) conv.input.push_back(IntegerValue{v, std::to_string(v), fact.source, {}});
  conv.input_set_by = input_text;
  fact.conv = std::move(conv);
  r.out().shape_chains.push_back(std::move(fact));
}

void ShapeChainExtractor::functional(TSNode call, Resolver& r) {
  const Grammar& g = Grammar::get();
  if (!*names_input_) return;
  const TSNode layer = strip(field(call, g.f_function));
  // Only where the chain can end: a convolution or a pooling layer applied here, or a model class
  // of the module whose call applies one last.
  auto ends_a_chain = [&](TSNode construction) {
    const std::string name = keras_name(qualified(field(construction, g.f_function), r));
    if (!name.starts_with("keras.layers.")) return false;
    const ApiEntry* api = r.table().find(qualified(field(construction, g.f_function), r));
    return (api != nullptr && api->family == kConvolutionFamily) || pooling(name, "keras").has_value();
  };
  // Whether a layer of `inner`, or of a merge's branch, may end a chain.
  auto may_end = [&](auto&& self, const std::vector<BoundLayer>& inner) -> bool {
    return std::any_of(inner.begin(), inner.end(), [&](const BoundLayer& l) {
      if (l.branches.empty()) return ends_a_chain(strip(l.construction));
      return std::any_of(l.branches.begin(), l.branches.end(),
                         [&](const std::vector<BoundLayer>& branch) { return self(self, branch); });
    });
  };
  std::size_t own = 1;  // the layers this application applies: the last of the graph's
  const bool applies_block = is(layer, g.identifier);  // a block helper of the module
  const TSNode model = applies_block ? TSNode{} : keras_class_built(layer, r);
  if (applies_block) {
    const auto inner = keras_block_layers(call, r);
    if (!inner || inner->empty() || !may_end(may_end, *inner)) return;
    own = inner->size();
  } else if (!ts_node_is_null(model)) {
    const std::vector<BoundLayer> inner = keras_class_layers(model, r);
    if (inner.empty() || !may_end(may_end, inner)) return;
    own = inner.size();
  } else if (!ends_a_chain(layer)) {
    return;
  }
  std::vector<BoundLayer> layers;
  TSNode input{};
  if (!functional_layers(call, layers, input, r) || ts_node_is_null(input) || layers.empty()) return;
  ShapeChainFact fact;
  fact.framework = "keras";
  fact.call = r.locate(call);
  const CallArgs input_args = collect_args(field(input, g.f_arguments), r.source());
  const TSNode shape = argument(input_args, 0, "shape");
  std::vector<std::int64_t> spatial;
  std::int64_t channels = 0;
  if (!keras_start(shape, layers, 0, fact, spatial, channels, r)) return;
  fact.source_text = short_text(r.text(input));
  fact.source = r.locate(strip(shape));
  fact.model_text = "the functional model";
  fact.input_spatial = spatial;
  ChainBuilder chain(fact, r);
  chain.symbolic_keras_graph();  // built on keras.Input
  for (const BoundLayer& l : layers)
    if (!chain.step(l, spatial, channels, 1)) break;
  // Each convolution or pooling application of a functional graph that its chain reaches.
  if (fact.steps.size() == layers.size()) ++r.out().tracked.shape_chains;
  // Reported at the application that rejects its input, once: a later application whose chain
  // runs through it stops there.
  if (fact.rejected_by.empty() || fact.steps.size() + own <= layers.size()) return;
  // A class applied several times is at fault where it is applied to too small an input: reported
  // there, its layer named in the message.
  if (!ts_node_is_null(model) || applies_block) fact.steps.back().where = fact.call;
  r.out().shape_chains.push_back(std::move(fact));
}

// The Keras layers a functional graph runs through without a size of its own to check.
static std::vector<std::string> keras_pass_through_words() {
  std::vector<std::string> words = keras_size_keeping_layers();
  words.insert(words.end(), keras_merge_layers().begin(), keras_merge_layers().end());
  return words;
}

// The shape family's words: a stack of layers (`Sequential`) and a size source
// (`torch.randn(1, 3, 4, 4)`, `keras.Input(shape=...)`, `input_shape=`, a torchvision crop or
// resize, a dataset of the API table's) in one function, or in the module's statements together.
// The extractor reads nothing else (a stack and its input in one scope, not in a class), so these
// are all the planner must parse.
ExtractorRelevance ShapeChainExtractor::relevance(const ApiTable& table) {
  ExtractorRelevance out;
  std::vector<std::string> datasets;  // "MNIST", "CIFAR10"
  for (const std::string& name : table.dataset_names()) {
    std::string leaf = name.substr(name.rfind('.') + 1);
    if (std::find(datasets.begin(), datasets.end(), leaf) == datasets.end()) datasets.push_back(std::move(leaf));
  }
  std::vector<std::string> sequential_sources = {"randn", "rand", "zeros", "ones", "empty", "normal", "uniform",
                                                 "Input", "InputLayer", "input_shape", "CenterCrop", "RandomCrop",
                                                 "RandomResizedCrop", "Resize"};
  sequential_sources.insert(sequential_sources.end(), datasets.begin(), datasets.end());
  out.pairs.push_back({.first = {"Sequential"}, .second = std::move(sequential_sources), .init_counts = false});
  // Keras functional graphs: `keras.Input(shape=...)` and the layers applied to it, in one function;
  // a Keras model class of the module building such layers stands for them where it is applied.
  out.pairs.push_back({.first = {"Input"},
                               .second = {"Conv1D", "Conv2D", "Conv3D", "Convolution1D", "Convolution2D", "Convolution3D",
                                "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "MaxPool1D", "MaxPool2D", "MaxPool3D",
                                "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "AvgPool1D", "AvgPool2D",
                                "AvgPool3D"},
                               .second_classes = true, .init_counts = false,
                               // A block helper or a layer class applying only these (`bn_relu(x)`) is
                               // on the graph's way too (KerasBlockReader, keras_class_layers).
                               .helper_words = keras_pass_through_words(), .helper_classes = true});
  // Functional convolutions on literal-shaped tensors: `F.conv2d(torch.randn(...), torch.randn(...))`.
  out.pairs.push_back({.first = {"conv1d", "conv2d", "conv3d"},
                               .second = {"randn", "rand", "zeros", "ones", "empty", "normal", "uniform"},
                               .init_counts = false});
  // A model class of the module run on a literal-shaped tensor (`net = Net(); net(torch.randn(...))`,
  // `torch.onnx.export(net, x, ...)`): a class building convolutions or pools stands for the second
  // half where its name is used, and is then parsed whole (its __init__ and forward). In a method
  // other than __init__ (a trainer's or a test case's), the class must be constructed there.
  std::vector<std::string> class_sources = {"randn", "rand", "randint", "zeros", "ones", "empty", "normal", "uniform",
                                            "CenterCrop", "RandomCrop", "RandomResizedCrop", "Resize"};
  class_sources.insert(class_sources.end(), datasets.begin(), datasets.end());
  out.pairs.push_back({.first = std::move(class_sources),
                               .second = {"Conv1d", "Conv2d", "Conv3d", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d",
                                "AvgPool2d", "AvgPool3d", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d",
                                "avg_pool2d", "avg_pool3d", "Conv1D", "Conv2D", "Conv3D", "Convolution1D",
                                "Convolution2D", "Convolution3D", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D",
                                "MaxPool1D", "MaxPool2D", "MaxPool3D", "AveragePooling1D", "AveragePooling2D",
                                "AveragePooling3D", "AvgPool1D", "AvgPool2D", "AvgPool3D"},
                               .second_classes = true, .second_only_through_classes = true,
                       .second_called_in_methods = true, .init_counts = false});
  // Read from the whole text: whether the file spells a stack, an Input or a forward at all, and
  // Keras's image data format.
  out.whole_text_words = {"Sequential", "Input(", "def forward", "def call(", "image_data_format"};
  return out;
}

}  // namespace cudnnlint::python