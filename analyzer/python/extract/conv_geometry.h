// Convolution geometry facts from resolved Python uses: nn.Conv{1,2,3}d, F.conv2d, Keras
// Conv2D, tf.nn.conv2d, paddle and MXNet convolutions. Kernel sizes, strides, paddings and
// dilations are folded per axis (an int or a tuple); 'same'/'valid' paddings are kept as modes.
#pragma once

#include "python/resolver.h"

namespace cudnnlint::python {

class ConvGeometryExtractor : public Extractor {
 public:
  bool handles(const ApiEntry& api) const override { return api.family == kConvolutionFamily; }
  void on_use(const ApiUse& use, Resolver& r) override;
};

}  // namespace cudnnlint::python
