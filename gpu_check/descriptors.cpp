#include "gpu_check/descriptors.h"

#include <limits>
#include <vector>

namespace cudnnlint::gpu {

std::optional<abi::cudnnDataType_t> cudnn_data_type(DType element_type) {
  switch (element_type) {
    case DType::Float32: return abi::CUDNN_DATA_FLOAT;
    case DType::Float64: return abi::CUDNN_DATA_DOUBLE;
    case DType::Float16: return abi::CUDNN_DATA_HALF;
    case DType::BFloat16: return abi::CUDNN_DATA_BFLOAT16;
    case DType::Int8: return abi::CUDNN_DATA_INT8;
    case DType::Int32: return abi::CUDNN_DATA_INT32;
    case DType::UInt8: return abi::CUDNN_DATA_UINT8;
    case DType::Int64: return abi::CUDNN_DATA_INT64;
    case DType::Bool: return abi::CUDNN_DATA_BOOLEAN;
    default: return std::nullopt;
  }
}

std::optional<abi::cudnnTensorFormat_t> cudnn_format(const std::string& layout) {
  if (layout == "NCHW" || layout.empty()) return abi::CUDNN_TENSOR_NCHW;
  if (layout == "NHWC") return abi::CUDNN_TENSOR_NHWC;
  if (layout == "NCHW_VECT_C") return abi::CUDNN_TENSOR_NCHW_VECT_C;
  return std::nullopt;
}

namespace {

// cuDNN takes int; values outside int are passed as the nearest int, and the call shows it.
int as_int(std::int64_t v) {
  if (v > std::numeric_limits<int>::max()) return std::numeric_limits<int>::max();
  if (v < std::numeric_limits<int>::min()) return std::numeric_limits<int>::min();
  return static_cast<int>(v);
}

std::string list(const std::vector<int>& values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "}";
}

// Fully packed strides of `dims` in NCHW order.
std::vector<int> packed_strides(const std::vector<int>& dims) {
  std::vector<int> strides(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * (dims[i] > 0 ? dims[i] : 1);
  return strides;
}

}  // namespace

CallResult set_tensor(const CudnnApi& api, TensorDescriptor& desc, const ReplayConfig& replay,
                      const std::vector<std::int64_t>& dims64, DType element_type_id) {
  const std::string element_type(dtype_name(element_type_id));
  CallResult result;
  if (desc.get() == nullptr) return {desc.create_status(), "cudnnCreateTensorDescriptor", true};
  const auto type = cudnn_data_type(element_type_id);
  const auto format = cudnn_format(replay.layout);
  std::vector<int> dims;
  for (auto d : dims64) dims.push_back(as_int(d));
  if (!type || !format) {
    result.status = abi::CUDNN_STATUS_BAD_PARAM;
    result.call = "(not replayable: data type '" + element_type + "' or layout '" + replay.layout + "')";
    result.setup_failed = true;
    return result;
  }
  if (replay.api == "cudnnSetTensorNdDescriptor" || dims.size() != 4) {
    std::vector<int> strides;
    for (auto s : replay.strides) strides.push_back(as_int(s));
    if (strides.size() != dims.size()) strides = packed_strides(dims);
    result.status = api.set_tensor_nd(desc.get(), *type, static_cast<int>(dims.size()), dims.data(), strides.data());
    result.call = "cudnnSetTensorNdDescriptor(" + element_type + ", dims=" + list(dims) + ", strides=" + list(strides) + ")";
  } else if (replay.api == "cudnnSetTensor4dDescriptorEx") {
    std::vector<int> strides;
    for (auto s : replay.strides) strides.push_back(as_int(s));
    if (strides.size() != 4) strides = packed_strides(dims);
    result.status = api.set_tensor_4d_ex(desc.get(), *type, dims[0], dims[1], dims[2], dims[3], strides[0], strides[1],
                                         strides[2], strides[3]);
    result.call = "cudnnSetTensor4dDescriptorEx(" + element_type + ", n=" + std::to_string(dims[0]) + ", c=" +
                  std::to_string(dims[1]) + ", h=" + std::to_string(dims[2]) + ", w=" + std::to_string(dims[3]) +
                  ", strides=" + list(strides) + ")";
  } else {
    result.status = api.set_tensor_4d(desc.get(), *format, *type, dims[0], dims[1], dims[2], dims[3]);
    result.call = "cudnnSetTensor4dDescriptor(" + (replay.layout.empty() ? std::string("NCHW") : replay.layout) + ", " +
                  element_type + ", n=" + std::to_string(dims[0]) + ", c=" + std::to_string(dims[1]) + ", h=" +
                  std::to_string(dims[2]) + ", w=" + std::to_string(dims[3]) + ")";
  }
  return result;
}

CallResult set_filter(const CudnnApi& api, FilterDescriptor& desc, const ReplayConfig& replay) {
  CallResult result;
  if (desc.get() == nullptr) return {desc.create_status(), "cudnnCreateFilterDescriptor", true};
  const auto type = cudnn_data_type(replay.dtype);
  const auto format = cudnn_format(replay.layout);
  if (!type || !format || replay.filter.size() != 4) {
    result.status = abi::CUDNN_STATUS_BAD_PARAM;
    result.call = "(not replayable: filter)";
    result.setup_failed = true;
    return result;
  }
  const auto& f = replay.filter;
  result.status =
      api.set_filter_4d(desc.get(), *type, *format, as_int(f[0]), as_int(f[1]), as_int(f[2]), as_int(f[3]));
  result.call = "cudnnSetFilter4dDescriptor(" + std::string(dtype_name(replay.dtype)) + ", " + (replay.layout.empty() ? "NCHW" : replay.layout) +
                ", k=" + std::to_string(f[0]) + ", c=" + std::to_string(f[1]) + ", h=" + std::to_string(f[2]) +
                ", w=" + std::to_string(f[3]) + ")";
  return result;
}

CallResult set_convolution(const CudnnApi& api, ConvolutionDescriptor& desc, const ReplayConfig& replay) {
  CallResult result;
  if (desc.get() == nullptr) return {desc.create_status(), "cudnnCreateConvolutionDescriptor", true};
  // Unknown compute type: what cuDNN's own configurations use (double for double data).
  const DType compute_type = replay.compute_type != DType::Unknown ? replay.compute_type
                             : replay.dtype == DType::Float64     ? DType::Float64
                                                                  : DType::Float32;
  const std::string compute_name(dtype_name(compute_type));
  const auto compute = cudnn_data_type(compute_type);
  if (!compute || replay.padding.size() != 2 || replay.stride.size() != 2 || replay.dilation.size() != 2) {
    result.status = abi::CUDNN_STATUS_BAD_PARAM;
    result.call = "(not replayable: convolution)";
    result.setup_failed = true;
    return result;
  }
  const auto &p = replay.padding, &s = replay.stride, &d = replay.dilation;
  result.status = api.set_convolution_2d(desc.get(), as_int(p[0]), as_int(p[1]), as_int(s[0]), as_int(s[1]),
                                         as_int(d[0]), as_int(d[1]), abi::CUDNN_CROSS_CORRELATION, *compute);
  result.call = "cudnnSetConvolution2dDescriptor(pad=" + std::to_string(p[0]) + "x" + std::to_string(p[1]) +
                ", stride=" + std::to_string(s[0]) + "x" + std::to_string(s[1]) + ", dilation=" +
                std::to_string(d[0]) + "x" + std::to_string(d[1]) + ", " + compute_name + ")";
  return result;
}

}  // namespace cudnnlint::gpu
