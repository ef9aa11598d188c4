#include "python/extract/shape_steps.h"

#include "python/extract/conv_geometry.h"
#include "python/extract/local_values.h"
#include "core/sizes_text.h"

#include <algorithm>
#include <cctype>

namespace cudnnlint::python {

// "keras.layers.Conv2D" whichever way the code reaches Keras (tf.keras, tf_keras, keras.src).
std::string keras_name(const std::string& name) {
  for (const std::string_view prefix : {std::string_view("tensorflow.keras."), std::string_view("tensorflow.python.keras."),
                                        std::string_view("tf_keras."), std::string_view("keras.src.")})
    if (name.starts_with(prefix)) return "keras." + name.substr(prefix.size());
  return name;
}

std::string leaf_of(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

// Layers that keep the spatial size (and, but for none of these, the channels).
bool keeps_size(const std::string& name, const std::string& framework) {
  const std::string leaf = leaf_of(name);
  if (framework == "torch")
    return name.starts_with("torch.nn.") &&
           one_of(leaf, {"ReLU", "ReLU6", "LeakyReLU", "PReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish",
                         "Sigmoid", "Tanh", "Hardswish", "Hardsigmoid", "Hardtanh", "Softplus", "Identity", "Dropout",
                         "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "BatchNorm1d", "BatchNorm2d",
                         "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
                         "GroupNorm", "LocalResponseNorm"});
  const auto& keras = keras_size_keeping_layers();
  return name.starts_with("keras.layers.") && std::find(keras.begin(), keras.end(), leaf) != keras.end();
}

const std::vector<std::string>& keras_size_keeping_layers() {
  static const std::vector<std::string> names = {
      "Activation", "ReLU", "LeakyReLU", "PReLU", "ELU", "Softmax", "Dropout", "SpatialDropout1D",
      "SpatialDropout2D", "SpatialDropout3D", "GaussianNoise", "GaussianDropout", "BatchNormalization",
      "LayerNormalization", "GroupNormalization", "Rescaling"};
  return names;
}

const std::vector<std::string>& keras_merge_layers() {
  static const std::vector<std::string> names = {"concatenate", "add", "average", "maximum", "minimum",
                                                 "multiply", "subtract", "Concatenate", "Add", "Average",
                                                 "Maximum", "Minimum", "Multiply", "Subtract"};
  return names;
}

bool keras_merge(const std::string& name) {
  const auto& merges = keras_merge_layers();
  return name.starts_with("keras.layers.") && std::find(merges.begin(), merges.end(), leaf_of(name)) != merges.end();
}

std::optional<Pool> pooling(const std::string& name, const std::string& framework) {
  const std::string leaf = leaf_of(name);
  if (framework == "torch") {
    if (!name.starts_with("torch.nn.")) return std::nullopt;
    for (int axes = 1; axes <= 3; ++axes) {
      const std::string suffix = std::to_string(axes) + "d";
      if (leaf == "MaxPool" + suffix) return Pool{axes, true};
      if (leaf == "AvgPool" + suffix) return Pool{axes, false};
    }
    return std::nullopt;
  }
  if (!name.starts_with("keras.layers.")) return std::nullopt;
  for (int axes = 1; axes <= 3; ++axes) {
    const std::string suffix = std::to_string(axes) + "D";
    if (leaf == "MaxPooling" + suffix || leaf == "MaxPool" + suffix) return Pool{axes, true};
    if (leaf == "AveragePooling" + suffix || leaf == "AvgPool" + suffix) return Pool{axes, false};
  }
  return std::nullopt;
}

TSNode argument(const CallArgs& args, std::size_t index, std::string_view name) {
  for (const auto& [key, value] : args.keywords)
    if (key == name) return value;
  if (index < args.positional.size() && (args.first_star < 0 || static_cast<int>(index) < args.first_star))
    return args.positional[index];
  return TSNode{};
}

// An int on every axis, or a tuple/list of one per axis; empty when the code does not fix it.
std::vector<std::int64_t> per_axis(TSNode node, int axes, Resolver& r) {
  const Grammar& g = Grammar::get();
  node = strip(node);
  std::vector<std::int64_t> out;
  if (ts_node_is_null(node)) return out;
  // `kernel_size=KERNEL_SIZE` with `KERNEL_SIZE = (3, 3)`: a name bound once to a tuple or list.
  if (is(node, g.identifier)) {
    const auto [scope, binding] = r.lookup(r.text(node));
    if (binding != nullptr && binding->simple()) {
      const TSNode value = strip(binding->value);
      if (is(value, g.tuple) || is(value, g.list)) node = value;
    }
  }
  if (is(node, g.tuple) || is(node, g.list)) {
    const uint32_t n = ts_node_named_child_count(node);
    for (uint32_t i = 0; i < n; ++i) {
      const auto v = integer_of(ts_node_named_child(node, i), r);
      if (!v) return {};
      out.push_back(v->value);
    }
    if (static_cast<int>(out.size()) != axes) out.clear();
    return out;
  }
  if (const auto v = integer_of(node, r)) out.assign(static_cast<std::size_t>(axes), v->value);
  return out;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0); }
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }



std::string framework_of_sequential(const std::string& name) {
  if (name == "torch.nn.Sequential" || name == "torch.nn.modules.container.Sequential") return "torch";
  const std::string keras = keras_name(name);
  if (keras == "keras.Sequential" || keras == "keras.models.Sequential") return "keras";
  return "";
}


// Runs `spatial` (with `channels`, 0 when unknown) through `layer`. False ends the chain: an
// unknown layer, a size not fixed, or a rejection (then fact_.rejected_by is set).
bool ChainBuilder::step(TSNode layer, std::vector<std::int64_t>& spatial, std::int64_t& channels, std::int64_t batch) {
  const Grammar& g = Grammar::get();
  layer = strip(layer);
  if (!is(layer, g.call)) return false;
  const std::string raw = qualified(field(layer, g.f_function), r_);
  const std::string name = fact_.framework == "keras" ? keras_name(raw) : raw;
  const CallArgs args = collect_args(field(layer, g.f_arguments), r_.source());
  if (name.empty()) return false;
  ShapeStep out;
  out.text = short_text(r_.text(layer));
  out.where = r_.locate(layer);
  if (keeps_size(name, fact_.framework)) {
    out.label = leaf_of(name);
    out.output = spatial;
    fact_.steps.push_back(std::move(out));
    return true;
  }
  // Keras `Embedding(input_dim, output_dim)` on a sequence: each step gets output_dim channels.
  if (name == "keras.layers.Embedding" && spatial.size() == 1) {
    TSNode width = args.positional.size() > 1 ? args.positional[1] : TSNode{};
    for (const auto& [key, value] : args.keywords)
      if (key == "output_dim") width = value;
    const auto dim = ts_node_is_null(width) ? std::nullopt : integer_of(width, r_);
    if (!dim || dim->value <= 0) return false;
    channels = dim->value;
    out.label = "Embedding";
    out.output = spatial;
    fact_.steps.push_back(std::move(out));
    return true;
  }
  if (const ApiEntry* api = r_.table().find(raw); api != nullptr && api->family == kConvolutionFamily &&
                                                   api->is_class && api->spatial_dims == static_cast<int>(spatial.size()))
    return convolution(*api, layer, args, std::move(out), spatial, channels, batch);
  if (const auto pool = pooling(name, fact_.framework); pool && pool->axes == static_cast<int>(spatial.size()))
    return pooling_step(*pool, args, std::move(out), spatial, channels);
  return false;
}

bool ChainBuilder::step(const BoundLayer& layer, std::vector<std::int64_t>& spatial, std::int64_t& channels,
                        std::int64_t batch) {
  if (!layer.branches.empty()) return merge(layer, spatial, channels, batch);
  std::optional<Resolver::ScopeVisit> in_scope;
  if (layer.scope != nullptr && layer.scope != r_.scope()) in_scope.emplace(r_, layer.scope);
  Resolver::BindingsVisit with_bindings(r_, layer.bindings.get());
  const std::size_t before = fact_.steps.size();
  const bool kept = step(layer.construction, spatial, channels, batch);
  if (fact_.steps.size() > before) fact_.steps.back().bindings = bindings_text(layer, r_.text(layer.construction));
  return kept;
}

// Keras merges inputs of one spatial size (it raises otherwise, a failure no rule here claims): the
// chain goes on only where every branch gives the same size. A branch that rejects its input is the
// chain's rejection, reported with that branch's layer as the step. The merge is one step, so that
// the steps stay one per layer of the chain (the functional reader reports at the application
// whose layers hold the rejecting one).
bool ChainBuilder::merge(const BoundLayer& layer, std::vector<std::int64_t>& spatial, std::int64_t& channels,
                         std::int64_t batch) {
  const Grammar& g = Grammar::get();
  // `layers.concatenate([a, b])`, `layers.Concatenate()([a, b])`, or the class's construction alone
  // (`self.cat = layers.Concatenate()`, applied by a model class's call); its names read in its
  // scope, the branches' layers each in theirs.
  const TSNode construction = strip(layer.construction);
  std::string name;
  bool concatenates = false;
  {
    std::optional<Resolver::ScopeVisit> in_scope;
    if (layer.scope != nullptr && layer.scope != r_.scope()) in_scope.emplace(r_, layer.scope);
    Resolver::BindingsVisit with_bindings(r_, layer.bindings.get());
    const TSNode function = field(construction, g.f_function);
    const TSNode class_construction = is(function, g.call) ? function : construction;
    name = keras_name(qualified(field(class_construction, g.f_function), r_));
    const std::string leaf = leaf_of(name);
    const bool class_form = !leaf.empty() && std::isupper(static_cast<unsigned char>(leaf.front())) != 0;
    concatenates = leaf == "concatenate" || leaf == "Concatenate";
    if (concatenates) {
      // Only along the channels: along a spatial axis the sizes add up.
      const CallArgs args = collect_args(field(class_form ? class_construction : construction, g.f_arguments), r_.source());
      const TSNode axis_node = argument(args, class_form ? 0 : 1, "axis");
      const std::int64_t rank = static_cast<std::int64_t>(spatial.size()) + 2;
      std::int64_t axis = -1;
      if (!ts_node_is_null(axis_node)) {
        const auto value = integer_of(axis_node, r_);
        if (!value) return false;
        axis = value->value;
      }
      if (axis < 0) axis += rank;
      if (axis != (fact_.layout == "NCHW" ? 1 : rank - 1)) return false;
    }
  }
  std::optional<std::vector<std::int64_t>> merged;
  std::vector<std::int64_t> widths;
  for (const std::vector<BoundLayer>& branch : layer.branches) {
    ShapeChainFact scratch;
    scratch.framework = fact_.framework;
    scratch.layout = fact_.layout;
    scratch.source = fact_.source;
    ChainBuilder inner(scratch, r_);
    inner.symbolic_keras_ = symbolic_keras_;
    std::vector<std::int64_t> size = spatial;
    std::int64_t width = channels;
    for (const BoundLayer& l : branch)
      if (!inner.step(l, size, width, batch)) {
        if (scratch.rejected_by.empty() || scratch.steps.empty()) return false;
        fact_.steps.push_back(std::move(scratch.steps.back()));
        fact_.rejected_by = std::move(scratch.rejected_by);
        fact_.channels = scratch.channels;
        fact_.padded_input = std::move(scratch.padded_input);
        fact_.kernel_extent = std::move(scratch.kernel_extent);
        fact_.conv = std::move(scratch.conv);
        return false;
      }
    if (merged && *merged != size) return false;
    merged = std::move(size);
    widths.push_back(width);
  }
  if (!merged) return false;
  spatial = std::move(*merged);
  const bool known = std::all_of(widths.begin(), widths.end(), [](std::int64_t w) { return w > 0; });
  if (!known) channels = 0;
  else if (concatenates) channels = [&] {
    std::int64_t sum = 0;
    for (const auto w : widths) sum += w;
    return sum;
  }();
  else channels = std::all_of(widths.begin(), widths.end(), [&](std::int64_t w) { return w == widths.front(); })
                      ? widths.front() : 0;
  ShapeStep out;
  out.label = leaf_of(name);
  out.text = short_text(r_.text(construction));
  out.where = r_.locate(construction);
  out.output = spatial;
  fact_.steps.push_back(std::move(out));
  return true;
}

bool ChainBuilder::convolution(const ApiEntry& api, TSNode layer, const CallArgs& args, ShapeStep out,
                 std::vector<std::int64_t>& spatial, std::int64_t& channels, std::int64_t batch) {
  ConvGeometryFact conv = conv_geometry_of(api, args, 0, layer, r_);
  const std::size_t axes = spatial.size();
  auto fixed = [&](const std::vector<std::optional<IntegerValue>>& values) {
    if (values.size() != axes) return false;
    for (const auto& v : values)
      if (!v || v->value <= 0) return false;
    return true;
  };
  if (!fixed(conv.kernel) || !fixed(conv.stride) || !fixed(conv.dilation)) return false;
  // Keras: the layout must agree with the chain's (channels_last unless data_format says so).
  if (fact_.framework == "keras" && !conv.layout.empty() && conv.layout != fact_.layout) return false;
  if (fact_.framework == "keras" && conv.layout.empty() && fact_.layout != "NHWC") return false;
  std::vector<std::int64_t> pads(axes, 0);
  const bool same = conv.padding_mode == "same";
  if (conv.padding_mode == "explicit") {
    for (std::size_t a = 0; a < axes; ++a) {
      if (a >= conv.padding.size() || !conv.padding[a] || conv.padding[a]->value < 0) return false;
      pads[a] = conv.padding[a]->value;
    }
  } else if (!same && conv.padding_mode != "valid") {
    return false;
  }
  std::vector<std::int64_t> next(axes);
  std::vector<std::int64_t> kernel(axes), stride(axes), dilations(axes);
  for (std::size_t a = 0; a < axes; ++a) {
    const std::int64_t k = conv.kernel[a]->value, s = conv.stride[a]->value, d = conv.dilation[a]->value;
    kernel[a] = k;
    stride[a] = s;
    dilations[a] = d;
    if (same) {
      // PyTorch refuses 'same' with a stride (at construction); Keras rounds up.
      if (fact_.framework == "torch" && s != 1) return false;
      next[a] = fact_.framework == "torch" ? spatial[a] : ceil_div(spatial[a], s);
    } else {
      next[a] = floor_div(spatial[a] + 2 * pads[a] - d * (k - 1) - 1, s) + 1;
    }
  }
  out.label = "conv " + sizes_text(kernel) + "/" + uniform_text(stride) + (same ? " same" : "") +
              (conv.padding_mode == "valid" ? " valid" : "");
  out.label += padding_dilation_text(pads, dilations);
  out.output = next;
  fact_.steps.push_back(std::move(out));
  if (std::any_of(next.begin(), next.end(), [](std::int64_t v) { return v < 1; })) {
    fact_.rejected_by = "conv";
    fact_.channels = conv.in_channels ? conv.in_channels->value : channels;
    for (std::size_t a = 0; a < axes; ++a) {
      fact_.padded_input.push_back(spatial[a] + 2 * pads[a]);
      fact_.kernel_extent.push_back(conv.dilation[a]->value * (kernel[a] - 1) + 1);
    }
    conv.api = fact_.steps.back().text;
    conv.spelled_as = fact_.steps.back().text;
    conv.input.clear();
    const Location& at = fact_.source;
    conv.input.push_back(IntegerValue{batch, std::to_string(batch), at, {}});
    const std::int64_t c = conv.in_channels ? conv.in_channels->value : channels;
    if (c > 0) conv.input.push_back(IntegerValue{c, std::to_string(c), at, {}});
    else conv.input.push_back(std::nullopt);
    if (!conv.in_channels && c > 0) conv.in_channels = IntegerValue{c, std::to_string(c), at, {}};
    for (const auto v : spatial) conv.input.push_back(IntegerValue{v, std::to_string(v), at, {}});
    conv.input_set_by = fact_.source_text;
    fact_.conv = std::move(conv);
    return false;
  }
  if (conv.out_channels) channels = conv.out_channels->value;
  else channels = 0;
  spatial = next;
  return true;
}

bool ChainBuilder::pooling_step(const Pool& pool, const CallArgs& args, ShapeStep out, std::vector<std::int64_t>& spatial,
                  std::int64_t channels) {
  const std::size_t axes = spatial.size();
  const bool torch = fact_.framework == "torch";
  std::vector<std::int64_t> kernel = per_axis(argument(args, 0, torch ? "kernel_size" : "pool_size"), pool.axes, r_);
  if (!torch && kernel.empty() && ts_node_is_null(argument(args, 0, "pool_size")))
    kernel.assign(axes, 2);  // Keras: pool_size defaults to 2
  if (kernel.size() != axes) return false;
  const TSNode stride_node = argument(args, 1, torch ? "stride" : "strides");
  std::vector<std::int64_t> stride;
  if (ts_node_is_null(stride_node) || r_.text(strip(stride_node)) == "None") stride = kernel;  // both default to the kernel
  else stride = per_axis(stride_node, pool.axes, r_);
  if (stride.size() != axes) return false;
  std::vector<std::int64_t> pad(axes, 0), dilation(axes, 1);
  bool ceil_mode = false, same = false;
  if (torch) {
    if (const TSNode p = argument(args, 2, "padding"); !ts_node_is_null(p)) pad = per_axis(p, pool.axes, r_);
    if (pool.max)
      if (const TSNode d = argument(args, 3, "dilation"); !ts_node_is_null(d)) dilation = per_axis(d, pool.axes, r_);
    const TSNode ceil = argument(args, pool.max ? 5 : 3, "ceil_mode");
    if (!ts_node_is_null(ceil)) {
      const std::string_view text = r_.text(strip(ceil));
      if (text == "True") ceil_mode = true;
      else if (text != "False") return false;
    }
  } else {
    const TSNode p = argument(args, 2, "padding");
    if (!ts_node_is_null(p)) {
      const auto mode = string_literal(strip(p), r_.source());
      if (!mode || (*mode != "valid" && *mode != "same")) return false;
      same = *mode == "same";
    }
    const TSNode format = argument(args, 3, "data_format");
    if (!ts_node_is_null(format)) {
      const auto f = string_literal(strip(format), r_.source());
      if (!f || (*f == "channels_first") != (fact_.layout == "NCHW")) return false;
    } else if (fact_.layout != "NHWC") {
      return false;
    }
  }
  if (pad.size() != axes || dilation.size() != axes) return false;
  std::vector<std::int64_t> next(axes);
  for (std::size_t a = 0; a < axes; ++a) {
    if (kernel[a] <= 0 || stride[a] <= 0 || dilation[a] <= 0 || pad[a] < 0) return false;
    if (torch && 2 * pad[a] > kernel[a]) return false;  // PyTorch refuses this first, whatever the size
    if (same) {
      next[a] = ceil_div(spatial[a], stride[a]);
      continue;
    }
    const std::int64_t numerator = spatial[a] + 2 * pad[a] - dilation[a] * (kernel[a] - 1) - 1;
    next[a] = (ceil_mode ? ceil_div(numerator, stride[a]) : floor_div(numerator, stride[a])) + 1;
    // ceil_mode: the last window must start inside the input or its left padding.
    if (ceil_mode && (next[a] - 1) * stride[a] >= spatial[a] + pad[a]) --next[a];
  }
  // Built by appends: GCC 12 warns (-Wrestrict, a false positive) on "/" + std::string.
  out.label = pool.max ? "maxpool " : "avgpool ";
  out.label += uniform_text(kernel);
  if (stride != kernel) {
    out.label += '/';
    out.label += uniform_text(stride);
  }
  if (same) out.label += " same";
  out.label += padding_dilation_text(pad, dilation);
  if (ceil_mode) out.label += " ceil";
  out.output = next;
  const bool rejected = std::any_of(next.begin(), next.end(), [](std::int64_t v) { return v < 1; });
  // Eager Keras returns an empty tensor for 0 and fails at run time below: not claimed. A symbolic
  // graph refuses both where it is built (ChainBuilder::symbolic_keras_graph).
  if (rejected && !torch && !symbolic_keras_) return false;
  fact_.steps.push_back(std::move(out));
  if (rejected) {
    fact_.rejected_by = "pool";
    fact_.channels = channels;
    for (std::size_t a = 0; a < axes; ++a) {
      fact_.padded_input.push_back(spatial[a] + 2 * pad[a]);
      fact_.kernel_extent.push_back(dilation[a] * (kernel[a] - 1) + 1);
    }
    return false;
  }
  spatial = next;
  return true;
}

bool ChainBuilder::pool_call(const Pool& pool, const CallArgs& args, TSNode site, std::vector<std::int64_t>& spatial,
                             std::int64_t channels) {
  ShapeStep out;
  out.text = short_text(r_.text(site));
  out.where = r_.locate(site);
  if (pool.axes != static_cast<int>(spatial.size())) return false;
  return pooling_step(pool, args, std::move(out), spatial, channels);
}

}  // namespace cudnnlint::python
