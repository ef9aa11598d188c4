#include "python/extract/model_forward.h"

#include "python/extract/local_values.h"
#include "python/extract/shape_steps.h"
#include "python/extract/transform_sizes.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

namespace cudnnlint::python {

namespace {

constexpr int kMaxExpressionDepth = 64;

// A parameter's name (`x` or `x: torch.Tensor`); empty for defaults, *args and the rest.
std::string_view parameter_name(TSNode parameter, Resolver& r) {
  const Grammar& g = Grammar::get();
  if (is(parameter, g.identifier)) return r.text(parameter);
  if (is(parameter, g.typed_parameter) && ts_node_named_child_count(parameter) > 0 &&
      is(ts_node_named_child(parameter, 0), g.identifier))
    return r.text(ts_node_named_child(parameter, 0));
  return {};
}

// What a model class holds that the reader needs, or nullopt when the class is not one it can read.
struct ModelClass {
  std::string framework;  // "torch" (nn.Module, forward) or "keras" (keras.Model or Layer, call)
  const Scope* init_scope = nullptr;
  const Scope* forward_scope = nullptr;
  TSNode forward_body{};
  std::string_view self_name;  // forward's first parameter
  std::string_view input;      // forward's second
  struct Layer {
    TSNode construction;  // `nn.Conv2d(3, 6, 5)`
    TSNode assignment;    // `self.conv1 = nn.Conv2d(3, 6, 5)`
    // What it holds as __init__ builds it: the layers of an nn.Sequential (built by code or by a
    // project function too), or the one layer.
    std::vector<BoundLayer> layers;
  };
  std::unordered_map<std::string_view, Layer> layers;  // self attributes assigned once, in __init__
  int axes = 0;  // the spatial axes of its convolutions and pools (all the same)
  // Its __init__ parameters as its construction binds them (`DoubleConv(base, base * 2)` inside
  // another model class); null for the model the code runs.
  std::shared_ptr<const ConstantBindings> init_bindings;
  TSNode construction{};  // the call that builds it, when known (its class and list arguments)
};

constexpr int kMaxNestedClasses = 3;
constexpr int kMaxClosureDepth = 3;  // closures in closures forward calls
constexpr std::size_t kMaxLoopLayers = 64;  // layers a loop over a stack in forward is read for

// `DoubleConv(64, 128)`: the class definition when `construction` builds a model class of this
// module; null otherwise.
TSNode nested_class_of(TSNode construction, Resolver& r) {
  return module_definition_called(strip(construction), Grammar::get().class_definition, r);
}

// The same for a layer of a stack, whose callee the run may have bound to a class (`block(...)`).
TSNode nested_class_of(const BoundLayer& layer, Resolver& r) {
  return ts_node_is_null(layer.class_definition) ? nested_class_of(layer.construction, r) : layer.class_definition;
}

// The numbers a construction of `class_definition` gives its __init__'s parameters (the call's
// arguments folded where it is written, else the defaults); null when the class has no plain
// __init__.
std::shared_ptr<const ConstantBindings> init_parameters(TSNode class_definition, TSNode call, Resolver& r) {
  const Grammar& g = Grammar::get();
  TSNode init{};
  for (const TSNode member : named_children(field(class_definition, g.f_body)))
    if (is(member, g.function_definition) && r.text(field(member, g.f_name)) == "__init__") init = member;
  const Scope* scope = ts_node_is_null(init) ? nullptr : r.scope_of(init);
  if (scope == nullptr || scope->has_var_args || scope->has_var_keywords) return nullptr;
  const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
  if (args.first_star >= 0 || args.has_double_star) return nullptr;
  auto out = std::make_shared<ConstantBindings>();
  out->scope = scope;
  for (const Parameter& p : scope->parameters) {
    if (p.kind != Parameter::Kind::Normal) continue;
    const TSNode value = argument_for_parameter(args, p);
    std::optional<ConstantValue> folded;
    if (!ts_node_is_null(value)) {
      folded = r.fold(value);
    } else if (!ts_node_is_null(p.default_value)) {
      Resolver::ScopeVisit at_module(r, scope->parent != nullptr ? scope->parent->parent : nullptr);
      folded = r.fold(p.default_value);
    }
    if (folded) out->values.emplace_back(p.name, std::move(*folded));
  }
  return out;
}

// The spatial axes of one layer (0 for a layer that keeps the size or is not known).
int layer_axes(TSNode construction, Resolver& r) {
  const Grammar& g = Grammar::get();
  construction = strip(construction);
  if (!is(construction, g.call)) return 0;
  const std::string name = qualified(field(construction, g.f_function), r);
  if (const ApiEntry* api = r.table().find(name); api != nullptr && api->family == kConvolutionFamily && api->is_class)
    return api->spatial_dims;
  if (const auto pool = pooling(name, "torch")) return pool->axes;
  if (const auto pool = pooling(keras_name(name), "keras")) return pool->axes;
  return 0;
}

// The spatial axes `layers` work on (0 when none of them changes a size the reader knows); -1 when
// they mix them.
int axes_of(const std::vector<BoundLayer>& layers, Resolver& r) {
  int axes = 0;
  for (const BoundLayer& layer : layers) {
    std::optional<Resolver::ScopeVisit> in_scope;
    if (layer.scope != nullptr && layer.scope != r.scope()) in_scope.emplace(r, layer.scope);
    const int inner = layer_axes(layer.construction, r);
    if (inner == 0) continue;
    if (axes != 0 && axes != inner) return -1;
    axes = inner;
  }
  return axes;
}

// Module methods that return the module itself, its layers' geometry unchanged.
bool keeps_module_geometry(std::string_view method) {
  for (const char* keeps : {"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "train", "eval",
                            "requires_grad_"})
    if (method == keeps) return true;
  return false;
}

// "torch" for a class whose one base is torch.nn.Module, "keras" for keras.Model or
// keras.layers.Layer (however Keras is reached); "" otherwise.
std::string model_class_framework(TSNode class_definition, Resolver& r) {
  const Grammar& g = Grammar::get();
  const Scope* class_scope = r.scope_of(class_definition);
  if (class_scope == nullptr || class_scope->parent == nullptr) return {};
  const TSNode bases = field(class_definition, g.f_superclasses);
  if (ts_node_is_null(bases) || ts_node_named_child_count(bases) != 1) return {};
  Resolver::ScopeVisit at_module(r, class_scope->parent);
  const std::string base = qualified(ts_node_named_child(bases, 0), r);
  if (base == "torch.nn.Module") return "torch";
  const std::string keras = keras_name(base);
  if (keras == "keras.Model" || keras == "keras.models.Model" || keras == "keras.layers.Layer") return "keras";
  return {};
}

std::optional<ModelClass> read_class(TSNode class_definition, Resolver& r,
                                     std::shared_ptr<const ConstantBindings> init_bindings = nullptr, int depth = 0,
                                     TSNode construction = {});

// The spatial axes of a model class of this module that `layer` builds (0 when none).
int nested_axes(const BoundLayer& layer, Resolver& r, int depth) {
  const TSNode definition = nested_class_of(layer, r);
  if (ts_node_is_null(definition) || depth >= kMaxNestedClasses) return 0;
  const auto nested = read_class(definition, r, nullptr, depth + 1);
  return nested ? nested->axes : 0;
}

// The statements a body runs once, in order (python/syntax.h straight_line_statements), with the
// body of a closure it defines and then calls without arguments (`def build(): ...` then
// `build()` or `return build()`) read where the call stands.
std::vector<TSNode> statements_run(TSNode body, Resolver& r, int depth = 0) {
  const Grammar& g = Grammar::get();
  std::vector<TSNode> out;
  std::unordered_map<std::string_view, TSNode> closures;
  for (const TSNode statement : straight_line_statements(body, r.source())) {
    if (is(statement, g.function_definition)) {
      const TSNode parameters = field(statement, g.f_parameters);
      if (ts_node_is_null(parameters) || ts_node_named_child_count(parameters) == 0)
        closures[r.text(field(statement, g.f_name))] = statement;
      continue;
    }
    TSNode call{};
    if ((is(statement, g.expression_statement) || is(statement, g.return_statement)) &&
        ts_node_named_child_count(statement) == 1)
      call = strip(ts_node_named_child(statement, 0));
    if (is(call, g.call) && is(strip(field(call, g.f_function)), g.identifier) &&
        ts_node_named_child_count(field(call, g.f_arguments)) == 0 && depth < 3)
      if (const auto closure = closures.find(r.text(strip(field(call, g.f_function)))); closure != closures.end()) {
        for (const TSNode inner : statements_run(field(closure->second, g.f_body), r, depth + 1)) out.push_back(inner);
        continue;
      }
    out.push_back(statement);
  }
  return out;
}

std::optional<ModelClass> read_class(TSNode class_definition, Resolver& r,
                                     std::shared_ptr<const ConstantBindings> init_bindings, int depth,
                                     TSNode construction) {
  const Grammar& g = Grammar::get();
  const Scope* class_scope = r.scope_of(class_definition);
  if (class_scope == nullptr || class_scope->parent == nullptr || class_scope->parent->kind != Scope::Kind::Module)
    return std::nullopt;
  // Hooks and dynamic registration change what forward does or which modules exist.
  const std::string_view text = r.text(class_definition);
  for (const char* dynamic : {"register_forward", "add_module", "register_module", "setattr(", "__call__", "__getattr__"})
    if (text.find(dynamic) != std::string_view::npos) return std::nullopt;
  const std::string framework = model_class_framework(class_definition, r);
  if (framework.empty()) return std::nullopt;
  ModelClass model;
  model.framework = framework;
  const std::string_view applies = framework == "torch" ? "forward" : "call";
  model.init_bindings = std::move(init_bindings);
  model.construction = construction;
  TSNode init{}, forward{};
  const TSNode body = field(class_definition, g.f_body);
  for (const TSNode member : named_children(body)) {
    TSNode definition = member;
    if (is(member, g.decorated_definition) && ts_node_named_child_count(member) > 0)
      definition = ts_node_named_child(member, ts_node_named_child_count(member) - 1);
    if (!is(definition, g.function_definition)) continue;
    const std::string_view name = r.text(field(definition, g.f_name));
    if (name != "__init__" && name != applies) continue;
    if (is(member, g.decorated_definition)) return std::nullopt;
    TSNode& slot = name == "__init__" ? init : forward;
    if (!ts_node_is_null(slot)) return std::nullopt;  // defined twice: the last one wins at run time
    slot = definition;
  }
  if (ts_node_is_null(init) || ts_node_is_null(forward)) return std::nullopt;
  // forward(self, x) (Keras: call(self, x, training=False)), and parameters after x only with
  // defaults or as `*args` / `**kwargs` (a run on one tensor leaves them so).
  const TSNode parameters = field(forward, g.f_parameters);
  if (ts_node_named_child_count(parameters) < 2) return std::nullopt;
  for (uint32_t i = 2; i < ts_node_named_child_count(parameters); ++i) {
    const TSNode extra = ts_node_named_child(parameters, i);
    if (!is(extra, g.default_parameter) && !is(extra, g.typed_default_parameter) &&
        !is(extra, g.list_splat_pattern) && !is(extra, g.dictionary_splat_pattern))
      return std::nullopt;
  }
  model.self_name = parameter_name(ts_node_named_child(parameters, 0), r);
  model.input = parameter_name(ts_node_named_child(parameters, 1), r);
  const TSNode init_parameters = field(init, g.f_parameters);
  if (model.self_name.empty() || model.input.empty() || ts_node_named_child_count(init_parameters) == 0 ||
      parameter_name(ts_node_named_child(init_parameters, 0), r) != model.self_name)
    return std::nullopt;
  model.init_scope = r.scope_of(init);
  model.forward_scope = r.scope_of(forward);
  model.forward_body = field(forward, g.f_body);
  if (model.init_scope == nullptr || model.forward_scope == nullptr) return std::nullopt;
  // Self attributes, counted over the whole class (any method may reassign one).
  std::map<std::string_view, int> assignments;
  walk_tree(
      body,
      [&](TSNode node, const TSTreeCursor*) {
        if (!is(node, g.assignment) && !is(node, g.augmented_assignment)) return true;
        walk_tree(
            field(node, g.f_left),
            [&](TSNode target, const TSTreeCursor*) {
              if (is(target, g.attribute) && r.text(strip(field(target, g.f_object))) == model.self_name)
                ++assignments[r.text(field(target, g.f_attribute))];
              return true;
            },
            [](TSNode) {});
        return true;
      },
      [](TSNode) {});
  // The layers: `self.name = <call>` among the statements __init__ runs once each (not under an if
  // or a loop; inside a with block or a re-raising try, yes).
  const TSNode init_body = field(init, g.f_body);
  Resolver::ScopeVisit in_init(r, model.init_scope);
  const InitSeed seed{model.init_bindings.get(), model.construction};
  for (const TSNode statement : statements_run(init_body, r)) {
    if (!is(statement, g.expression_statement) || ts_node_named_child_count(statement) != 1) continue;
    const TSNode assignment = ts_node_named_child(statement, 0);
    if (!is(assignment, g.assignment)) continue;
    const TSNode left = field(assignment, g.f_left);
    TSNode right = strip(field(assignment, g.f_right));
    // `nn.Conv2d(1, 32, 3).to(device)`: moving or converting a module keeps its geometry.
    for (int depth = 0; depth < 4 && is(right, g.call); ++depth) {
      const TSNode function = strip(field(right, g.f_function));
      if (!is(function, g.attribute) || !keeps_module_geometry(r.text(field(function, g.f_attribute)))) break;
      const TSNode object = strip(field(function, g.f_object));
      if (!is(object, g.call)) break;
      right = object;
    }
    if (!is(right, g.call)) continue;
    // `self.name = <call>`, or `self.features, channels = make_backbone()` (one target per element).
    const bool unpacks = is(left, g.pattern_list) || is(left, g.tuple_pattern);
    const std::vector<TSNode> targets = unpacks ? named_children(left) : std::vector<TSNode>{left};
    for (std::size_t element = 0; element < targets.size(); ++element) {
      const TSNode target = targets[element];
      if (!is(target, g.attribute) || r.text(strip(field(target, g.f_object))) != model.self_name) continue;
      const std::string_view attribute = r.text(field(target, g.f_attribute));
      if (assignments[attribute] != 1) continue;
      auto layers = unpacks ? unpacked_stack_layers(right, element, targets.size(), r, &seed)
                            : stack_layers(right, r, {}, false, &seed);
      if (!layers || layers->empty()) continue;
      int axes = axes_of(*layers, r);
      // A stack of the module's own blocks (`nn.ModuleList([Block(3, 8), Block(8, 16)])`): theirs.
      for (std::size_t i = 0; axes == 0 && i < layers->size(); ++i) {
        std::optional<Resolver::ScopeVisit> in_scope;
        if ((*layers)[i].scope != nullptr && (*layers)[i].scope != r.scope()) in_scope.emplace(r, (*layers)[i].scope);
        axes = nested_axes((*layers)[i], r, depth);
      }
      model.layers.emplace(attribute, ModelClass::Layer{right, assignment, std::move(*layers)});
      if (axes < 0 || (axes > 0 && model.axes != 0 && model.axes != axes)) return std::nullopt;
      if (axes > 0) model.axes = axes;
    }
  }
  if (model.axes == 0) return std::nullopt;
  return model;
}

// PyTorch functions that keep a tensor's size.
bool keeps_size_function(const std::string& name) {
  static const char* const prefixes[] = {"torch.nn.functional.", "torch."};
  for (const char* prefix : prefixes) {
    const std::string_view p(prefix);
    if (!name.starts_with(p)) continue;
    const std::string leaf = name.substr(p.size());
    if (p == "torch.")
      return one_of(leaf, {"relu", "relu_", "sigmoid", "tanh", "selu", "celu", "dropout", "clone"});
    return one_of(leaf, {"relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish", "sigmoid",
                         "tanh", "hardswish", "hardsigmoid", "hardtanh", "softplus", "dropout", "dropout1d",
                         "dropout2d", "dropout3d", "alpha_dropout", "local_response_norm"});
  }
  // TensorFlow's and Keras's element-wise activations.
  if (name.starts_with("tensorflow.nn."))
    return one_of(name.substr(14), {"relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "silu", "swish", "sigmoid",
                                    "tanh", "softplus", "dropout"});
  if (const std::string keras = keras_name(name); keras.starts_with("keras.activations."))
    return one_of(keras.substr(18), {"relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "silu", "swish",
                                     "sigmoid", "tanh", "softplus"});
  return one_of(name, {"tensorflow.sigmoid", "tensorflow.tanh", "tensorflow.identity", "tensorflow.math.sigmoid",
                       "tensorflow.math.tanh"});
}

// Tensor methods that keep the size: `x.relu()`, `x.contiguous()`, `x.float()`.
bool keeps_size_method(std::string_view name) {
  for (const char* keeps : {"relu", "sigmoid", "tanh", "contiguous", "float", "half", "double", "clone", "detach",
                            "cuda", "cpu", "to"})
    if (name == keeps) return true;
  return false;
}

// `torch.nn.functional.max_pool2d` and the like.
std::optional<Pool> pooling_function(const std::string& name) {
  const std::string_view prefix = "torch.nn.functional.";
  if (!name.starts_with(prefix)) return std::nullopt;
  const std::string leaf = name.substr(prefix.size());
  for (int axes = 1; axes <= 3; ++axes) {
    const std::string suffix = std::to_string(axes) + "d";
    if (leaf == "max_pool" + suffix) return Pool{axes, true};
    if (leaf == "avg_pool" + suffix) return Pool{axes, false};
  }
  return std::nullopt;
}

// A tensor of known spatial size, and the steps that gave it that size.
struct Flow {
  std::vector<std::int64_t> spatial;
  std::int64_t channels = 0;
  std::int64_t batch = 1;
  bool batched = true;  // (N, C, spatial...); false for (C, spatial...)
  std::vector<ShapeStep> steps;
};

class ForwardReader {
 public:
  ForwardReader(const ModelClass& model, ShapeChainFact base, Resolver& r, int depth = 0)
      : model_(model), base_(std::move(base)), r_(r), depth_(depth) {}

  // What forward returned, when run() read it to a `return` of a tensor whose size it knows.
  std::optional<Flow>& returned() { return returned_; }

  // Reads forward's statements with `input` bound to its parameter; the rejecting chain, if any.
  std::optional<ShapeChainFact> run(Flow input) {
    known_[model_.input] = std::move(input);
    Resolver::ScopeVisit in_forward(r_, model_.forward_scope);
    read_statements(model_.forward_body);
    return std::move(rejected_);
  }

 private:
  // Reads a body's statements in order until a return (its value in returned_), a statement whose
  // effect the reader does not follow, or a rejection. False when it stopped before the end.
  bool read_statements(TSNode body) {
    const Grammar& g = Grammar::get();
    for (const TSNode statement : straight_line_statements(body, r_.source())) {
      if (stopped_ || abandoned_) return false;
      if (is(statement, g.comment) || is(statement, g.nonlocal_statement)) continue;
      if (is(statement, g.expression_statement)) {
        statement_expression(statement);
      } else if (is(statement, g.return_statement)) {
        if (ts_node_named_child_count(statement) > 0) returned_ = evaluate(ts_node_named_child(statement, 0));
        return !stopped_;
      } else if (is(statement, g.function_definition)) {
        // A closure forward calls later (`def inner(): nonlocal x; ...` then `return inner()`).
        const TSNode name = field(statement, g.f_name);
        if (!ts_node_is_null(name)) closures_[r_.text(name)] = statement;
      } else if (r_.text(statement) == "pass" || r_.text(statement).starts_with("assert ")) {
        continue;
      } else if (is(statement, g.for_statement) && !loop_layer_ && unroll_layer_loop(statement)) {
        continue;
      } else if (is(statement, g.if_statement) && merge_branches(statement)) {
        continue;
      } else {
        // A branch, another loop, a raise: what follows may not run, or run more than once.
        return false;
      }
    }
    return !stopped_;
  }

  // `inner()` of a closure defined in forward, with no arguments: its body read where it is
  // called, seeing forward's tensors. Names it binds stay its own unless it declares them nonlocal.
  std::optional<Flow> call_closure(TSNode definition) {
    const Grammar& g = Grammar::get();
    const TSNode parameters = field(definition, g.f_parameters);
    const Scope* scope = r_.scope_of(definition);
    if (closure_depth_ >= kMaxClosureDepth || scope == nullptr ||
        (!ts_node_is_null(parameters) && ts_node_named_child_count(parameters) > 0))
      return std::nullopt;
    std::set<std::string_view> shared;
    for (const TSNode statement : named_children(field(definition, g.f_body)))
      if (is(statement, g.nonlocal_statement))
        for (const TSNode name : named_children(statement)) shared.insert(r_.text(name));
    const auto outer = known_;
    auto outer_returned = std::move(returned_);
    returned_.reset();
    bool completed = false;
    {
      Resolver::ScopeVisit in_closure(r_, scope);
      ++closure_depth_;
      completed = read_statements(field(definition, g.f_body));
      --closure_depth_;
    }
    // What the closure left unread may have changed a shared name: the caller stops there too.
    if (!completed && !stopped_) abandoned_ = true;
    std::optional<Flow> result = std::move(returned_);
    returned_ = std::move(outer_returned);
    auto inner = std::move(known_);
    known_ = outer;
    for (const std::string_view name : shared) {
      if (const auto it = inner.find(name); it != inner.end()) known_.insert_or_assign(name, it->second);
      else known_.erase(name);
    }
    return completed ? std::move(result) : std::nullopt;
  }

 private:
  void statement_expression(TSNode statement) {
    const Grammar& g = Grammar::get();
    for (uint32_t i = 0; i < ts_node_named_child_count(statement) && !stopped_; ++i) {
      const TSNode expression = ts_node_named_child(statement, i);
      if (is(expression, g.assignment)) {
        const TSNode left = field(expression, g.f_left);
        const TSNode right = field(expression, g.f_right);
        if (is(strip(right), g.assignment)) {  // a = b = ...: not read
          forget_names_in(expression);
          continue;
        }
        auto flow = ts_node_is_null(right) ? std::nullopt : evaluate(right);
        if (stopped_) return;
        if (is(left, g.identifier) && flow) known_[r_.text(left)] = std::move(*flow);
        else forget_names_in(left);
      } else if (is(expression, g.augmented_assignment)) {
        const TSNode left = field(expression, g.f_left);
        const auto kept = in_place_result(expression);
        evaluate(field(expression, g.f_right));
        if (stopped_) return;
        forget_names_in(left);
        if (kept) known_[r_.text(left)] = std::move(*kept);
      } else {
        evaluate(expression);
        // `x.unsqueeze_(0)`: a statement may change a tensor in place.
        forget_names_in(expression);
      }
    }
  }

  // `out += self.shortcut(x)` on a tensor of known size: an in-place operation cannot change its
  // target's size (PyTorch raises when the broadcast shape differs), so the residual keeps it.
  std::optional<Flow> in_place_result(TSNode augmented) const {
    const Grammar& g = Grammar::get();
    const TSNode left = field(augmented, g.f_left);
    const std::string_view op = r_.text(field(augmented, g.f_operator));
    if (!is(left, g.identifier) || (op != "+=" && op != "-=" && op != "*=" && op != "/=")) return std::nullopt;
    const auto it = known_.find(r_.text(left));
    if (it == known_.end()) return std::nullopt;
    return it->second;
  }

  // `a + b`, `a * b` of tensors: broadcasting aligns sizes from the last axis, and an axis of
  // size n > 1 meets only n or 1 (anything else raises). Both sides known: their broadcast. One
  // side known: its sizes when all are above 1, whatever the other side is (a residual
  // `out + shortcut(x)`, a gate `x * se(x)`, a scalar); a side of size 1 may be broadcast larger.
  std::optional<Flow> elementwise_result(TSNode binary, int depth) {
    const Grammar& g = Grammar::get();
    auto left = evaluate(field(binary, g.f_left), depth + 1);
    auto right = evaluate(field(binary, g.f_right), depth + 1);
    const std::string_view op = r_.text(field(binary, g.f_operator));
    if (stopped_ || (op != "+" && op != "-" && op != "*" && op != "/")) return std::nullopt;
    if (left && right) return broadcast(*left, *right);
    const auto fixes_size = [](const std::optional<Flow>& side) {
      return side && !side->spatial.empty() &&
             std::all_of(side->spatial.begin(), side->spatial.end(), [](std::int64_t v) { return v > 1; });
    };
    std::optional<Flow> out = fixes_size(left) ? left : fixes_size(right) ? right : std::nullopt;
    if (out && out->channels <= 1) out->channels = 0;
    return out;
  }

  // Two tensors of known sizes broadcast together; nullopt where PyTorch or TensorFlow raises.
  static std::optional<Flow> broadcast(const Flow& a, const Flow& b) {
    if (a.spatial.size() != b.spatial.size() || a.batched != b.batched) return std::nullopt;
    const auto joined = [](std::int64_t x, std::int64_t y) -> std::optional<std::int64_t> {
      if (x == y || y == 1) return x;
      if (x == 1) return y;
      return std::nullopt;
    };
    Flow out = a;
    for (std::size_t i = 0; i < a.spatial.size(); ++i) {
      const auto axis = joined(a.spatial[i], b.spatial[i]);
      if (!axis) return std::nullopt;
      out.spatial[i] = *axis;
    }
    if (a.channels > 0 && b.channels > 0) {
      const auto channels = joined(a.channels, b.channels);
      if (!channels) return std::nullopt;
      out.channels = *channels;
    } else {
      out.channels = 0;
    }
    if (b.spatial != a.spatial) out.steps = a.spatial == out.spatial ? a.steps : b.steps;
    return out;
  }

  // `if self.downsample: residual = self.downsample(x)`: each way through the statement read on
  // its own, as if it ran; afterwards a name keeps a size only where every way gives it that size.
  // A way a layer rejects may never run: it makes no finding, and leaves its names unknown. False
  // (nothing read) when a branch holds more than plain statements (a return, a loop, a raise).
  bool merge_branches(TSNode statement) {
    const Grammar& g = Grammar::get();
    std::vector<TSNode> blocks{field(statement, g.f_consequence)};
    bool has_else = false;
    for (const TSNode clause : named_children(statement)) {
      if (is(clause, g.elif_clause)) blocks.push_back(field(clause, g.f_consequence));
      if (is(clause, g.else_clause)) {
        blocks.push_back(field(clause, g.f_body));
        has_else = true;
      }
    }
    for (const TSNode block : blocks) {
      if (ts_node_is_null(block)) return false;
      for (const TSNode inner : named_children(block))
        if (!is(inner, g.expression_statement) && !is(inner, g.comment) && r_.text(inner) != "pass") return false;
    }
    const auto before = known_;
    std::vector<std::unordered_map<std::string_view, Flow>> ways;
    if (!has_else) ways.push_back(before);  // no branch taken
    for (const TSNode block : blocks) {
      known_ = before;
      for (const TSNode inner : named_children(block))
        if (is(inner, g.expression_statement) && !stopped_) statement_expression(inner);
      if (stopped_) {
        stopped_ = false;
        rejected_.reset();
        known_ = before;
        forget_names_in(block);
      }
      ways.push_back(std::move(known_));
    }
    known_.clear();
    for (const auto& entry : ways.front()) {
      const std::string_view name = entry.first;  // named, not a structured binding: clang 14 captures none
      const Flow& flow = entry.second;
      Flow merged = flow;
      const bool same = std::all_of(ways.begin() + 1, ways.end(), [&](const auto& way) {
        const auto it = way.find(name);
        if (it == way.end() || it->second.spatial != flow.spatial) return false;
        if (it->second.channels != merged.channels) merged.channels = 0;
        return true;
      });
      if (same) known_.emplace(name, std::move(merged));
    }
    return true;
  }

  // `torch.cat([out, x], 1)`: tensors joined along the channels must agree on every other size,
  // so one whose size the reader knows fixes the result's (the channels add up when all are known).
  std::optional<Flow> concatenated(const CallArgs& args, int depth) {
    const Grammar& g = Grammar::get();
    TSNode dim{};
    for (const auto& [key, value] : args.keywords)
      if (key == "dim" || key == "axis") dim = value;
    if (ts_node_is_null(dim) && args.positional.size() == 2) dim = args.positional[1];
    const TSNode tensors = args.positional.empty() ? TSNode{} : strip(args.positional.front());
    if (args.first_star >= 0 || ts_node_is_null(dim) || !(is(tensors, g.list) || is(tensors, g.tuple)))
      return std::nullopt;
    std::vector<std::optional<Flow>> parts;
    for (const TSNode part : named_children(tensors)) {
      if (is(part, g.comment)) continue;
      if (is(part, g.list_splat)) return std::nullopt;
      parts.push_back(evaluate(part, depth + 1));
      if (stopped_) return std::nullopt;
    }
    std::optional<Flow> out;
    std::int64_t channels = 0;
    for (const auto& part : parts) {
      if (!part) {
        channels = -1;
        continue;
      }
      if (!out) out = part;
      else if (part->spatial != out->spatial) return std::nullopt;  // PyTorch raises
      channels = channels < 0 || part->channels <= 0 ? -1 : channels + part->channels;
    }
    if (!out) return std::nullopt;
    const auto axis = r_.fold(dim);
    // The channels' axis: 1 of (N, C, spatial...), 0 of (C, spatial...).
    const double channel_axis = out->batched ? 1 : 0;
    const auto rank = static_cast<double>(out->spatial.size() + (out->batched ? 2 : 1));
    if (!axis || (axis->value != channel_axis && axis->value != channel_axis - rank)) return std::nullopt;
    out->channels = channels > 0 ? channels : 0;
    return out;
  }

  // `out + self.shortcut(x) if self.stride == 1 else out`: whichever side runs, when both give the
  // same size. Each side is read on its own, as if it ran; one that a layer rejects, or that the
  // reader does not follow, leaves the value unknown (that side may never run).
  std::optional<Flow> either_branch(TSNode conditional, int depth) {
    evaluate(ts_node_named_child(conditional, 1), depth + 1);
    if (stopped_) return std::nullopt;
    std::optional<Flow> sides[2];
    for (int side = 0; side < 2; ++side) {
      const auto before = known_;
      sides[side] = evaluate(ts_node_named_child(conditional, side == 0 ? 0 : 2), depth + 1);
      known_ = before;
      if (stopped_) {
        stopped_ = false;
        rejected_.reset();
        return std::nullopt;
      }
    }
    if (!sides[0] || !sides[1] || sides[0]->spatial != sides[1]->spatial) return std::nullopt;
    if (sides[0]->channels != sides[1]->channels) sides[0]->channels = 0;
    return std::move(sides[0]);
  }

  void forget_names_in(TSNode node) {
    const Grammar& g = Grammar::get();
    if (ts_node_is_null(node)) return;
    walk_tree(
        node,
        [&](TSNode n, const TSTreeCursor*) {
          if (is(n, g.identifier)) known_.erase(r_.text(n));
          return true;
        },
        [](TSNode) {});
  }

  // Runs what `node` runs, in Python's order, as far as the reader knows it; the flow of its value
  // when that is a tensor of known size. Sets stopped_ when a layer rejects its input.
  std::optional<Flow> evaluate(TSNode node, int depth = 0) {
    const Grammar& g = Grammar::get();
    node = strip(node);
    if (ts_node_is_null(node) || stopped_ || depth > kMaxExpressionDepth) return std::nullopt;
    if (is(node, g.identifier)) {
      const auto it = known_.find(r_.text(node));
      if (it == known_.end()) return std::nullopt;
      return it->second;
    }
    if (is(node, g.binary_operator)) return elementwise_result(node, depth);
    if (is(node, g.conditional_expression) && ts_node_named_child_count(node) == 3)
      return either_branch(node, depth);
    if (is(node, g.tuple) || is(node, g.list)) {
      for (const TSNode child : named_children(node)) evaluate(child, depth + 1);
      return std::nullopt;
    }
    if (is(node, g.subscript) || is(node, g.attribute)) {
      evaluate(field(node, is(node, g.subscript) ? g.f_value : g.f_object), depth + 1);
      return std::nullopt;
    }
    if (!is(node, g.call)) return std::nullopt;  // a conditional, a lambda, a comprehension: not run for sure
    const TSNode callee = strip(field(node, g.f_function));
    const CallArgs args = collect_args(field(node, g.f_arguments), r_.source());
    const bool one_tensor = args.positional.size() == 1 && args.keywords.empty() && args.first_star < 0;
    if (is(callee, g.attribute)) {
      const TSNode object = strip(field(callee, g.f_object));
      const std::string_view method = r_.text(field(callee, g.f_attribute));
      if (is(object, g.identifier) && r_.text(object) == model_.self_name) {
        // self.conv1(x): a layer built in __init__ (Keras: `self.bn(x, training=training)` too).
        std::optional<Flow> flow;
        if (one_tensor || keras_layer_call(args)) {
          flow = evaluate(args.positional.front(), depth + 1);
          evaluate_arguments(args, depth, 1);
        } else {
          evaluate_arguments(args, depth);
        }
        if (!flow || stopped_) return std::nullopt;
        const auto layer = model_.layers.find(method);
        if (layer == model_.layers.end()) return std::nullopt;
        return apply(layer->second, node, std::move(*flow));
      }
      if (is(object, g.call) || (is(object, g.identifier) && known_.count(r_.text(object)) > 0)) {
        // A method of a tensor: x.relu(), self.conv(x).float().
        auto flow = evaluate(object, depth + 1);
        evaluate_arguments(args, depth);
        if (flow && !stopped_ && (method == "unsqueeze" || method == "squeeze"))
          return with_axis(std::move(*flow), method == "unsqueeze", args.positional.size() == 1 ? args : CallArgs{});
        if (flow && !stopped_ && keeps_size_method(method) &&
            (method == "to" || method == "cuda" || (args.positional.empty() && args.keywords.empty())))
          return flow;
        return std::nullopt;
      }
    }
    if (is(callee, g.identifier) && args.positional.empty() && args.keywords.empty())
      if (const auto closure = closures_.find(r_.text(callee)); closure != closures_.end())
        return call_closure(closure->second);
    if (loop_layer_ && is(callee, g.identifier) && r_.text(callee) == loop_layer_->name) {
      // `layer(x)` in a loop over a stack of __init__'s: the layer this run of the body stands for.
      std::optional<Flow> flow;
      if (one_tensor) flow = evaluate(args.positional.front(), depth + 1);
      else evaluate_arguments(args, depth);
      if (!flow || stopped_) return std::nullopt;
      Resolver::ScopeVisit in_init(r_, model_.init_scope);
      Resolver::BindingsVisit with_parameters(r_, model_.init_bindings.get());
      return apply_one(*loop_layer_->layer, std::move(*flow));
    }
    const std::string name = qualified(callee, r_);
    if ((name == "torch.unsqueeze" || name == "torch.squeeze") && args.positional.size() == 2 && args.first_star < 0 &&
        args.keywords.empty()) {
      auto flow = evaluate(args.positional.front(), depth + 1);
      if (!flow || stopped_) return std::nullopt;
      CallArgs axis;
      axis.positional.push_back(args.positional[1]);
      return with_axis(std::move(*flow), name == "torch.unsqueeze", axis);
    }
    if (model_.framework == "torch" && (name == "torch.cat" || name == "torch.concat" || name == "torch.concatenate"))
      if (auto joined = concatenated(args, depth)) return joined;
    if (!args.positional.empty() && args.first_star != 0) {
      if (keeps_size_function(name)) {
        auto flow = evaluate(args.positional.front(), depth + 1);
        evaluate_arguments(args, depth, 1);
        return stopped_ ? std::nullopt : flow;
      }
      if (const auto pool = pooling_function(name)) {
        auto flow = evaluate(args.positional.front(), depth + 1);
        evaluate_arguments(args, depth, 1);
        if (!flow || stopped_) return std::nullopt;
        CallArgs rest = args;
        rest.positional.erase(rest.positional.begin());
        if (rest.first_star > 0) --rest.first_star;
        ShapeChainFact work = chain_with(flow->steps);
        ChainBuilder chain(work, r_);
        const bool kept = chain.pool_call(*pool, rest, node, flow->spatial, flow->channels);
        return settle(work, kept, std::move(*flow));
      }
    }
    evaluate_arguments(args, depth);
    return std::nullopt;
  }

  // `x.unsqueeze(d)` / `x.squeeze(d)` with a literal axis (`args`: that axis alone): the same sizes
  // with one axis of 1 more or less, read again as (N, C, spatial...) or (C, spatial...) for the
  // model's layers (`inputs.unsqueeze(1)` makes a (B, T, F) batch of features one image per
  // sample). A squeeze of an axis that is not 1 keeps the tensor as it is, as PyTorch does.
  std::optional<Flow> with_axis(Flow flow, bool add, const CallArgs& args) const {
    if (model_.framework != "torch" || args.positional.size() != 1 || !args.keywords.empty() || args.first_star >= 0)
      return std::nullopt;
    const auto axis = integer_of(args.positional.front(), r_);
    if (!axis) return std::nullopt;
    std::vector<std::int64_t> dims;
    if (flow.batched) dims.push_back(flow.batch);
    dims.push_back(flow.channels);
    dims.insert(dims.end(), flow.spatial.begin(), flow.spatial.end());
    const auto rank = static_cast<std::int64_t>(dims.size());
    std::int64_t at = axis->value;
    const std::int64_t positions = add ? rank + 1 : rank;
    if (at < -positions || at >= positions) return std::nullopt;  // PyTorch's IndexError
    if (at < 0) at += positions;
    if (add) {
      dims.insert(dims.begin() + at, 1);
    } else {
      if (dims[static_cast<std::size_t>(at)] != 1) return flow;
      dims.erase(dims.begin() + at);
    }
    const auto axes = static_cast<std::size_t>(model_.axes);
    if (dims.size() != axes + 2 && dims.size() != axes + 1) return std::nullopt;
    flow.batched = dims.size() == axes + 2;
    flow.batch = flow.batched ? dims.front() : 1;
    const std::size_t channel = flow.batched ? 1 : 0;
    flow.channels = dims[channel];
    flow.spatial.assign(dims.begin() + static_cast<std::ptrdiff_t>(channel + 1), dims.end());
    return flow;
  }

  // A Keras layer applied to one tensor with `training=` or `mask=`, which keep its size.
  bool keras_layer_call(const CallArgs& args) const {
    return model_.framework == "keras" && args.positional.size() == 1 && args.first_star < 0 &&
           !args.has_double_star && std::all_of(args.keywords.begin(), args.keywords.end(), [](const auto& keyword) {
             return keyword.first == "training" || keyword.first == "mask";
           });
  }

  void evaluate_arguments(const CallArgs& args, int depth, std::size_t from = 0) {
    for (std::size_t i = from; i < args.positional.size() && !stopped_; ++i) evaluate(args.positional[i], depth + 1);
    for (const auto& [key, value] : args.keywords) {
      (void)key;
      if (!stopped_) evaluate(value, depth + 1);
    }
  }

  ShapeChainFact chain_with(std::vector<ShapeStep> steps) const {
    ShapeChainFact work = base_;
    work.steps = std::move(steps);
    return work;
  }

  // After a ChainBuilder ran on `work`: the rejection (kept), or the flow it continues with.
  std::optional<Flow> settle(ShapeChainFact& work, bool kept, Flow flow) {
    if (!work.rejected_by.empty()) {
      rejected_ = std::move(work);
      stopped_ = true;
      return std::nullopt;
    }
    if (!kept) return std::nullopt;
    flow.steps = std::move(work.steps);
    return flow;
  }

  // `self.name(x)` at `site`: the layer's construction (an nn.Sequential's layers, in order), read
  // where __init__ builds it.
  std::optional<Flow> apply(const ModelClass::Layer& layer, TSNode site, Flow flow) {
    Resolver::ScopeVisit in_init(r_, model_.init_scope);
    Resolver::BindingsVisit with_parameters(r_, model_.init_bindings.get());
    if (layer.layers.size() == 1)
      if (const TSNode nested = nested_class_of(layer.layers.front(), r_); !ts_node_is_null(nested))
        return apply_nested(nested, layer.layers.front(), std::move(flow));
    if (layer.layers.size() != 1 || !ts_node_eq(layer.layers.front().construction, layer.construction)) {
      // A stack: its layers in order, a model class of the module among them run as a nested one
      // (`nn.Sequential(nn.MaxPool2d(2), DoubleConv(a, b))`). A Keras Sequential is built on its
      // first call, with that tensor's shape (ChainBuilder::symbolic_keras_graph).
      const Grammar& g = Grammar::get();
      const TSNode stack = strip(layer.construction);
      const bool built = model_.framework == "keras" && is(stack, g.call) &&
                         framework_of_sequential(qualified(field(stack, g.f_function), r_)) == "keras";
      for (const BoundLayer& bound : layer.layers) {
        std::optional<Flow> next = apply_one(bound, std::move(flow), built);
        if (!next) return std::nullopt;
        flow = std::move(*next);
      }
      return flow;
    }
    ShapeChainFact work = chain_with(std::move(flow.steps));
    ChainBuilder chain(work, r_);
    bool kept = true;
    {
      const std::size_t before = work.steps.size();
      kept = chain.step(layer.construction, flow.spatial, flow.channels, flow.batch);
      // The step is where forward applies the layer, named as __init__ builds it.
      if (work.steps.size() > before) {
        work.steps.back().where = r_.locate(site);
        work.steps.back().text = short_text(r_.text(layer.assignment));
      }
    }
    return settle(work, kept, std::move(flow));
  }

  // One layer of a stack (a model class of the module run as a nested one), where __init__'s scope
  // and bindings are visited already.
  std::optional<Flow> apply_one(const BoundLayer& bound, Flow flow, bool symbolic_keras = false) {
    if (const TSNode nested = nested_class_of(bound, r_); !ts_node_is_null(nested))
      return apply_nested(nested, bound, std::move(flow));
    ShapeChainFact work = chain_with(std::move(flow.steps));
    ChainBuilder chain(work, r_);
    if (symbolic_keras) chain.symbolic_keras_graph();
    const bool kept = chain.step(bound, flow.spatial, flow.channels, flow.batch);
    return settle(work, kept, std::move(flow));
  }

  // `for layer in self.blocks:` whose body only runs statements (`x = layer(x)`, `x = F.relu(layer(x))`):
  // the body read once for each layer the stack holds, in order, `layer` naming that one. False
  // when the loop is another one.
  bool unroll_layer_loop(TSNode loop) {
    const Grammar& g = Grammar::get();
    const TSNode target = field(loop, g.f_left);
    const TSNode iterable = strip(field(loop, g.f_right));
    if (!is(target, g.identifier) || !is(iterable, g.attribute) ||
        r_.text(strip(field(iterable, g.f_object))) != model_.self_name || ts_node_named_child_count(loop) > 3)
      return false;
    for (const TSNode clause : named_children(loop))
      if (is(clause, g.else_clause)) return false;
    const auto stack = model_.layers.find(r_.text(field(iterable, g.f_attribute)));
    if (stack == model_.layers.end() || stack->second.layers.empty() || stack->second.layers.size() > kMaxLoopLayers)
      return false;
    const std::vector<TSNode> body = straight_line_statements(field(loop, g.f_body), r_.source());
    for (const TSNode statement : body)
      if (!is(statement, g.expression_statement) && !is(statement, g.comment)) return false;
    const std::string_view name = r_.text(target);
    for (const BoundLayer& bound : stack->second.layers) {
      loop_layer_ = LoopLayer{name, &bound};
      for (const TSNode statement : body) {
        if (stopped_) break;
        if (is(statement, g.expression_statement)) statement_expression(statement);
      }
      if (stopped_) break;
    }
    loop_layer_.reset();
    known_.erase(name);
    return !stopped_;
  }

  // `self.down1(x)` with `self.down1 = DoubleConv(base, base * 2)`: the nested class's forward,
  // run on the flow with its __init__ parameters bound as the construction binds them.
  std::optional<Flow> apply_nested(TSNode definition, const BoundLayer& built, Flow flow) {
    if (depth_ >= kMaxNestedClasses) return std::nullopt;
    std::shared_ptr<const ConstantBindings> parameters;
    {
      // The construction's arguments are read where it is written (a helper building the stack).
      std::optional<Resolver::ScopeVisit> in_scope;
      if (built.scope != nullptr && built.scope != r_.scope()) in_scope.emplace(r_, built.scope);
      Resolver::BindingsVisit with_loop(r_, built.bindings ? built.bindings.get() : model_.init_bindings.get());
      parameters = init_parameters(definition, built.construction, r_);
    }
    if (!parameters) return std::nullopt;
    const auto nested = read_class(definition, r_, std::move(parameters), depth_ + 1, built.construction);
    if (!nested || (nested->axes != 0 && nested->axes != static_cast<int>(flow.spatial.size()))) return std::nullopt;
    ForwardReader inner(*nested, base_, r_, depth_ + 1);
    if (auto rejected = inner.run(std::move(flow))) {
      rejected_ = std::move(rejected);
      stopped_ = true;
      return std::nullopt;
    }
    return std::move(inner.returned());
  }

  const ModelClass& model_;
  ShapeChainFact base_;
  Resolver& r_;
  int depth_ = 0;
  std::unordered_map<std::string_view, Flow> known_;
  std::optional<ShapeChainFact> rejected_;
  std::optional<Flow> returned_;
  bool stopped_ = false;
  bool abandoned_ = false;  // a closure stopped before its end: forward is not read further
  struct LoopLayer {
    std::string_view name;
    const BoundLayer* layer = nullptr;
  };
  std::optional<LoopLayer> loop_layer_;  // while unroll_layer_loop reads a loop's body
  std::unordered_map<std::string_view, TSNode> closures_;
  int closure_depth_ = 0;
};

}  // namespace

bool is_torch_module_class(TSNode class_definition, Resolver& r) {
  return model_class_framework(class_definition, r) == "torch";
}

bool is_model_class(TSNode class_definition, Resolver& r) { return !model_class_framework(class_definition, r).empty(); }

std::optional<ShapeSource> torch_shape_source(TSNode input, Resolver& r) {
  ShapeSource out;
  const auto shape = literal_shape(input, r, out.text);
  if (!shape.empty()) {
    for (const auto& v : shape) {
      if (!v || v->value <= 0) return std::nullopt;
      out.dims.push_back(v->value);
      out.where.push_back(v->where);
      out.provenance.push_back(v->provenance);
    }
    return out;
  }
  auto transformed = transformed_size(input, r);
  if (!transformed) return std::nullopt;
  out.dims = transformed->dims;
  out.text = transformed->text;
  out.where.assign(out.dims.size(), transformed->source);
  out.provenance.assign(out.dims.size(), {});  // `where` is the transform that fixes the size
  return out;
}

std::optional<ShapeSource> dataset_batch_source(const LoopBatch& batch, Resolver& r) {
  if (ts_node_is_null(batch.dataset)) return std::nullopt;
  const auto sample = dataset_sample(batch.dataset, r);
  if (!sample) return std::nullopt;
  std::int64_t size = 1;
  if (!ts_node_is_null(batch.batch_size))
    if (const auto b = integer_of(batch.batch_size, r); b && b->value > 0) size = b->value;
  ShapeSource out;
  out.text = sample->text;
  out.dims = {size};
  out.dims.insert(out.dims.end(), sample->dims.begin(), sample->dims.end());
  out.where.assign(out.dims.size(), sample->source);
  out.provenance.assign(out.dims.size(), {});
  out.provenance.back() = batch.steps;  // the loader and the loop, once
  return out;
}

void read_model_forward(TSNode class_definition, TSNode call, const ShapeSource& input_source, Resolver& r,
                        TSNode construction) {
  const Grammar& g = Grammar::get();
  const std::vector<std::int64_t>& dims = input_source.dims;
  std::shared_ptr<const ConstantBindings> init_bindings;
  if (!ts_node_is_null(construction)) {
    // Read where it is written: a factory function's `return ResNet(BasicBlock, [2, 2, 2, 2])`.
    std::optional<Resolver::ScopeVisit> at_construction;  // the walk's own scope keeps its shadows
    if (const Scope* around = r.scope_around(construction); around != r.scope()) at_construction.emplace(r, around);
    init_bindings = init_parameters(class_definition, construction, r);
  }
  const auto model = read_class(class_definition, r, std::move(init_bindings), 0, construction);
  if (!model) return;
  const auto axes = static_cast<std::size_t>(model->axes);
  const bool keras = model->framework == "keras";
  // Keras reads channels last unless the code changes its image data format.
  if (keras && r.source().find("image_data_format") != std::string_view::npos) return;
  Flow input;
  std::size_t first_spatial = 0;
  if (keras) {
    // (N, spatial..., C): Keras layers take batches.
    if (dims.size() != axes + 2) return;
    input.batch = dims[0];
    input.channels = dims.back();
    first_spatial = 1;
  } else if (dims.size() == axes + 2) {  // (N, C, spatial...) batched, or (C, spatial...) unbatched
    input.batch = dims[0];
    input.channels = dims[1];
    first_spatial = 2;
  } else if (dims.size() == axes + 1) {
    input.channels = dims[0];
    input.batched = false;
    first_spatial = 1;
  } else {
    return;
  }
  const auto first = dims.begin() + static_cast<std::ptrdiff_t>(first_spatial);
  input.spatial.assign(first, first + static_cast<std::ptrdiff_t>(axes));
  if (input.batch <= 0 || std::any_of(input.spatial.begin(), input.spatial.end(), [](std::int64_t v) { return v <= 0; }))
    return;
  ShapeChainFact base;
  base.framework = model->framework;
  base.layout = keras ? "NHWC" : "NCHW";
  base.call = r.locate(call);
  base.model_text = short_text(r.text(field(call, g.f_function)));
  base.source_text = input_source.text;
  base.source = input_source.where[first_spatial];
  for (std::size_t i = first_spatial; i < first_spatial + axes; ++i)
    for (const auto& step : input_source.provenance[i]) base.source_provenance.push_back(step);
  base.input_spatial = input.spatial;
  ++r.out().tracked.shape_chains;  // a model class run on a known size
  ForwardReader reader(*model, std::move(base), r);
  if (auto rejected = reader.run(std::move(input))) r.out().shape_chains.push_back(std::move(*rejected));
}

}  // namespace cudnnlint::python
