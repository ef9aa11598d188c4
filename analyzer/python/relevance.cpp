#include "python/relevance.h"

#include <algorithm>

namespace cudnnlint::python {

namespace {

// The dtype family's words. Its facts need two things in one function (or in the module's own
// statements): a tensor whose element type the code sets (`randint`, `.long()`, `.half()`) and a
// layer or model that consumes it, or a float16 operand and a small epsilon, or a float16 model
// and an optimizer. Each half alone is common (`torch.long` is in most model files): a file is read
// only when it holds both halves somewhere, and the region planner parses only the definitions (or
// the module statements) holding both.
void add_dtype_relevance(const ApiTable& table, Relevance& out) {
  const std::vector<std::string> half_words{"half", "float16", "autocast"};
  std::vector<std::string> sources{"randint", "from_numpy", "PILToTensor", "pil_to_tensor", "read_image",
                                   "decode_image", "decode_jpeg", "decode_png", "imread", "long", "byte", "uint8",
                                   "int64", "int32", "int16", "int8", "bfloat16", "cast", "tensor", "as_tensor",
                                   "constant", "convert_to_tensor"};
  sources.insert(sources.end(), half_words.begin(), half_words.end());
  std::vector<std::string> consumers = table.trigger_words(std::vector<std::string>{
      std::string(kConvolutionFamily), std::string(kNormalizationFamily)});
  for (const char* word : {"Sequential", "create_model", "get_model", "alexnet", "vgg11", "vgg16", "vgg19",
                           "resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d",
                           "wide_resnet50_2", "densenet121", "mobilenet_v2", "mobilenet_v3_small",
                           "mobilenet_v3_large", "efficientnet_b0", "efficientnet_v2_s", "convnext_tiny",
                           "regnet_y_400mf", "squeezenet1_0", "googlenet", "inception_v3", "shufflenet_v2_x1_0",
                           "vit_b_16", "swin_t"})
    consumers.emplace_back(word);
  const std::vector<std::string> optimizers = table.trigger_words(std::vector<std::string>{std::string(kOptimizerFamily)});
  // In a method, the consumer must be built or called there (`nn.Conv2d(...)`, `conv(x)` through a
  // name bound to one: a model class's isinstance tests name every layer type), and not in __init__,
  // which builds layers and applies none.
  out.pairs.push_back({.first = sources, .second = consumers, .second_classes = true,
                               .second_called_in_methods = true, .init_counts = false});
  out.pairs.push_back({.first = half_words, .second = {std::string(kSmallFloatLiteral)}});
  // A trainer's __init__ may build a float16 model and its optimizer.
  out.pairs.push_back({.first = half_words, .second = optimizers, .second_called_in_methods = true});
  // Keras `set_global_policy("mixed_float16")` at module level makes every layer's inputs float16:
  // the epsilons in a layer class's `call`.
  out.pairs.push_back(
      {.first = {"mixed_float16"}, .second = {std::string(kSmallFloatLiteral)}, .first_anywhere = true, .classes = true});
  // The policy is a string: the first pass's quoted words find `"mixed_float16"` on their own.
  out.quoted.emplace_back("mixed_float16");
}

// The shape family's words: a stack of layers (`Sequential`) and a size source
// (`torch.randn(1, 3, 4, 4)`, `keras.Input(shape=...)`, `input_shape=`, a torchvision crop or
// resize) in one function, or in the module's statements together. The extractor reads nothing
// else (a stack and its input in one scope, not in a class), so these are all the planner must parse.
void add_shape_relevance(Relevance& out) {
  out.pairs.push_back({.first = {"Sequential"},
                               .second = {"randn", "rand", "zeros", "ones", "empty", "normal", "uniform", "Input", "InputLayer",
                                "input_shape", "CenterCrop", "RandomCrop", "RandomResizedCrop", "Resize"},
                               .init_counts = false});
  // Keras functional graphs: `keras.Input(shape=...)` and the layers applied to it, in one function.
  out.pairs.push_back({.first = {"Input"},
                               .second = {"Conv1D", "Conv2D", "Conv3D", "Convolution1D", "Convolution2D", "Convolution3D",
                                "MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "MaxPool1D", "MaxPool2D", "MaxPool3D",
                                "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "AvgPool1D", "AvgPool2D",
                                "AvgPool3D"},
                               .init_counts = false});
  // Functional convolutions on literal-shaped tensors: `F.conv2d(torch.randn(...), torch.randn(...))`.
  out.pairs.push_back({.first = {"conv1d", "conv2d", "conv3d"},
                               .second = {"randn", "rand", "zeros", "ones", "empty", "normal", "uniform"},
                               .init_counts = false});
  // A model class of the module run on a literal-shaped tensor (`net = Net(); net(torch.randn(...))`,
  // `torch.onnx.export(net, x, ...)`): a class building convolutions or pools stands for the second
  // half where its name is used, and is then parsed whole (its __init__ and forward).
  out.pairs.push_back({.first = {"randn", "rand", "zeros", "ones", "empty", "normal", "uniform", "CenterCrop",
                                "RandomCrop", "RandomResizedCrop", "Resize"},
                               .second = {"Conv1d", "Conv2d", "Conv3d", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d",
                                "AvgPool2d", "AvgPool3d", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d",
                                "avg_pool2d", "avg_pool3d"},
                               .second_classes = true, .second_only_through_classes = true, .methods = false});
}

}  // namespace

Relevance relevance_of(const ApiTable& table, std::span<const std::string> families) {
  auto has = [&](std::string_view family) { return std::find(families.begin(), families.end(), family) != families.end(); };
  const std::vector<std::string> family_list(families.begin(), families.end());
  Relevance out;
  out.words = table.trigger_words(family_list);
  // Method APIs (tf.data's `batch`, Keras's `fit`) and the zero-size tensors the loader family reads
  // (`tf.zeros([0, ...])` into a TensorFlow layer) matter only in files that name TensorFlow or Keras.
  if (has(kLoaderFamily)) {
    out.framework_markers = {"tensorflow", "keras", "tf_keras"};
    for (const auto& [method, api] : table.methods_of(kLoaderFamily)) out.framework_words.push_back(method);
    out.framework_words.emplace_back("zeros");
  }
  out.quoted_tokens = table.quoted_tokens(family_list);
  for (const auto& token : out.quoted_tokens) out.quoted.push_back(token.substr(1, token.size() - 2));
  if (has(kDtypeFamily)) add_dtype_relevance(table, out);
  if (has(kShapeFamily)) add_shape_relevance(out);
  out.attributes = table.instance_attributes();
  return out;
}

}  // namespace cudnnlint::python
