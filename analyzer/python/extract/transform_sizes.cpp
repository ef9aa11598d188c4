#include "python/extract/transform_sizes.h"

#include "python/extract/local_values.h"
#include "python/extract/shape_steps.h"

namespace cudnnlint::python {

namespace {

// "torchvision.transforms.CenterCrop" or the v2 spelling: the leaf; "" for anything else.
std::string transform_leaf(const std::string& name) {
  for (const std::string_view prefix : {std::string_view("torchvision.transforms.v2."),
                                        std::string_view("torchvision.transforms.transforms."),
                                        std::string_view("torchvision.transforms.")})
    if (name.starts_with(prefix)) {
      const std::string leaf = name.substr(prefix.size());
      return leaf.find('.') == std::string::npos ? leaf : "";
    }
  return "";
}

// A size argument: an int for both sides, or a tuple/list of two (a list of one: both sides).
std::optional<std::pair<std::int64_t, std::int64_t>> both_sides(TSNode node, Resolver& r, bool int_fixes_both) {
  const Grammar& g = Grammar::get();
  node = strip(node);
  if (ts_node_is_null(node)) return std::nullopt;
  if (is(node, g.tuple) || is(node, g.list)) {
    const uint32_t n = ts_node_named_child_count(node);
    if (n == 1) return both_sides(ts_node_named_child(node, 0), r, true);
    if (n != 2) return std::nullopt;
    const auto h = integer_of(ts_node_named_child(node, 0), r), w = integer_of(ts_node_named_child(node, 1), r);
    if (!h || !w || h->value <= 0 || w->value <= 0) return std::nullopt;
    return std::make_pair(h->value, w->value);
  }
  if (!int_fixes_both) return std::nullopt;
  const auto s = integer_of(node, r);
  if (!s || s->value <= 0) return std::nullopt;
  return std::make_pair(s->value, s->value);
}

// The transform a callee stands for: `Compose([...])` inline or a name bound once in this scope to
// one (what the region planner parses with the call: the pipeline's words and the model's, in one
// function or among the module's statements).
TSNode pipeline_of(TSNode callee, Resolver& r) {
  const Grammar& g = Grammar::get();
  callee = strip(callee);
  if (is(callee, g.identifier)) {
    const auto [scope, binding] = r.lookup(r.text(callee));
    if (binding == nullptr || !binding->simple() || scope != r.scope()) return {};
    callee = strip(binding->value);
  }
  return is(callee, g.call) ? callee : TSNode{};
}

// What a transform pipeline (`transforms.Compose([...])`, or one transform) does to an image.
struct PipelineEffect {
  std::optional<std::pair<std::int64_t, std::int64_t>> size;  // set by its last resize or crop
  bool makes_tensor = false;
  bool sets_channels = false;  // Grayscale
  bool size_unknown = false;   // a step changed the size (Pad, Resize(256)) and no later one fixed it
  Location source;             // the step that fixes the size
  std::string source_text;
};

// nullopt when a step may change the size in a way the reader does not know.
std::optional<PipelineEffect> pipeline_effect(TSNode pipeline, Resolver& r) {
  const Grammar& g = Grammar::get();
  PipelineEffect out;
  std::vector<TSNode> steps;
  const std::string pipeline_leaf = transform_leaf(qualified(field(pipeline, g.f_function), r));
  if (pipeline_leaf == "Compose") {
    const CallArgs args = collect_args(field(pipeline, g.f_arguments), r.source());
    const TSNode list = strip(argument(args, 0, "transforms"));
    if (ts_node_is_null(list) || !(is(list, g.list) || is(list, g.tuple))) return std::nullopt;
    for (const TSNode child : named_children(list)) steps.push_back(strip(child));
  } else {
    steps.push_back(pipeline);
  }
  for (const TSNode step : steps) {
    if (!is(step, g.call)) return std::nullopt;
    const std::string leaf = transform_leaf(qualified(field(step, g.f_function), r));
    const CallArgs args = collect_args(field(step, g.f_arguments), r.source());
    if (leaf == "CenterCrop" || leaf == "RandomCrop" || leaf == "RandomResizedCrop" || leaf == "Resize") {
      // RandomCrop's padding adds to the input before cropping; the crop is still the size.
      // Resize(256) fixes only the shorter side: the size is not known until a crop fixes it.
      out.size = both_sides(argument(args, 0, "size"), r, leaf != "Resize");
      if (!out.size && leaf != "Resize") return std::nullopt;
      if (leaf == "Resize" && !ts_node_is_null(argument(args, 2, "max_size"))) out.size.reset();
      out.size_unknown = !out.size;
      out.source = r.locate(step);
      out.source_text = short_text(r.text(step));
    } else if (one_of(leaf, {"ToTensor", "PILToTensor", "ToImage"})) {
      out.makes_tensor = true;
    } else if (leaf == "Pad") {
      out.size.reset();  // grows the image: a crop after it fixes the size again
      out.size_unknown = true;
    } else if (leaf == "Grayscale") {
      out.sets_channels = true;  // num_output_channels: 1 or 3
    } else if (leaf == "RandomRotation") {
      if (!ts_node_is_null(argument(args, 2, "expand"))) return std::nullopt;  // expand=True grows the image
    } else if (!one_of(leaf, {"Normalize", "ConvertImageDtype", "ToDtype", "ColorJitter", "RandomHorizontalFlip",
                              "RandomVerticalFlip", "GaussianBlur", "RandomGrayscale", "RandomErasing",
                              "RandomAutocontrast", "RandomEqualize", "RandomInvert", "RandomPosterize",
                              "RandomSolarize", "RandomAdjustSharpness"})) {
      return std::nullopt;  // a step this reader does not know may change the size
    }
  }
  return out;
}

}  // namespace

std::optional<TransformedSize> transformed_size(TSNode node, Resolver& r) {
  const Grammar& g = Grammar::get();
  node = strip(node);
  TransformedSize out;
  if (is(node, g.identifier)) {
    const auto [scope, binding] = r.lookup(r.text(node));
    if (binding == nullptr || !binding->simple() || scope != r.scope()) return std::nullopt;
    node = strip(binding->value);
  }
  out.text = short_text(r.text(node));
  bool batched = false;
  // `.unsqueeze(0)` adds the batch axis.
  if (is(node, g.call)) {
    const TSNode callee = strip(field(node, g.f_function));
    if (is(callee, g.attribute) && r.text(field(callee, g.f_attribute)) == "unsqueeze") {
      const CallArgs args = collect_args(field(node, g.f_arguments), r.source());
      if (args.positional.size() != 1 || !args.keywords.empty() || r.text(strip(args.positional[0])) != "0")
        return std::nullopt;
      batched = true;
      node = strip(field(callee, g.f_object));
    }
  }
  if (!is(node, g.call)) return std::nullopt;
  const CallArgs applied = collect_args(field(node, g.f_arguments), r.source());
  if (applied.positional.size() != 1 || !applied.keywords.empty() || applied.first_star == 0) return std::nullopt;
  const TSNode pipeline = pipeline_of(field(node, g.f_function), r);
  if (ts_node_is_null(pipeline)) return std::nullopt;
  const auto effect = pipeline_effect(pipeline, r);
  if (!effect || !effect->size || !effect->makes_tensor) return std::nullopt;
  out.source = effect->source;
  out.source_text = effect->source_text;
  const auto size = effect->size;
  if (batched) out.dims.push_back(1);
  out.dims.push_back(0);
  out.dims.push_back(size->first);
  out.dims.push_back(size->second);
  return out;
}

std::optional<TransformedSize> dataset_sample(TSNode dataset, Resolver& r) {
  const Grammar& g = Grammar::get();
  dataset = strip(dataset);
  if (!is(dataset, g.call)) return std::nullopt;
  const DatasetInfo* info = r.table().dataset(qualified(field(dataset, g.f_function), r));
  if (info == nullptr || info->sample.size() != 3) return std::nullopt;
  // The transform, by keyword (its position differs between datasets); without one the samples
  // are PIL images, which no model takes.
  const CallArgs args = collect_args(field(dataset, g.f_arguments), r.source());
  if (args.has_double_star) return std::nullopt;
  TSNode transform{};
  for (const auto& [key, value] : args.keywords)
    if (key == "transform") transform = value;
  const TSNode pipeline = pipeline_of(transform, r);
  if (ts_node_is_null(pipeline)) return std::nullopt;
  const auto effect = pipeline_effect(pipeline, r);
  // Without a size of its own the pipeline keeps the dataset's, unless a step changed it.
  if (!effect || !effect->makes_tensor || (!effect->size && effect->size_unknown)) return std::nullopt;
  TransformedSize out;
  out.text = short_text(r.text(dataset));
  out.dims = {effect->sets_channels ? 0 : info->sample[0], info->sample[1], info->sample[2]};
  out.source = r.locate(dataset);
  out.source_text = out.text;
  if (effect->size) {
    out.dims[1] = effect->size->first;
    out.dims[2] = effect->size->second;
    out.source = effect->source;
    out.source_text = effect->source_text;
  }
  return out;
}

}  // namespace cudnnlint::python
