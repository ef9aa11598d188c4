#include "python/extract/single_sample_consumer.h"

#include "python/extract/layer_stacks.h"
#include "python/extract/local_values.h"
#include "python/extract/model_forward.h"
#include "python/lexing.h"

#include <algorithm>
#include <map>

namespace cudnnlint::python {

namespace {

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
    for (const TSNode child : named_children(size)) parts.push_back(child);
  } else {
    parts.push_back(size);
  }
  return std::all_of(parts.begin(), parts.end(), [&](TSNode part) {
    const auto n = integer_of(part, r);
    return n && n->value == 1;
  });
}

// Whether an nn.Conv2d call has kernel_size 1 and no padding (the third positional or keyword).
bool pointwise_conv(TSNode call, Resolver& r) {
  const Grammar& g = Grammar::get();
  const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
  TSNode kernel = args.positional.size() >= 3 ? args.positional[2] : TSNode{};
  TSNode padding = args.positional.size() >= 5 ? args.positional[4] : TSNode{};
  for (const auto& [name, value] : args.keywords) {
    if (name == "kernel_size") kernel = value;
    else if (name == "padding") padding = value;
  }
  if (ts_node_is_null(kernel) || args.first_star >= 0 || args.has_double_star) return false;
  const auto size = integer_of(strip(kernel), r);
  if (!size || size->value != 1) return false;
  if (ts_node_is_null(padding)) return true;
  const auto pad = integer_of(strip(padding), r);
  return pad && pad->value == 0;
}

// In an nn.Sequential(...) call: a batch norm that sees one value per channel for a batch of one
// (after nn.Linear / nn.Flatten for BatchNorm1d, after global pooling to 1 for BatchNorm2d). The
// stack's layers as the code builds them (layer_stacks.h: nested stacks and the stacks a project
// helper returns flattened, `create_head(nf, n_out)`); its written arguments where that run knows
// nothing, a non-layer among them breaking the chain.
std::optional<std::pair<TSNode, std::string>> single_sample_norm_in(TSNode sequential, Resolver& r) {
  const Grammar& g = Grammar::get();
  std::vector<BoundLayer> layers;
  if (auto built = stack_layers(sequential, r)) {
    layers = std::move(*built);
  } else if (qualified(field(sequential, g.f_function), r) != "torch.nn.Sequential") {
    return std::nullopt;  // a helper's call whose stack the run does not know
  } else {
    for (const TSNode arg : collect_args(field(sequential, g.f_arguments), r.source()).positional)
      layers.push_back(BoundLayer{strip(arg), nullptr, nullptr, {}});
  }
  std::string before;  // "linear" or "pooled": the shape the last shape-changing module leaves
  TSNode before_node{};
  for (const BoundLayer& layer : layers) {
    const TSNode arg = layer.construction;
    if (!is(arg, g.call)) {
      before.clear();
      continue;
    }
    std::optional<Resolver::ScopeVisit> in_builder;
    if (layer.scope != nullptr && layer.scope != r.scope()) in_builder.emplace(r, layer.scope);
    const Resolver::BindingsVisit bound(r, layer.bindings.get());
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
    } else if (before == "pooled" && one_of(name, {"torch.nn.Conv2d"}) && pointwise_conv(arg, r)) {
      // A 1x1 convolution (no padding) keeps the pooled 1x1 map 1x1: ASPP's image pooling branch.
    } else if (!shape_preserving(name)) {
      before.clear();
    }
  }
  return std::nullopt;
}

// The layer `self.name` holds, where one assignment in the class sets it: its construction call and
// its qualified name (read in the method that sets it); nullopt otherwise.
struct SelfLayer {
  TSNode construction{};
  std::string name;
  const Scope* scope = nullptr;  // the method that builds it: where its arguments' names are read
};
std::optional<SelfLayer> self_layer(TSNode attribute, Resolver& r) {
  const Grammar& g = Grammar::get();
  const SelfAttribute* set = r.evaluator().folder().sole_self_attribute(attribute, r.scope());
  if (set == nullptr || set->method == nullptr || set->count != 1) return std::nullopt;
  const TSNode value = strip(set->value);
  if (!is(value, g.call)) return std::nullopt;
  const Resolver::ScopeVisit in_method(r, set->method);
  return SelfLayer{value, qualified(field(value, g.f_function), r), set->method};
}

// forward's parameters that the loop's batch fills, with the shape the batch has ("2d": [N, C]).
using InputShapes = std::map<std::string, std::string, std::less<>>;

// The shape a tensor has when forward hands it to a batch norm: "2d" ([N, C]: an nn.Linear's
// output, a flatten, a two-dimensional batch and what element-wise steps make of it) or "pooled"
// ([N, C, 1, 1]: a global pooling to 1), through shape-keeping steps (F.relu, self.dropout) and
// forward's local names; "" when the reader does not know.
std::string forward_shape(TSNode value, const InputShapes& inputs, Resolver& r, TSNode& producer, int depth = 0) {
  const Grammar& g = Grammar::get();
  value = strip(value);
  if (depth > 8) return "";
  if (is(value, g.identifier)) {
    const TSNode assigned = definition_of(value, r);  // forward's own `x = ...` before the use
    if (!ts_node_is_null(assigned)) return forward_shape(assigned, inputs, r, producer, depth + 1);
    const auto input = inputs.find(r.text(value));
    if (input == inputs.end()) return "";
    if (ts_node_is_null(producer)) producer = value;
    return input->second;
  }
  // `probe - gallery`: element-wise on two batches of one shape, or on a batch and a number.
  if (is(value, g.binary_operator)) {
    TSNode left_producer{}, right_producer{};
    const TSNode left = strip(field(value, g.f_left)), right = strip(field(value, g.f_right));
    const std::string a = is(left, g.integer) || is(left, g.float_) ? "number"
                                                                     : forward_shape(left, inputs, r, left_producer, depth + 1);
    const std::string b = is(right, g.integer) || is(right, g.float_) ? "number"
                                                                       : forward_shape(right, inputs, r, right_producer, depth + 1);
    if (!((a == "2d" && (b == "2d" || b == "number")) || (b == "2d" && a == "number"))) return "";
    producer = value;
    return "2d";
  }
  if (!is(value, g.call)) return "";
  const TSNode function = strip(field(value, g.f_function));
  const CallArgs args = collect_args(field(value, g.f_arguments), r.source());
  const TSNode first = args.positional.empty() ? TSNode{} : args.positional.front();
  if (is(function, g.attribute) && r.text(strip(field(function, g.f_object))) == "self") {
    const auto layer = self_layer(function, r);
    if (!layer) return "";
    producer = layer->construction;
    if (one_of(layer->name, {"torch.nn.Linear", "torch.nn.LazyLinear", "torch.nn.Flatten"})) return "2d";
    if (one_of(layer->name, {"torch.nn.AdaptiveAvgPool2d", "torch.nn.AdaptiveMaxPool2d"})) {
      const Resolver::ScopeVisit in_builder(r, layer->scope);
      return pools_to_one(layer->construction, r) ? "pooled" : "";
    }
    return shape_preserving(layer->name) && !ts_node_is_null(first)
               ? forward_shape(first, inputs, r, producer, depth + 1)
               : "";
  }
  const std::string name = qualified(function, r);
  if (one_of(name, {"torch.nn.functional.relu", "torch.relu", "torch.nn.functional.leaky_relu",
                    "torch.nn.functional.gelu", "torch.nn.functional.dropout", "torch.sigmoid", "torch.tanh",
                    "torch.nn.functional.elu", "torch.nn.functional.silu", "torch.pow", "torch.abs", "torch.exp",
                    "torch.sqrt", "torch.square"}) &&
      !ts_node_is_null(first)) {
    const std::string shape = forward_shape(first, inputs, r, producer, depth + 1);
    if (shape == "2d" && !name.starts_with("torch.nn.functional")) producer = value;
    return shape;
  }
  if (name == "torch.flatten" && args.positional.size() == 2) {
    const auto dim = integer_of(strip(args.positional[1]), r);
    if (dim && dim->value == 1) {
      producer = value;
      return "2d";
    }
  }
  return "";
}

// In a model class that builds its layers as attributes (`self.fc1 = nn.Linear(784, 256)`,
// `self.bn1 = nn.BatchNorm1d(256)`) and applies them in forward (`x = F.relu(self.bn1(self.fc1(x)))`,
// or `x = self.fc1(x)` then `x = self.bn1(x)`): a batch norm whose input forward takes straight from
// an nn.Linear or a flatten (BatchNorm1d) or a global pooling to 1 (BatchNorm2d).
std::optional<std::pair<TSNode, std::string>> single_sample_norm_in_forward(TSNode class_definition, Resolver& r,
                                                                            const std::vector<std::string>& arguments) {
  const Grammar& g = Grammar::get();
  TSNode forward{};
  for (const TSNode member : named_children(field(class_definition, g.f_body)))
    if (is(member, g.function_definition) && r.text(field(member, g.f_name)) == "forward") forward = member;
  const Scope* scope = ts_node_is_null(forward) ? nullptr : r.scope_of(forward);
  if (scope == nullptr) return std::nullopt;
  // forward(self, a, b): the model call's positional arguments fill a, b in order.
  InputShapes inputs;
  const std::vector<TSNode> parameters = named_children(field(forward, g.f_parameters));
  for (std::size_t i = 0; i < arguments.size() && i + 1 < parameters.size(); ++i)
    if (is(parameters[i + 1], g.identifier) && !arguments[i].empty()) inputs.emplace(r.text(parameters[i + 1]), arguments[i]);
  const Resolver::ScopeVisit in_forward(r, scope);
  const TSNode body = field(forward, g.f_body);
  std::optional<std::pair<TSNode, std::string>> found;
  walk_tree(
      body,
      [&](TSNode node, const TSTreeCursor*) {
        if (found) return false;
        if (!is(node, g.call)) return true;
        const TSNode function = strip(field(node, g.f_function));
        if (!is(function, g.attribute) || r.text(strip(field(function, g.f_object))) != "self") return true;
        const auto norm = self_layer(function, r);
        if (!norm || !one_of(norm->name, {"torch.nn.BatchNorm1d", "torch.nn.LazyBatchNorm1d", "torch.nn.BatchNorm2d",
                                          "torch.nn.LazyBatchNorm2d"}))
          return true;
        const CallArgs args = collect_args(field(node, g.f_arguments), r.source());
        if (args.positional.size() != 1) return true;
        TSNode producer{};
        const std::string shape = forward_shape(args.positional.front(), inputs, r, producer);
        const bool one_d = norm->name.ends_with("BatchNorm1d");
        if ((one_d && shape == "2d") || (!one_d && shape == "pooled"))
          found = std::pair{norm->construction,
                            short_text(r.text(producer)) + ", then " + short_text(r.text(norm->construction))};
        return !found;
      },
      [](TSNode) {});
  return found;
}

// What the name `model` holds where it is used, followed back through the rebindings that keep the
// module and its mode (`model = model.train()`, `model = model.to(device)`, `.cuda()`, `.cpu()`:
// nn.Module's methods return the module itself); null when unknown.
TSNode model_value(TSNode model, Resolver& r) {
  const Grammar& g = Grammar::get();
  TSNode value = strip(definition_of(model, r));
  for (int hops = 0; hops < 4 && is(value, g.call); ++hops) {
    const TSNode function = field(value, g.f_function);
    if (!is(function, g.attribute)) break;
    const TSNode object = strip(field(function, g.f_object));
    if (!is(object, g.identifier) || r.text(object) != r.text(model)) break;
    const std::string_view method = r.text(field(function, g.f_attribute));
    const CallArgs args = collect_args(field(value, g.f_arguments), r.source());
    const bool keeps = ((method == "train" || method == "cuda" || method == "cpu") && args.positional.empty() &&
                        args.keywords.empty()) ||
                       (method == "to" && args.positional.size() == 1 && args.keywords.empty() &&
                        (r.text(strip(args.positional.front())).find("device") != std::string_view::npos ||
                         one_of(std::string(r.text(strip(args.positional.front()))), {"\"cuda\"", "\"cpu\"", "'cuda'", "'cpu'"})));
    if (!keeps) return {};
    value = strip(definition_of(object, r));
  }
  // `model = build_segmentor(19)` with `def build_segmentor(n): return PSPSegmentor(n)`: the class
  // construction the factory returns (its arguments are the factory's names).
  if (is(value, g.call)) {
    const TSNode returned = factory_return(value, r);
    if (!ts_node_is_null(returned) && is(field(returned, g.f_function), g.identifier)) {
      const auto [class_scope, class_binding] = r.lookup(r.text(field(returned, g.f_function)));
      if (class_binding != nullptr && class_binding->only_definition() &&
          is(class_binding->definition, g.class_definition))
        value = returned;
    }
  }
  return value;
}

// The model a call `m(x)` makes: `m = nn.Sequential(...)`, `m = make_head(...)` with make_head a
// project function returning one, or `m = Net(...)` with Net a class of this module whose body
// builds such a Sequential.
std::optional<std::pair<TSNode, std::string>> single_sample_model(TSNode callee, Resolver& r,
                                                                  const std::vector<std::string>& arguments = {}) {
  const Grammar& g = Grammar::get();
  // nn.Sequential(...) or a call of a project function returning a stack (`create_head(32, 4)`).
  auto stack_call = [&](TSNode value) -> std::optional<std::pair<TSNode, std::string>> {
    const TSNode function = field(value, g.f_function);
    if (qualified(function, r) == "torch.nn.Sequential") return single_sample_norm_in(value, r);
    if (!is(function, g.identifier)) return std::nullopt;
    const auto [scope, binding] = r.lookup(r.text(function));
    if (binding != nullptr && binding->only_definition() && is(binding->definition, g.function_definition))
      return single_sample_norm_in(value, r);
    return std::nullopt;
  };
  // `self.model(x)`: what the one write of `self.model` in its class sets, read in that method.
  if (is(callee, g.attribute)) {
    const SelfAttribute* set = r.evaluator().folder().sole_self_attribute(callee, r.scope());
    if (set == nullptr || set->method == nullptr || !is(strip(set->value), g.call)) return std::nullopt;
    const Resolver::ScopeVisit in_method(r, set->method);
    return stack_call(strip(set->value));
  }
  const TSNode value = model_value(callee, r);
  if (!is(value, g.call)) return std::nullopt;
  if (auto found = stack_call(value)) return found;
  const TSNode function = field(value, g.f_function);
  if (!is(function, g.identifier)) return std::nullopt;
  const auto [scope, binding] = r.lookup(r.text(function));
  if (binding == nullptr || !binding->only_definition() || !is(binding->definition, g.class_definition))
    return std::nullopt;
  // `self.head = nn.Sequential(...)` whose attribute the class calls (`self.head(x)`): a Sequential
  // built but never called in the class (an unused branch) is not what the input goes through. Else
  // layers as attributes, chained in forward.
  std::optional<std::pair<TSNode, std::string>> found;
  const std::string_view class_text = r.text(binding->definition);
  walk_tree(
      binding->definition,
      [&](TSNode node, const TSTreeCursor*) {
        if (found) return false;
        if (!is(node, g.assignment)) return true;
        const TSNode left = field(node, g.f_left), right = strip(field(node, g.f_right));
        if (!is(left, g.attribute) || r.text(field(left, g.f_object)) != "self" || !is(right, g.call) ||
            qualified(field(right, g.f_function), r) != "torch.nn.Sequential")
          return true;
        const std::string call = "self." + std::string(r.text(field(left, g.f_attribute))) + "(";
        if (class_text.find(call) != std::string_view::npos) found = single_sample_norm_in(right, r);
        return !found;
      },
      [](TSNode) {});
  if (!found) found = single_sample_norm_in_forward(binding->definition, r, arguments);
  return found;
}

// Whether code switches some model out of training mode, comments aside (a comment saying
// "without model.eval()" switches nothing).
bool switches_mode(std::string_view text) {
  const std::string code = blank_comments(text);
  for (const char* switches : {".eval()", ".train(False)", "train(mode=False)", ".apply(", "requires_grad_("})
    if (code.find(switches) != std::string::npos) return true;
  return false;
}

// Whether the model `callee` names stays in training mode where the loop runs: a local of the
// loop's function that the function neither switches to eval (`m.eval()`, `m.train(False)`) nor
// hands to another call (which may) than `followed_call` (the call whose function runs the loop,
// read for switches already); a module-level model that no code in the file switches, or, for a
// loop at module level, no code that can run before the loop's first pass ends: the text up to the
// end of its body (a tutorial's `model.eval()` in the epoch's validation, after the training loop,
// leaves the first epoch's last batch in training mode).
bool left_in_training(TSNode callee, const Scope* scope, Resolver& r, TSNode followed_call = {}, TSNode loop = {}) {
  const Grammar& g = Grammar::get();
  // An instance's model (`self.model`), like a module-level one: no code in the file switches it.
  if (is(callee, g.attribute)) return !switches_mode(r.source());
  const std::string model(r.text(callee));
  const auto [defining, binding] = r.lookup(model);
  if (defining == nullptr) return false;
  const bool local = defining == scope;
  // Any switch to eval mode in sight, on the model or on its modules (`for m in model.modules():
  // m.eval()`, `model.apply(freeze_bn)`), makes the mode a run-time question.
  // Where the loop runs in the model's own scope (the module's code, or the function making the model):
  // what runs before the first pass over the loader ends is that scope's text up to the loop body's end.
  const bool loop_in_scope = !ts_node_is_null(loop) && scope != nullptr &&
                             (scope->kind == Scope::Kind::Module || local) &&
                             ts_node_start_byte(loop) >= ts_node_start_byte(scope->node) &&
                             ts_node_end_byte(loop) <= ts_node_end_byte(scope->node);
  const std::size_t scope_start = scope != nullptr && scope->kind != Scope::Kind::Module ? ts_node_start_byte(scope->node) : 0;
  if (switches_mode(loop_in_scope ? r.source().substr(scope_start, ts_node_end_byte(field(loop, g.f_body)) - scope_start)
                    : local       ? r.text(scope->node)
                                  : r.source()))
    return false;
  if (!local) return true;
  bool handed_on = false;
  walk_tree(
      scope->node,
      [&](TSNode node, const TSTreeCursor*) {
        if (handed_on) return false;
        if (is(node, g.argument_list) && !ts_node_eq(ts_node_parent(node), followed_call)) {
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

}  // namespace

// Whether a call's first argument is the batch the loop unpacked (`model(x)`, `model(x.to(device))`,
// `model(x.cuda().float())`), not a tensor built from it (`model(torch.cat([x1, x2]))` holds more).
bool takes_loop_batch(TSNode call, const std::vector<std::string_view>& loop_names, Resolver& r) {
  const Grammar& g = Grammar::get();
  const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
  if (args.positional.empty()) return false;
  TSNode arg = strip(args.positional.front());
  while (is(arg, g.call) && is(field(arg, g.f_function), g.attribute)) {
    const std::string_view method = r.text(field(field(arg, g.f_function), g.f_attribute));
    if (method != "to" && method != "cuda" && method != "float" && method != "half" && method != "contiguous")
      return false;
    arg = strip(field(field(arg, g.f_function), g.f_object));
  }
  return is(arg, g.identifier) &&
         std::find(loop_names.begin(), loop_names.end(), r.text(arg)) != loop_names.end();
}

namespace {

// The shapes of a model call's positional arguments that are the loop's batch, by position: "2d"
// where the loader's dataset holds rank-2 tensors (`TensorDataset(torch.rand(33, 128), ...)`), ""
// where it is not known or not two-dimensional.
std::vector<std::string> batch_argument_shapes(TSNode call, const std::vector<std::string_view>& loop_names,
                                               Resolver& r) {
  const Grammar& g = Grammar::get();
  std::vector<std::string> shapes;
  for (TSNode arg : collect_args(field(call, g.f_arguments), r.source()).positional) {
    arg = strip(arg);
    while (is(arg, g.call) && is(field(arg, g.f_function), g.attribute) &&
           one_of(std::string(r.text(field(field(arg, g.f_function), g.f_attribute))), {"to", "cuda", "float", "half"}))
      arg = strip(field(field(arg, g.f_function), g.f_object));
    std::string shape;
    if (is(arg, g.identifier) &&
        std::find(loop_names.begin(), loop_names.end(), r.text(arg)) != loop_names.end())
      if (const auto batch = loop_batch(arg, r, /*shape_only=*/true); batch && !ts_node_is_null(batch->tensor))
        if (const auto source = torch_shape_source(batch->tensor, r); source && source->dims.size() == 2) shape = "2d";
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

const Parameter* parameter_named(const Scope& function, std::string_view name) {
  for (const Parameter& p : function.parameters)
    if (p.name == name && p.kind == Parameter::Kind::Normal) return &p;
  return nullptr;
}

// The loops over `loader` in `loop_scope`; `passed`, when they are a called function's, the call's
// arguments (`passed_call`), read in `scope`.
void find_single_sample_consumer_in(LoaderFact& fact, std::string_view loader, const Scope* loop_scope,
                                    const Scope* scope, const CallArgs* passed, TSNode passed_call, Resolver& r) {
  const Grammar& g = Grammar::get();
  // In a called function: a model it is handed, and nothing in it switching a model's mode.
  if (passed != nullptr && switches_mode(r.text(loop_scope->node))) return;
  auto iterates_loader = [&](TSNode iterable) {
    iterable = strip(iterable);
    if (is(iterable, g.call)) {
      const CallArgs args = collect_args(field(iterable, g.f_arguments), r.source());
      if (args.positional.empty()) return false;
      iterable = strip(args.positional.front());
    }
    return (is(iterable, g.identifier) || is(iterable, g.attribute)) && r.text(iterable) == loader;
  };
  // A loader an instance holds (`self.train_dl`) feeds the instance's models (`self.model(x)`).
  const bool instance_loader = loader.starts_with("self.");
  walk_tree(
      loop_scope->node,
      [&](TSNode node, const TSTreeCursor*) {
        if (fact.feeds) return false;
        // A nested function that binds the name anew (its parameter, its local) loops over another loader.
        if (is(node, g.function_definition) && !ts_node_eq(node, loop_scope->node))
          if (const Scope* nested = r.scope_of(node); nested != nullptr && nested->bindings.contains(loader))
            return false;
        if (!is(node, g.for_statement) || !iterates_loader(field(node, g.f_right))) return true;
        std::vector<std::string_view> loop_names;
        walk_tree(
            field(node, g.f_left),
            [&](TSNode name, const TSTreeCursor*) {
              if (is(name, g.identifier)) loop_names.push_back(r.text(name));
              return true;
            },
            [](TSNode) {});
        walk_tree(
            field(node, g.f_body),
            [&](TSNode inner, const TSTreeCursor*) {
              if (fact.feeds) return false;
              if (!is(inner, g.call)) return true;
              TSNode callee = field(inner, g.f_function);
              const bool self_model = instance_loader && is(callee, g.attribute) &&
                                      r.text(field(callee, g.f_object)) == "self";
              if (!is(callee, g.identifier) && !self_model) return true;
              if (!takes_loop_batch(inner, loop_names, r)) return true;
              if (passed != nullptr && !self_model) {
                // The model the call hands the function, read where the call stands.
                const Parameter* parameter = parameter_named(*loop_scope, r.text(callee));
                if (parameter == nullptr) return true;
                callee = strip(argument_for_parameter(*passed, *parameter));
                if (ts_node_is_null(callee) || !is(callee, g.identifier)) return true;
              }
              if (!left_in_training(callee, scope, r, passed != nullptr ? passed_call : TSNode{}, node)) return true;
              if (auto norm = single_sample_model(callee, r, batch_argument_shapes(inner, loop_names, r))) {
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

void find_single_sample_consumer_in_class(LoaderFact& fact, std::string_view loader, const Scope& method,
                                          Resolver& r) {
  const Grammar& g = Grammar::get();
  const Scope* owner = method.parent;
  if (owner == nullptr || owner->kind != Scope::Kind::Class || !loader.starts_with("self.")) return;
  for (const TSNode statement : named_children(field(owner->node, g.f_body))) {
    TSNode definition = statement;
    if (is(definition, g.decorated_definition)) {
      const auto parts = named_children(definition);
      definition = parts.empty() ? TSNode{} : parts.back();
    }
    if (!is(definition, g.function_definition)) continue;
    const Scope* other = r.scope_of(definition);
    if (other == nullptr || !other->is_method()) continue;
    const Resolver::ScopeVisit in_method(r, other);
    find_single_sample_consumer_in(fact, loader, other, other, nullptr, TSNode{}, r);
    if (fact.feeds) return;
  }
}

namespace {

// The arguments of the call whose name ends at `open` (the index of its '('), split at top-level
// commas and trimmed; empty when the text ends first.
std::vector<std::string_view> call_arguments(std::string_view code, std::size_t open) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = open + 1;
  auto push = [&](std::size_t end) {
    std::string_view arg = code.substr(start, end - start);
    while (!arg.empty() && (arg.front() == ' ' || arg.front() == '\n')) arg.remove_prefix(1);
    while (!arg.empty() && (arg.back() == ' ' || arg.back() == '\n')) arg.remove_suffix(1);
    if (!arg.empty()) out.push_back(arg);
  };
  for (std::size_t i = open; i < code.size(); ++i) {
    const char c = code[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        push(i);
        return out;
      }
    } else if (c == ',' && depth == 1) {
      push(i);
      start = i + 1;
    }
  }
  return {};
}

// Whether code in `text` may change a tensor's batch dimension on its way to the batch norm. What
// keeps it: a reshape to `x.size(0)` first (`x.view(x.size(0), -1)`), an expand to -1, a repeat by
// 1, a concatenation along another dimension (`torch.cat([a, b], dim=1)`), a permutation keeping 0
// first, a transpose or (un)squeeze of other dimensions. Anything else, or a reshaping library
// (einsum, einops), may.
bool may_change_the_batch(std::string_view text) {
  const std::string code = blank_comments(text);
  for (const char* changes : {"einsum(", "rearrange(", ".unflatten(", ".flatten(0", "Unflatten(", "torch.stack(",
                              "torch.reshape("})
    if (code.find(changes) != std::string::npos) return true;
  auto batch_size = [](std::string_view arg) { return arg.ends_with(".size(0)") || arg.ends_with(".shape[0]"); };
  auto other_dim = [](std::string_view arg) {  // a literal dimension other than 0 (`1`, `-1`, `dim=2`)
    if (arg.starts_with("dim=")) arg.remove_prefix(4);
    if (arg.starts_with("-")) arg.remove_prefix(1);
    return !arg.empty() && arg != "0" && std::all_of(arg.begin(), arg.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  // Whether the call `name(args)` keeps the batch dimension.
  auto keeps = [&](std::string_view name, const std::vector<std::string_view>& a) {
    if (name == ".view(" || name == ".reshape(") return !a.empty() && batch_size(a.front());
    if (name == ".expand(") return !a.empty() && (a.front() == "-1" || batch_size(a.front()));
    if (name == ".repeat(") return !a.empty() && a.front() == "1";
    if (name == "torch.cat(" || name == "torch.concat(") return a.size() == 2 && other_dim(a.back());
    if (name == ".permute(") return !a.empty() && a.front() == "0";
    if (name == ".transpose(") return a.size() == 2 && other_dim(a[0]) && other_dim(a[1]);
    return a.size() == 1 && other_dim(a.front());  // .unsqueeze(k), .squeeze(k)
  };
  for (const std::string_view name : {".view(", ".reshape(", ".expand(", ".repeat(", "torch.cat(", "torch.concat(",
                                       ".permute(", ".transpose(", ".unsqueeze(", ".squeeze("})
    for (std::size_t at = code.find(name); at != std::string::npos; at = code.find(name, at + 1))
      if (!keeps(name, call_arguments(code, at + name.size() - 1))) return true;
  return false;
}

// The code that builds and runs the model `callee` names: its class's definition (`net = Net()`), the
// project function returning it (`net = make_head(...)`), or the construction itself
// (`nn.Sequential(...)`); "" when the reader cannot tell.
std::string_view model_code(TSNode callee, Resolver& r) {
  const Grammar& g = Grammar::get();
  TSNode value{};
  if (is(callee, g.attribute)) {
    const SelfAttribute* set = r.evaluator().folder().sole_self_attribute(callee, r.scope());
    if (set != nullptr) value = strip(set->value);
  } else {
    value = model_value(callee, r);
  }
  if (!is(value, g.call)) return {};
  const TSNode function = field(value, g.f_function);
  if (is(function, g.identifier)) {
    const auto [scope, binding] = r.lookup(r.text(function));
    if (binding != nullptr && binding->only_definition()) return r.text(binding->definition);
  }
  return r.text(value);
}

}  // namespace

void find_single_sample_call(TSNode call, Resolver& r) {
  const Grammar& g = Grammar::get();
  const TSNode callee = strip(field(call, g.f_function));
  const bool own_model = is(callee, g.attribute) && r.text(strip(field(callee, g.f_object))) == "self";
  if (!is(callee, g.identifier) && !own_model) return;
  const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
  if (args.positional.size() != 1 || args.first_star >= 0 || args.has_double_star || !args.keywords.empty()) return;
  const auto batch = torch_shape_source(args.positional.front(), r);
  if (!batch || batch->dims.size() < 2 || batch->dims.front() != 1) return;
  // A batch norm after nn.Linear or a flatten gets [1, C] from a two-dimensional batch; one after a
  // global pooling to 1 gets [1, C, 1, 1] from a four-dimensional one. Other ranks are not read.
  const std::size_t rank = batch->dims.size();
  const auto norm = single_sample_model(callee, r, {rank == 2 ? "2d" : ""});
  if (!norm) return;
  const std::string norm_name = qualified(field(norm->first, g.f_function), r);
  const bool one_d = norm_name.ends_with("BatchNorm1d");
  if ((one_d && rank != 2) || (!one_d && rank != 4)) return;
  // The model's code must keep the batch of one a batch of one, and leave training mode alone
  // (`self.eval()` in the model's own methods too).
  const std::string_view model = model_code(callee, r);
  if (model.empty() || may_change_the_batch(model) || switches_mode(model) || !left_in_training(callee, r.scope(), r))
    return;
  SingleSampleCallFact fact;
  fact.call = r.locate(call);
  fact.call_text = short_text(r.text(call));
  fact.batch = r.locate(strip(args.positional.front()));
  fact.batch_text = batch->text;
  fact.shape = batch->dims;
  fact.norm = r.locate(norm->first);
  fact.norm_text = norm->second;
  fact.norm_input = one_d ? "[1, C]" : "[1, C, 1, 1]";
  r.out().single_sample_calls.push_back(std::move(fact));
}

// `for x, y in loader:` (also through enumerate() / tqdm()) in `scope` calling a model whose
// batch norm sees one value per channel for a single-sample batch, left in training mode; or the
// same loop in a module function that `scope` passes the loader to, with the model a parameter
// the call passes too (`test(val_loader, base_model)`).
void find_single_sample_consumer(LoaderFact& fact, std::string_view loader, const Scope* scope, Resolver& r) {
  if (scope == nullptr || ts_node_is_null(scope->node)) return;
  find_single_sample_consumer_in(fact, loader, scope, scope, nullptr, TSNode{}, r);
  if (fact.feeds) return;
  const Grammar& g = Grammar::get();
  walk_tree(
      scope->node,
      [&](TSNode node, const TSTreeCursor*) {
        if (fact.feeds) return false;
        if ((is(node, g.function_definition) || is(node, g.class_definition) || is(node, g.lambda)) &&
            !ts_node_eq(node, scope->node))
          return false;
        if (!is(node, g.call) || !is(field(node, g.f_function), g.identifier)) return true;
        // A function of the module, or a method bound to a module-level name (`validate =
        // Validator().validate`).
        const auto [defining, binding] = r.lookup(r.text(field(node, g.f_function)));
        if (binding == nullptr || defining == nullptr || defining->kind != Scope::Kind::Module) return true;
        TSNode definition{};
        if (binding->only_definition() && is(binding->definition, g.function_definition)) definition = binding->definition;
        else if (binding->simple()) definition = r.bound_method_definition(binding->value);
        if (ts_node_is_null(definition)) return true;
        const Scope* function = r.scope_of(definition);
        if (function == nullptr || function == scope) return true;
        const CallArgs args = collect_args(field(node, g.f_arguments), r.source());
        for (const Parameter& p : function->parameters) {
          const TSNode argument = p.kind == Parameter::Kind::Normal ? argument_for_parameter(args, p) : TSNode{};
          if (!ts_node_is_null(argument) && is(strip(argument), g.identifier) && r.text(strip(argument)) == loader) {
            find_single_sample_consumer_in(fact, p.name, function, scope, &args, node, r);
            break;
          }
        }
        return true;
      },
      [](TSNode) {});
}

}  // namespace cudnnlint::python
