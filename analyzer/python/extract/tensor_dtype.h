// Element-type facts from Python, on the dtype vocabulary of core/dtype.h:
// - a tensor whose element type the code makes plain (`torch.randint`, `.long()`, `torch.from_numpy`
//   of a uint8 array, `PILToTensor()`, `torchvision.io.read_image`, `tf.cast(x, tf.int32)`,
//   `x.half()`) reaching, in the same function, a layer whose weights the code makes plain too: a
//   convolution or batch norm built there, an `nn.Sequential` starting with one, a torchvision or
//   timm model, or `F.conv2d` / `tf.nn.conv2d`. TensorInputFacts; the rules decide what fails.
// - a small constant meeting a float16 tensor: `x / (x.norm() + 1e-8)` where the code makes x half,
//   a matmul in an autocast region, the inputs of a Keras layer under `mixed_float16` (unless the
//   layer's own dtype is float32: `super().__init__(dtype="float32")`, every `L(dtype="float32")`);
//   and an optimizer's eps on a model converted with `.half()`. LowPrecisionConstantFacts.
// Autocast regions, models converted to the input's type, and models handed to other code (which
// may convert them) are not facts: the types there are not plain.
#pragma once

#include "python/resolver.h"

#include <optional>
#include <string>

namespace cudnnlint::python {

// The convolution or batch norm a model class of this file runs its input through first (its
// `forward`, or a Keras subclass's `call`), where the code makes that plain: its API-table name,
// framework and construction. nullopt for any other class.
struct FirstLayer {
  std::string api;
  std::string framework;
  TSNode built{};
};
std::optional<FirstLayer> first_layer_of_model_class(TSNode class_definition, Resolver& r);

class TensorDtypeExtractor : public Extractor {
 public:
  static ExtractorRelevance relevance(const ApiTable& table);
  bool handles(const ApiEntry& api) const override;
  void on_use(const ApiUse& use, Resolver& r) override;
  void on_other_call(TSNode call, Resolver& r) override;
  void on_binary_operator(TSNode op, Resolver& r) override;

 private:
  struct FileFlags {
    bool default_dtype_changed = false;  // torch.set_default_dtype / set_default_tensor_type
    bool autocast_switched = false;      // torch.set_autocast_enabled, apex amp.initialize
    std::optional<Location> keras_half_policy;  // mixed_float16 set when the module loads
    std::string keras_policy_text;
    std::string blanked_source;  // with the policy: the text, strings and comments blanked (Keras layer dtypes)
    // `set_floatx("float16")` when the module loads: every Keras weight made after it is float16.
    std::optional<Location> keras_float16_weights;
  };
  const FileFlags& flags(Resolver& r);
  void keras_optimizer(const ApiUse& use, Resolver& r);
  std::optional<FileFlags> flags_;
};

}  // namespace cudnnlint::python
