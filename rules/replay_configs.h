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

// The framework tier's cases (FrameworkReplay): what the framework the user has installed is asked
// to do with a finding's values. Each says in `assumed` what the finding does not fix.
// "torch" -> Torch; "tensorflow", "keras" -> TensorFlow; anything else None (libtorch: no Python).
FrameworkName framework_named(std::string_view fact_framework);
// An input of `input` type into a convolution (or a batch norm) with `weight` weights; the geometry
// is assumed (Conv2d(3, 4, 3) on [1, 3, 8, 8]): the claim is about the types alone.
FrameworkReplay input_type_case(FrameworkName framework, DType input, DType weight, bool batch_norm);
// A loader over `dataset_size` samples (nullopt: 1000 assumed, where the size does not decide) with
// `batch_size`.
// Keras' Model.fit (the API table's framework "keras") is replayed by fitting a one-layer model.
FrameworkReplay loader_case(std::string_view api_framework, FrameworkExpect expect, std::int64_t batch_size,
                            std::optional<std::int64_t> dataset_size, bool drop_last);
// An epsilon in a batch norm (training, a constant channel), in float16 arithmetic, or in an Adam
// step on float16 parameters.
FrameworkReplay epsilon_case(FrameworkName framework, FrameworkProbe probe, FrameworkExpect expect, double epsilon);

}  // namespace cudnnlint
