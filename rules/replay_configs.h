// Replay configurations built from facts: what gpu_check needs to rebuild the operation a
// finding names, with what it must assume and what stays unknown.
#pragma once

#include "core/facts.h"
#include "core/finding.h"

#include <string>
#include <string_view>

namespace cudnnlint {

// A tensor, filter or convolution descriptor set call, replayed as written.
ReplayConfig descriptor_replay(const DescriptorFact& fact);
// A convolution whose geometry fixes the input: the output size query (2-D only).
ReplayConfig convolution_replay(const ConvGeometryFact& fact);
// A batch norm with a known epsilon: a tiny tensor with a zero-variance channel.
ReplayConfig batchnorm_replay(double epsilon, DType dtype);

}  // namespace cudnnlint
