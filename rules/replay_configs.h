// Replay configurations built from facts: what gpu_check needs to rebuild the operation a
// finding names, with what it must assume and what stays unknown.
#pragma once

#include "core/facts.h"
#include "core/finding.h"

#include <string>
#include <string_view>

namespace cudnnlint {

// "CUDNN_DATA_HALF" -> "float16"; "" when the name is not a known cuDNN data type.
std::string element_type_from_cudnn(std::string_view data_type);
// A framework's dtype spelling ("float16", "half", "mixed_float16", "bfloat16") -> "float16" ...
std::string element_type_from_framework(std::string_view dtype);

// A tensor, filter or convolution descriptor set call, replayed as written.
ReplayConfig descriptor_replay(const DescriptorFact& fact);
// Input, filter and convolution descriptors together: the output size query.
ReplayConfig convolution_replay(const ConvolutionFact& fact);
// A batch norm with a known epsilon: a tiny tensor with a zero-variance channel.
ReplayConfig batchnorm_replay(double epsilon, std::string_view framework_dtype);

}  // namespace cudnnlint
