#include "core/tensor_layout.h"
#include "rules/descriptor_values.h"
#include "rules/replay_configs.h"

#include <array>
#include <optional>

namespace cudnnlint {

namespace {

bool has_name(const DescriptorFact& fact, std::string_view name) {
  for (const auto& n : fact.names)
    if (n == name) return true;
  return false;
}

// Reads the named values into `out`; names that are not constant go into `missing`.
void read_values(const DescriptorFact& fact, std::initializer_list<std::string_view> names,
                 std::vector<std::int64_t>& out, std::string& missing) {
  for (std::string_view name : names) {
    if (auto v = value_named(fact, name)) {
      out.push_back(*v);
    } else {
      if (!missing.empty()) missing += ", ";
      missing += std::string(name) + " of " + fact.descriptor;
    }
  }
}

// Data type and layout: as written where constant, else assumed (they do not decide the
// BAD_PARAM verdicts the descriptor rules make, and the assumption is reported).
void set_type_and_layout(const DescriptorFact& fact, ReplayConfig& replay, bool has_format) {
  replay.dtype = dtype_from_spelling(fact.data_type);
  if (replay.dtype == DType::Unknown) {
    replay.dtype = DType::Float32;
    replay.assumed.push_back("data type float32 (" + fact.descriptor + "'s is not a constant here)");
  }
  if (!has_format) return;
  replay.layout = layout_from_cudnn(fact.format);
  if (replay.layout.empty()) {
    replay.layout = "NCHW";
    replay.assumed.push_back("format NCHW (" + fact.descriptor + "'s is not a constant here)");
  }
}

}  // namespace

ReplayConfig descriptor_replay(const DescriptorFact& fact) {
  ReplayConfig replay;
  replay.api = fact.api;
  replay.expect = Expectation::BadParam;
  std::string missing;
  switch (fact.kind) {
    case DescriptorFact::Kind::Tensor: {
      replay.op = ReplayOp::TensorDescriptor;
      set_type_and_layout(fact, replay, fact.api == "cudnnSetTensor4dDescriptor");
      if (has_name(fact, "n")) {
        read_values(fact, {"n", "c", "h", "w"}, replay.input, missing);
        if (has_name(fact, "n_stride")) read_values(fact, {"n_stride", "c_stride", "h_stride", "w_stride"}, replay.strides, missing);
      } else {
        for (std::size_t i = 0; i < fact.names.size(); ++i) {
          if (fact.names[i].find("_stride") != std::string::npos) continue;
          if (fact.values[i]) replay.input.push_back(fact.values[i]->value);
          else missing += (missing.empty() ? "" : ", ") + fact.names[i] + " of " + fact.descriptor;
        }
        for (std::size_t i = 0; i < fact.names.size(); ++i)
          if (fact.names[i].find("_stride") != std::string::npos && fact.values[i])
            replay.strides.push_back(fact.values[i]->value);
        if (replay.input.empty() && missing.empty()) missing = "the dimensions of " + fact.descriptor;
      }
      if (fact.api == "cudnnSetTensorNdDescriptor" && replay.strides.size() != replay.input.size()) {
        replay.strides.clear();
        replay.assumed.push_back("packed strides (the stride array is not a constant here)");
      }
      break;
    }
    case DescriptorFact::Kind::Filter:
      replay.op = ReplayOp::FilterDescriptor;
      set_type_and_layout(fact, replay, true);
      read_values(fact, {"k", "c", "h", "w"}, replay.filter, missing);
      break;
    case DescriptorFact::Kind::Convolution:
      replay.op = ReplayOp::ConvolutionDescriptor;
      replay.compute_type = dtype_from_spelling(fact.data_type);
      if (replay.compute_type == DType::Unknown) {
        replay.compute_type = DType::Float32;
        replay.assumed.push_back("compute type float32 (not a constant here)");
      }
      read_values(fact, {"pad_h", "pad_w"}, replay.padding, missing);
      read_values(fact, {"stride_h", "stride_w"}, replay.stride, missing);
      read_values(fact, {"dilation_h", "dilation_w"}, replay.dilation, missing);
      break;
  }
  if (!missing.empty()) replay.unknown = missing + " (not constant)";
  return replay;
}

ReplayConfig convolution_replay(const ConvGeometryFact& fact) {
  ReplayConfig replay;
  replay.op = ReplayOp::Convolution;
  replay.expect = Expectation::BadParam;
  std::string missing;
  auto read = [&](const std::optional<IntegerValue>& value, const std::string& what, std::vector<std::int64_t>& into) {
    if (value) into.push_back(value->value);
    else missing += (missing.empty() ? "" : ", ") + what;
  };
  // A 1-D convolution reaches cuDNN as a 2-D one of height 1: PyTorch views (N, C, W) as
  // (N, C, 1, W) for cuDNN, and TensorFlow's conv1d expands its input to 2-D the same way.
  const bool one_d = fact.kernel.size() == 1 && fact.input.size() == 3;
  if (!one_d && (fact.kernel.size() != 2 || fact.input.size() != 4)) {
    replay.unknown = "only 1-D and 2-D convolutions with a fixed input are replayed";
    return replay;
  }
  auto spatial = [&](const std::vector<std::optional<IntegerValue>>& values, std::size_t axis,
                     std::int64_t height_value) -> std::optional<IntegerValue> {
    if (!one_d) return axis < values.size() ? values[axis] : std::nullopt;
    if (axis == 0) return IntegerValue{height_value, std::to_string(height_value), {}, {}};
    return values.empty() ? std::nullopt : values[0];
  };
  static const char* nchw[] = {"n", "c", "h", "w"};
  for (std::size_t i = 0; i < 2; ++i) read(fact.input[i], std::string("input ") + nchw[i], replay.input);
  const std::vector<std::optional<IntegerValue>> input_spatial(fact.input.begin() + 2, fact.input.end());
  for (std::size_t i = 0; i < 2; ++i) read(spatial(input_spatial, i, 1), std::string("input ") + nchw[i + 2], replay.input);
  read(fact.out_channels, "filter k", replay.filter);
  read(fact.in_channels, "filter c", replay.filter);
  for (std::size_t i = 0; i < 2; ++i) read(spatial(fact.kernel, i, 1), std::string("filter ") + nchw[i + 2], replay.filter);
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string axis = nchw[i + 2];
    if (fact.padding_mode == "valid") replay.padding.push_back(0);
    else read(spatial(fact.padding, i, 0), "pad_" + axis, replay.padding);
    read(spatial(fact.stride, i, 1), "stride_" + axis, replay.stride);
    read(spatial(fact.dilation, i, 1), "dilation_" + axis, replay.dilation);
  }
  if (one_d) replay.assumed.push_back("a 1-D convolution as cuDNN gets it: height 1 (N, C, 1, W)");
  replay.dtype = fact.dtype;
  if (replay.dtype == DType::Unknown) {
    replay.dtype = DType::Float32;
    replay.assumed.push_back("data type float32 (the input's is not a constant here)");
  }
  replay.layout = fact.layout;
  if (fact.input_api != "cudnnSetTensor4dDescriptor") {
    replay.layout = "NCHW";
    replay.assumed.push_back("packed NCHW input (the input is set by " + (fact.input_api.empty() ? std::string("the framework") : fact.input_api) + ")");
  } else if (replay.layout.empty()) {
    replay.layout = "NCHW";
    replay.assumed.push_back("format NCHW (the input's is not a constant here)");
  }
  replay.compute_type = fact.compute_type;
  if (replay.compute_type == DType::Unknown) {
    replay.compute_type = DType::Float32;
    replay.assumed.push_back("compute type float32 (not a constant here)");
  }
  if (!missing.empty()) replay.unknown = missing + " (not constant)";
  return replay;
}

ReplayConfig batchnorm_replay(double epsilon, DType dtype) {
  ReplayConfig replay;
  replay.op = ReplayOp::Batchnorm;
  replay.epsilon = epsilon;
  replay.bn_mode = "spatial";
  replay.layout = "NCHW";
  replay.input = {2, 4, 2, 2};
  replay.assumed.push_back("input 2x4x2x2 with channel 0 constant (zero variance): the model's shape is set at "
                           "run time, and epsilon's effect does not depend on it");
  // Batch norm runs in a floating type; an integer dtype argument is another rule's business.
  replay.dtype = is_floating(dtype) ? dtype : DType::Unknown;
  if (replay.dtype == DType::Unknown) {
    replay.dtype = DType::Float32;
    replay.assumed.push_back("float32 input (the dtype is set at run time)");
  }
  return replay;
}

FrameworkName framework_named(std::string_view fact_framework) {
  if (fact_framework == "torch") return FrameworkName::Torch;
  if (fact_framework == "tensorflow" || fact_framework == "keras") return FrameworkName::TensorFlow;
  return FrameworkName::None;
}

FrameworkReplay input_type_case(FrameworkName framework, DType input, DType weight, bool batch_norm) {
  FrameworkReplay r;
  r.framework = framework;
  r.expect = FrameworkExpect::Raises;
  r.input_dtype = input;
  r.weight_dtype = weight;
  if (batch_norm) {
    r.probe = FrameworkProbe::BatchNormInput;
    r.input = {2, 3, 4, 4};
    r.assumed.push_back("a batch norm over 3 channels on an input of shape [2, 3, 4, 4] (the finding fixes the types only)");
    return r;
  }
  r.probe = FrameworkProbe::ConvInput;
  r.input = {1, 3, 8, 8};
  r.kernel = {3, 3};
  r.out_channels = 4;
  r.assumed.push_back("a 3x3 convolution from 3 to 4 channels on an input of shape [1, 3, 8, 8] (the finding fixes the types only)");
  return r;
}

FrameworkReplay loader_case(std::string_view api_framework, FrameworkExpect expect, std::int64_t batch_size,
                            std::optional<std::int64_t> dataset_size, bool drop_last) {
  FrameworkReplay r;
  r.framework = framework_named(api_framework);
  r.expect = expect;
  r.batch_size = batch_size;
  if (api_framework == "keras") {
    r.probe = FrameworkProbe::KerasFit;
    r.assumed.push_back("a one-layer model fitted on 4 samples, standing for fit, evaluate and predict, which slice "
                        "batches alike (the finding fixes the batch size only)");
    return r;
  }
  r.probe = FrameworkProbe::LoaderBatch;
  r.dataset_size = dataset_size.value_or(1000);
  if (!dataset_size) r.assumed.push_back("a dataset of 1000 samples (its size does not decide the finding)");
  r.drop_last = drop_last;
  return r;
}

FrameworkReplay epsilon_case(FrameworkName framework, FrameworkProbe probe, FrameworkExpect expect, double epsilon) {
  FrameworkReplay r;
  r.framework = framework;
  r.probe = probe;
  r.expect = expect;
  r.epsilon = epsilon;
  return r;
}

}  // namespace cudnnlint
