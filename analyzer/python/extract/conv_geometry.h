// Convolution geometry facts from resolved Python uses: nn.Conv{1,2,3}d, F.conv2d, Keras
// Conv2D, tf.nn.conv2d, paddle and MXNet convolutions. Kernel sizes, strides, paddings and
// dilations are folded per axis (an int or a tuple); 'same'/'valid' paddings are kept as modes.
#pragma once

#include "python/resolver.h"

namespace cudnnlint::python {

// The geometry a convolution call fixes, from its table entry and its arguments (`shift`: how
// many leading positional arguments the API does not see, as in ApiUse). No input: the caller
// fills it where it knows one.
ConvGeometryFact conv_geometry_of(const ApiEntry& api, const CallArgs& args, int shift, TSNode site, Resolver& r);

class ConvGeometryExtractor : public Extractor {
 public:
  bool handles(const ApiEntry& api) const override { return api.family == kConvolutionFamily; }
  void on_use(const ApiUse& use, Resolver& r) override;
};

}  // namespace cudnnlint::python
