// Spatial sizes through layer stacks: a tensor whose size the code fixes, run through a stack of
// layers the code lists, layer by layer, up to the first convolution or pooling layer that rejects
// its input as smaller than its (dilated) kernel. Two shapes of code:
//   - PyTorch: `model(x)` or `nn.Sequential(...)(x)`, where `model` is bound to an nn.Sequential
//     and `x` is a literal-shaped factory (`torch.randn(1, 3, 4, 4)`), inline or through a name;
//   - Keras: `keras.Sequential([keras.Input(shape=(4, 4, 3)), layers.Conv2D(8, 3), ...])`, or
//     the first layer's `input_shape=`.
// Layers: convolutions (the API table's, with their geometry), max and average pooling, and the
// layers that keep the size (activations, batch norm, dropout). Anything else ends the chain, as
// does any size, kernel or stride the code does not fix: the chain never guesses. The formulas
// are those the frameworks use, measured on a grid (tests/probes/torch_shapes.py, tf_shapes.py).
#pragma once

#include "python/resolver.h"

#include <optional>

namespace cudnnlint::python {

class ShapeChainExtractor : public Extractor {
 public:
  static ExtractorRelevance relevance(const ApiTable& table);
  // The functional convolutions (F.conv2d, tf.nn.conv2d) on literal-shaped input and weight.
  bool handles(const ApiEntry& api) const override { return api.family == kConvolutionFamily && !api.is_class; }
  void on_use(const ApiUse& use, Resolver& r) override;
  void on_other_call(TSNode call, Resolver& r) override;

 private:
  void functional(TSNode call, Resolver& r);
  std::optional<bool> names_sequential_;  // whether the file spells `Sequential` at all (per file)
  std::optional<bool> names_input_;       // and `Input(`
  std::optional<bool> names_forward_;     // and `def forward`
};

}  // namespace cudnnlint::python
