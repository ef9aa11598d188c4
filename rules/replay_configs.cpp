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

std::string layout_from_cudnn(std::string_view format) {
  if (format == "CUDNN_TENSOR_NCHW") return "NCHW";
  if (format == "CUDNN_TENSOR_NHWC") return "NHWC";
  if (format == "CUDNN_TENSOR_NCHW_VECT_C") return "NCHW_VECT_C";
  return "";
}

// Data type and layout: as written where constant, else assumed (they do not decide the
// BAD_PARAM verdicts the descriptor rules make, and the assumption is reported).
void set_type_and_layout(const DescriptorFact& fact, ReplayConfig& replay, bool has_format) {
  replay.dtype = element_type_from_cudnn(fact.data_type);
  if (replay.dtype.empty()) {
    replay.dtype = "float32";
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

std::string element_type_from_cudnn(std::string_view data_type) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 8> names{{
      {"CUDNN_DATA_FLOAT", "float32"}, {"CUDNN_DATA_DOUBLE", "float64"}, {"CUDNN_DATA_HALF", "float16"},
      {"CUDNN_DATA_BFLOAT16", "bfloat16"}, {"CUDNN_DATA_INT8", "int8"}, {"CUDNN_DATA_INT32", "int32"},
      {"CUDNN_DATA_UINT8", "uint8"}, {"CUDNN_DATA_INT64", "int64"}}};
  for (const auto& [cudnn, element] : names)
    if (cudnn == data_type) return std::string(element);
  return "";
}

std::string element_type_from_framework(std::string_view dtype) {
  if (dtype == "float16" || dtype == "half" || dtype == "mixed_float16" || dtype == "kHalf" || dtype == "kFloat16")
    return "float16";
  if (dtype == "bfloat16" || dtype == "mixed_bfloat16" || dtype == "kBFloat16") return "bfloat16";
  if (dtype == "float32" || dtype == "float" || dtype == "kFloat" || dtype == "kFloat32") return "float32";
  if (dtype == "float64" || dtype == "double" || dtype == "kDouble" || dtype == "kFloat64") return "float64";
  return "";
}

ReplayConfig descriptor_replay(const DescriptorFact& fact) {
  ReplayConfig replay;
  replay.api = fact.api;
  replay.expect = "CUDNN_STATUS_BAD_PARAM";
  std::string missing;
  switch (fact.kind) {
    case DescriptorFact::Kind::Tensor: {
      replay.op = "tensor-descriptor";
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
      replay.op = "filter-descriptor";
      set_type_and_layout(fact, replay, true);
      read_values(fact, {"k", "c", "h", "w"}, replay.filter, missing);
      break;
    case DescriptorFact::Kind::Convolution:
      replay.op = "convolution-descriptor";
      replay.compute_type = element_type_from_cudnn(fact.data_type);
      if (replay.compute_type.empty()) {
        replay.compute_type = "float32";
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

ReplayConfig convolution_replay(const ConvolutionFact& fact) {
  ReplayConfig replay;
  replay.op = "convolution";
  replay.expect = "CUDNN_STATUS_BAD_PARAM";
  std::string missing;
  read_values(fact.input, {"n", "c", "h", "w"}, replay.input, missing);
  read_values(fact.filter, {"k", "c", "h", "w"}, replay.filter, missing);
  read_values(fact.convolution, {"pad_h", "pad_w"}, replay.padding, missing);
  read_values(fact.convolution, {"stride_h", "stride_w"}, replay.stride, missing);
  read_values(fact.convolution, {"dilation_h", "dilation_w"}, replay.dilation, missing);
  set_type_and_layout(fact.input, replay, fact.input.api == "cudnnSetTensor4dDescriptor");
  if (fact.input.api != "cudnnSetTensor4dDescriptor") {
    replay.layout = "NCHW";
    replay.assumed.push_back("packed NCHW input (" + fact.input.descriptor + " is set by " + fact.input.api + ")");
  }
  replay.compute_type = element_type_from_cudnn(fact.convolution.data_type);
  if (replay.compute_type.empty()) {
    replay.compute_type = "float32";
    replay.assumed.push_back("compute type float32 (not a constant here)");
  }
  if (!missing.empty()) replay.unknown = missing + " (not constant)";
  return replay;
}

ReplayConfig batchnorm_replay(double epsilon, std::string_view framework_dtype) {
  ReplayConfig replay;
  replay.op = "batchnorm";
  replay.epsilon = epsilon;
  replay.bn_mode = "spatial";
  replay.layout = "NCHW";
  replay.input = {2, 4, 2, 2};
  replay.assumed.push_back("input 2x4x2x2 with channel 0 constant (zero variance): the model's shape is set at "
                           "run time, and epsilon's effect does not depend on it");
  replay.dtype = element_type_from_framework(framework_dtype);
  if (replay.dtype.empty()) {
    replay.dtype = "float32";
    replay.assumed.push_back("float32 input (the dtype is set at run time)");
  }
  return replay;
}

}  // namespace cudnnlint
